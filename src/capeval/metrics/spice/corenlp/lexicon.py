"""The parser's lexicon: which tags a token may take, and their scores, as CoreNLP 3.6.0 computes them.

englishPCFG's lexicon is CoreNLP's ``BaseLexicon`` with the English unknown-word model at
signature level 2. A token is looked up under its americanized form (:mod:`.americanize`):

* a word seen more than ``smooth_in_unknowns_threshold`` (100) times takes only its seen tags;
* a rarer known word takes every tag whose score is finite (``flexiTag``);
* an unknown word takes the open-class tags (those with more than 50 unknown-word types in
  training), scored through its signature (:func:`signature`).

Scores are computed in double precision in Java's order and rounded to float once, as Java
does (``(float) log(...)``, or minus infinity when the log is at most -100).
"""

from __future__ import annotations

import math
import unicodedata
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from .grammar import Grammar

__all__ = ["FLOOD_SCORE", "Lexicon", "signature"]

#: Score every tag without a finite score gets when a sentence is re-parsed after failing.
FLOOD_SCORE = np.float32(-1000.0)
#: Scores at or below this log-probability are minus infinity.
_MIN_LOG = -100.0
_LETTERS = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo"))

_Tags = npt.NDArray[np.int32]
_Scores = npt.NDArray[np.float32]


def _utf16_units(word: str) -> list[str]:
    """``word`` as Java sees it: UTF-16 code units (a surrogate stands for itself, with no case)."""
    if word.isascii() or all(ord(ch) < 0x10000 for ch in word):
        return list(word)
    data = word.encode("utf-16-le", "surrogatepass")
    return [chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2)]


@lru_cache(maxsize=4096)
def _char_class(ch: str) -> tuple[bool, bool, bool, bool, bool]:
    """(isDigit, isLetter, isLowerCase, isUpperCase, isTitleCase) of one UTF-16 unit, as ``Character``."""
    category = unicodedata.category(ch)
    if category == "Cs":
        return False, False, False, False, False
    # str.islower / isupper of one character are Unicode's Lowercase / Uppercase properties
    # (the categories Ll / Lu plus Other_Lowercase / Other_Uppercase), as Java's since 7.
    return category == "Nd", category in _LETTERS, ch.islower(), ch.isupper(), category == "Lt"


def _to_lower(ch: str) -> str:
    """``Character.toLowerCase(char)``: the simple (one-to-one) lower-case mapping."""
    lower = ch.lower()
    return lower if len(lower) == 1 else lower[0]


def signature(word: str, loc: int) -> str:
    """The level-2 unknown-word signature of ``word`` at 0-based position ``loc``.

    ``UNK``, then the case class (``-ALLC``: first character upper or title case and no
    lower-case letter; ``-INIT``: a capitalized first word; ``-UC``: capitalized elsewhere;
    ``-LC``: lower-case letters, first character not capitalized), ``-DASH`` if it contains a
    hyphen, and ``-NUM`` (only digits) or ``-DIG`` (some digits), or else for words longer than
    3 characters their last character in lower case.

    >>> [signature(w, 1) for w in ("skateboarder", "Man", "double-decker", "3.30", "1950s", "tv")]
    ['UNK-LCr', 'UNK-UC', 'UNK-LC-DASHr', 'UNK-DIG', 'UNK-LC-DIG', 'UNK-LC']
    >>> signature("Frisbee", 0)
    'UNK-INITe'
    """
    units = _utf16_units(word)
    has_digit = has_non_digit = has_lower = False
    for ch in units:
        digit, letter, lower, _, title = _char_class(ch)
        if digit:
            has_digit = True
        else:
            has_non_digit = True
            if letter and (lower or title):
                has_lower = True
    parts = ["UNK"]
    if units and (_char_class(units[0])[3] or _char_class(units[0])[4]):
        if not has_lower:
            parts.append("-ALLC")
        elif loc == 0:
            parts.append("-INIT")
        else:
            parts.append("-UC")
    elif has_lower:
        parts.append("-LC")
    if "-" in word:
        parts.append("-DASH")
    if has_digit:
        parts.append("-DIG" if has_non_digit else "-NUM")
    elif len(units) > 3:
        parts.append(_to_lower(units[-1]))
    return "".join(parts)


class Lexicon:
    """Tag candidates and scores of tokens, from a :class:`~.grammar.Grammar`'s counts.

    Scores depend on the word (and for unknown words on its signature only), so they are
    computed once per distinct word and signature and cached.
    """

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        g = grammar
        self._word_ids = g.word_ids
        self._total = g.total
        self._unseen_total = g.unseen_total
        self._smooth_known = g.smooth_known
        self._smooth_unknown = g.smooth_unknown
        self._threshold = g.smooth_in_unknowns_threshold
        self._flexi = g.flexi_tag
        self._tag_count = g.tag_count
        self._unseen_tag_count = g.unseen_tag_count
        self._word_count = g.word_count
        self._sig_count = g.sig_count
        self._num_tags = g.num_tags
        self._tag_state = g.tag_state
        # seen (word, tag) pairs are sorted by word: rows of one word are a slice
        self._seen_start = np.searchsorted(g.seen_word, np.arange(g.num_words + 1)).astype(np.int64)
        self._seen_tag = g.seen_tag
        self._seen_count = g.seen_count
        # per signature, its count with every tag
        self._unseen: dict[int, npt.NDArray[np.float64]] = {}
        for s, t, c in zip(g.unseen_sig.tolist(), g.unseen_tag.tolist(), g.unseen_count.tolist(), strict=True):
            self._unseen.setdefault(s, np.zeros(self._num_tags))[t] = c
        self._open_tags = np.flatnonzero(self._unseen_tag_count > g.open_class_threshold).astype(np.int32)
        self._all_tags = np.arange(self._num_tags, dtype=np.int32)
        self._known_cache: dict[int, tuple[_Tags, _Scores, _Scores]] = {}
        self._unknown_cache: dict[int, tuple[_Tags, _Scores, _Scores]] = {}

    def word_id(self, word: str) -> int:
        """The word-index id of an (americanized) word, or -1 if it is not in the index."""
        return self._word_ids.get(word, -1)

    def is_known(self, wid: int) -> bool:
        """Whether the lexicon lists tags for the word (every training word, and ``UNK``)."""
        if wid < 0:
            return False
        return bool(self._seen_start[wid + 1] > self._seen_start[wid]) or wid == self.grammar.unknown_word

    def _seen_tag_counts(self, wid: int) -> npt.NDArray[np.float64]:
        """The word's count with every tag (0 where unseen)."""
        a, b = int(self._seen_start[wid]), int(self._seen_start[wid + 1])
        counts = np.zeros(self._num_tags, dtype=np.float64)
        counts[self._seen_tag[a:b]] = self._seen_count[a:b]
        return counts

    def _scores_seen(self, c_w: float, c_tw: npt.NDArray[np.float64]) -> _Scores:
        """Every tag's score for a word seen ``c_w`` times (``c_tw`` times with each tag)."""
        # element-wise IEEE double arithmetic in Java's order, so the same doubles as Java's
        p_tu = self._unseen_tag_count / self._unseen_total
        smoothed = (c_tw + self._smooth_known * p_tu) / (c_w + self._smooth_known)
        p_tw = np.where(c_tw > 0.0, c_tw / c_w, smoothed) if c_w > self._threshold else smoothed
        p_t = self._tag_count / self._total
        p_w = c_w / self._total
        return _log_scores((p_tw * p_w) / p_t)

    def _scores_unseen(self, c_ts: npt.NDArray[np.float64], c_s: float) -> _Scores:
        """Every tag's score for an unknown word whose signature is seen ``c_s`` times (``c_ts`` per tag)."""
        p_tu = self._unseen_tag_count / self._unseen_total
        p_ts = (c_ts + self._smooth_unknown * p_tu) / (c_s + self._smooth_unknown)
        p_t = self._tag_count / self._total
        p_w = 1.0 / self._total
        return _log_scores((p_ts * p_w) / p_t)

    def _tables(self, word: str, loc: int) -> tuple[_Tags, _Scores, _Scores]:
        """(candidate tags, their scores, every tag's score) of a word at a position (cached)."""
        wid = self._word_ids.get(word, -1)
        c_w = float(self._word_count[wid]) if wid >= 0 else 0.0
        if c_w > 0.0:
            cached = self._known_cache.get(wid)
            if cached is None:
                counts = self._seen_tag_counts(wid)
                every = self._scores_seen(c_w, counts)
                if self._flexi and c_w <= self._threshold:
                    tags = self._all_tags
                else:
                    a, b = int(self._seen_start[wid]), int(self._seen_start[wid + 1])
                    tags = np.sort(self._seen_tag[a:b]).astype(np.int32)
                cached = _finite(tags, every)
                self._known_cache[wid] = cached
            return cached
        sig = self._word_ids.get(signature(word, loc), -1)
        key = sig if sig >= 0 and self._sig_count[sig] > 0 else -1
        cached = self._unknown_cache.get(key)
        if cached is None:
            c_ts = self._unseen.get(key)
            c_s = float(self._sig_count[key]) if key >= 0 else 0.0
            every = self._scores_unseen(np.zeros(self._num_tags) if c_ts is None else c_ts, c_s)
            cached = _finite(self._open_tags, every)
            self._unknown_cache[key] = cached
        if wid >= 0 and self.is_known(wid):  # "UNK" itself: listed, but without counts
            return _finite(self._all_tags if self._flexi else self._open_tags, cached[2])
        return cached

    def candidates(self, word: str, loc: int) -> tuple[_Tags, _Scores]:
        """The tags an americanized token at position ``loc`` may take, and their float scores.

        Returns:
            Tag ids (into the tag index) and their scores (all finite), in tag-id order.
        """
        tags, scores, _ = self._tables(word, loc)
        return tags, scores

    def flood(self, word: str, loc: int) -> _Scores:
        """Every tag's score for the recovery parse: its score where finite, else :data:`FLOOD_SCORE`."""
        every = self._tables(word, loc)[2]
        return np.where(np.isfinite(every), every, FLOOD_SCORE).astype(np.float32)

    def score(self, word: str, loc: int, tag: int) -> float:
        """The float score of one (americanized word, tag) pair at ``loc`` (minus infinity if impossible)."""
        return float(self._tables(word, loc)[2][tag])


def _log_scores(p: npt.NDArray[np.float64]) -> _Scores:
    """``(float) log(p)`` per element, or minus infinity where the log is at most -100 (or ``p`` is 0).

    The log is the C library's (``math.log``, as Java's), one value at a time: vectorized logs
    may differ in the last bit.
    """
    out = []
    for x in p.tolist():
        s = math.log(x) if x > 0.0 else -math.inf
        out.append(s if s > _MIN_LOG else -math.inf)
    return np.array(out, dtype=np.float32)


def _finite(tags: _Tags, every: _Scores) -> tuple[_Tags, _Scores, _Scores]:
    chosen = tags[np.isfinite(every[tags])]
    return chosen, every[chosen], every
