"""Raw text as official SPICE 1.0 reads it: Stanford CoreNLP 3.6.0's ``tokenize`` and ``ssplit``.

SPICE's CoreNLP pipeline (``tokenize,ssplit,parse,lemma``) annotates each caption as a text of
its own. Its tokenizer is ``PTBTokenizer`` with the options ``invertible,ptb3Escaping=true``; its
sentence splitter is ``WordToSentenceProcessor`` with its defaults. :func:`corenlp_sentences`
gives, for any string, the token words of each sentence exactly as that pipeline produces them
(``CoreLabel.word()``)::

    >>> corenlp_sentences('A man\\'s bike isn\\'t "blue" (mostly). Is it?')
    [['A', 'man', "'s", 'bike', 'is', "n't", '``', 'blue', "''", '-LRB-', 'mostly', '-RRB-', '.'], ['Is', 'it', '?']]

This is not the COCO tokenizer (:mod:`capeval.tokenizers.ptb`: CoreNLP 3.4.1, lower-cased,
punctuation removed afterwards). The two share one lexer (:mod:`capeval.tokenizers._ptb_lexer`)
in two versions; here:

* the case is kept and nothing is removed: punctuation, brackets (``-LRB-``), quotes (``` `` ```,
  ``''``, `````, ``'``) and clitics (``'s``, ``n't``) are tokens; ``$`` is split from numbers;
  ``...``, ``--`` and the other PTB3 normalisations apply; untokenizable characters (emoji,
  control characters) are deleted; line breaks are spaces;
* the 3.6.0 lexer differs from 3.4.1 in a few rules (see :mod:`capeval.tokenizers._ptb_lexer`),
  e.g. ``"Wait.... Then"`` gives ``Wait ... .`` + ``Then``;
* the text is read in UTF-16 code units, as Java reads it: a character outside the Basic
  Multilingual Plane counts as two characters in the lexer's trailing contexts.

Sentences end after a token that is exactly ``.`` or a run of ``!`` and ``?`` (``?!``); closing
brackets and quotes right after it (``)`` ``]`` ``}`` ``"`` ``'`` ``''`` ``’`` ``”`` ``-RRB-``
``-RSB-`` ``-RCB-``) still belong to that sentence. Abbreviations (``Mr.``, ``U.S.``, ``p.m.``)
and ``...`` do not end a sentence; a line break does not either. A text without tokens has no
sentence.

Reference: Stanford CoreNLP 3.6.0 (``stanford-corenlp-3.6.0.jar``), ``TokenizerAnnotator`` and
``WordsToSentencesAnnotator`` as ``StanfordCoreNLP`` builds them for SPICE 1.0; checked token for
token against the jar (``tests/tokenizers/test_corenlp.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from capeval.tokenizers._ptb_lexer import scan_caption

__all__ = ["SENTENCE_FOLLOWERS", "corenlp_sentences", "corenlp_tokens", "split_sentences"]

#: Tokens that end a sentence (the whole token must match).
_BOUNDARY = re.compile(r"\.|[!?]+")
#: Tokens that, right after a sentence end, still belong to the sentence that ended.
SENTENCE_FOLLOWERS = frozenset([")", "]", "}", '"', "'", "''", "\u2019", "\u201d", "-RRB-", "-RSB-", "-RCB-"])


def _utf16_units(text: str) -> str:
    """``text`` with every character outside the BMP written as its two surrogate code units."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    out = []
    for char in text:
        code = ord(char)
        if code < 0x10000:
            out.append(char)
        else:
            code -= 0x10000
            out.append(chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF)))
    return "".join(out)


def _join_surrogates(token: str) -> str:
    """Surrogate pairs in ``token`` as the characters they encode (lone surrogates are kept)."""
    if token.isascii() or not any("\ud800" <= char <= "\udfff" for char in token):
        return token
    return token.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _check(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"expected a caption string, got {type(text).__name__}")
    return text


def corenlp_tokens(text: str) -> list[str]:
    """The tokens of ``text`` as CoreNLP 3.6.0's ``PTBTokenizer`` (``invertible,ptb3Escaping=true``)
    gives them: each token's ``word()``, in order.

    Args:
        text: one caption (any string; line breaks are spaces).

    Returns:
        The token words; empty when the text holds no token.

    Raises:
        TypeError: if ``text`` is not a string.

    Example:
        >>> corenlp_tokens("Cannot stop... the 1950s-era car costs $5,000!")
        ['Can', 'not', 'stop', '...', 'the', '1950s-era', 'car', 'costs', '$', '5,000', '!']
    """
    units = _utf16_units(_check(text))
    tokens = scan_caption(units, 0, len(units), lower=False, version="3.6.0")
    if units is not text:
        tokens = [_join_surrogates(token) for token in tokens]
    return tokens


def split_sentences(tokens: Iterable[str]) -> list[list[str]]:
    """Split token words into sentences as CoreNLP 3.6.0's ``WordToSentenceProcessor`` does by default.

    Args:
        tokens: token words, e.g. from :func:`corenlp_tokens`.

    Returns:
        The sentences, each a non-empty list of tokens; together they hold every token, in order.

    Example:
        >>> split_sentences(["Hi", "!", "''", "Yes", "..."])
        [['Hi', '!', "''"], ['Yes', '...']]
    """
    sentences: list[list[str]] = []
    current: list[str] = []
    for token in tokens:
        if not current and sentences and token in SENTENCE_FOLLOWERS:
            sentences[-1].append(token)
            continue
        current.append(token)
        if _BOUNDARY.fullmatch(token):
            sentences.append(current)
            current = []
    if current:
        sentences.append(current)
    return sentences


def corenlp_sentences(text: str) -> list[list[str]]:
    """The sentences of ``text`` and their token words, as SPICE's CoreNLP 3.6.0 pipeline splits them.

    Args:
        text: one caption, exactly as the pipeline would receive it.

    Returns:
        One list of token words per sentence (``[]`` for a text without tokens).

    Raises:
        TypeError: if ``text`` is not a string.

    Example:
        >>> corenlp_sentences("Mr. Smith waits at 5 p.m. today. Really?! (Yes.)")
        [['Mr.', 'Smith', 'waits', 'at', '5', 'p.m.', 'today', '.'], ['Really', '?!'], ['-LRB-', 'Yes', '.', '-RRB-']]
    """
    return split_sentences(corenlp_tokens(text))
