"""The spaCy backend of SPICE's parser, in three steps (driven by
:class:`~capeval.metrics.spice.spacy_parser.SpacyParser`):

* :mod:`.load`: load the installed spaCy pipeline as the official parser's front end;
* :mod:`.retag`: repair tags and attachments on named :class:`~.retag.Word` records where
  spaCy's separate tagger and parser disagree with the official PCFG;
* :mod:`.convert`: rewrite each sentence into the CoreNLP UD v1 CCprocessed graph SPICE's
  rules read, and emulate the PCFG on noun-phrase fragments.

:mod:`.vocab` holds the word lists they share.
"""
