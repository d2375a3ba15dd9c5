"""Model loading: the spaCy pipeline set up as the official SPICE parser's front end.

Only tags and dependencies are used, so NER, the statistical sentence splitter and the
attribute ruler are never loaded; PTB tokenisation keeps intra-word hyphens; sentences split
only after ``.``, ``!`` and ``?`` (CoreNLP's default splitter); lemmas come from
:class:`~capeval.metrics.spice.lemma.MorphaLemmatizer` over the pipeline's WordNet tables.
Nothing is downloaded: the pipeline must be installed (the ``spice`` extra).
"""

from __future__ import annotations

from typing import Any

from capeval.metrics.spice.lemma import MorphaLemmatizer
from capeval.metrics.spice.parsing.vocab import SENTENCE_END

__all__ = ["load_pipeline"]

#: The hyphen alternation of spaCy's English infix rule that splits "double-decker".
_HYPHEN_INFIX = "(?:-|–|—|--|---|——|~)"


def load_pipeline(model: str) -> tuple[Any, MorphaLemmatizer]:
    """Load an installed spaCy English pipeline as the parser's front end, and its lemmatiser.

    Args:
        model: Installed pipeline package name (or path).

    Returns:
        ``(nlp, lemmatizer)``: the pipeline (tagger and parser, PTB hyphen handling, CoreNLP
        sentence splitting) and a :class:`MorphaLemmatizer` over its WordNet tables.

    Raises:
        ImportError: when spaCy or the model is not installed.
    """
    try:
        import spacy
        from spacy.language import Language
        from spacy.util import compile_infix_regex
    except ImportError as exc:  # pragma: no cover - depends on the environment
        from capeval._install import needs_extra

        raise ImportError(needs_extra("SPICE (spaCy)", "spice")) from exc
    try:
        # Only tags and dependencies are read: NER, the statistical sentence splitter and
        # the tag-to-POS attribute ruler are never loaded (tags and parses are identical
        # without the ruler); the lemmatizer is loaded only for its WordNet tables.
        nlp = spacy.load(model, exclude=["ner", "senter", "attribute_ruler"], disable=["lemmatizer"])
    except OSError as exc:
        from capeval._install import install_command

        raise ImportError(f"spaCy model {model!r} is not installed: {install_command('spice')}") from exc
    # PTB keeps intra-word hyphens ("double-decker"); drop spaCy's hyphen infix rule.
    infixes = [p for p in (nlp.Defaults.infixes or ()) if not (isinstance(p, str) and _HYPHEN_INFIX in p)]
    tokenizer: Any = nlp.tokenizer
    tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    if "capeval_spice_ssplit" not in Language.factories:
        Language.component("capeval_spice_ssplit", func=_split_sentences)
    nlp.add_pipe("capeval_spice_ssplit", before="parser")
    lemmatizer: Any = nlp.get_pipe("lemmatizer")
    exceptions = lemmatizer.lookups.get_table("lemma_exc")
    index = lemmatizer.lookups.get_table("lemma_index")
    return nlp, MorphaLemmatizer(exceptions["noun"], exceptions["verb"], index["noun"], index["verb"])


def _split_sentences(doc: Any) -> Any:
    """Sentence starts only after ``.``, ``!``, ``?`` tokens (CoreNLP's default splitter)."""
    for i, token in enumerate(doc):
        token.is_sent_start = i == 0 or doc[i - 1].text in SENTENCE_END
    return doc
