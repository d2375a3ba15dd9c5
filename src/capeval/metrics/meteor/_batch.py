"""Normalize and encode many METEOR segments at once.

Most COCO segments are plain ASCII letters, digits and spaces, which METEOR's ``-norm``
normalizer leaves unchanged (only lower-casing and the split remain). Those are split,
lower-cased and looked up in a compiled pass over the joined text's bytes (a
:class:`WordIndex`); the others go through
:func:`~capeval.metrics.meteor._normalize.normalize_tokens` one by one. Both give exactly
``normalize_tokens`` of every segment.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics._numba import jit
from capeval.metrics.meteor._normalize import normalize_tokens

__all__ = ["WordIndex", "segment_tokens"]

#: Bytes of a segment that needs no normalization: ASCII letters, digits and the space.
_PLAIN = np.zeros(256, dtype=np.bool_)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n":
    _PLAIN[_c] = True
#: Segments of ASCII letters, digits, spaces, hyphens and apostrophes, which normalize token by
#: token: only the hyphen and apostrophe rules can apply, and their matches stay inside a token
#: (a hyphen rule's context is never a blank), except that one apostrophe rule's match may take
#: the blank after a token ending in an apostrophe that the same rule needs before a token
#: starting with one (those segments, ``_APOS_ACROSS``, are normalized whole). ``DOTMULTI`` is
#: rewritten in the whole text, so segments holding it are normalized whole too.
_TOKENWISE = re.compile(r"[A-Za-z0-9 '\-]*")
_APOS_ACROSS = re.compile(r"'(?![A-Za-z0-9])|(?<![^ ])'(?![A-Za-z])")
_NEWLINE = 10
_SPACE = 32
_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211


@jit
def _byte(buf: Any, k: int, lower: bool) -> int:
    c = int(buf[k])
    if lower and 65 <= c <= 90:
        c += 32
    return c


@jit
def _word_hash(buf: Any, a: int, b: int, lower: bool) -> Any:
    h = np.uint64(_FNV_OFFSET)
    for k in range(a, b):
        h = (h ^ np.uint64(_byte(buf, k, lower))) * np.uint64(_FNV_PRIME)
    return h


@jit
def _find_slot(
    buf: Any, a: int, b: int, h: np.uint64, lower: bool, slots: Any, w_start: Any, w_len: Any, w_hash: Any, pool: Any
) -> Any:
    """Slot of the word ``buf[a:b]`` in the open-addressing table, or the empty slot where it belongs."""
    mask = slots.shape[0] - 1
    s = int(h >> np.uint64(32)) & mask
    length = b - a
    while True:
        w = slots[s]
        if w < 0:
            return s
        if w_hash[w] == h and w_len[w] == length:
            start = w_start[w]
            same = True
            for k in range(length):
                if pool[start + k] != _byte(buf, a + k, lower):
                    same = False
                    break
            if same:
                return s
        s = (s + 1) & mask


@jit
def _intern(
    buf: Any,
    starts: Any,
    ends: Any,
    given: Any,
    lower: bool,
    slots: Any,
    w_start: Any,
    w_len: Any,
    w_hash: Any,
    pool: Any,
    state: Any,
) -> Any:
    """Ids of the words ``buf[starts[t]:ends[t]]`` (lower-cased ASCII when ``lower``).

    A word not in the table gets the id ``given[t]`` when that is >= 0 (replacing the id of
    an equal word, as a dict assignment would), else the next free id ``state[0]``. The
    tables grow as needed and are returned with the ids; ``state[1]`` is the pool's fill.
    """
    n = starts.shape[0]
    out = np.empty(n, dtype=np.int64)
    for t in range(n):
        a = starts[t]
        b = ends[t]
        h = _word_hash(buf, a, b, lower)
        s = _find_slot(buf, a, b, h, lower, slots, w_start, w_len, w_hash, pool)
        w = slots[s]
        if w >= 0 and given[t] < 0:
            out[t] = w
            continue
        w = given[t] if given[t] >= 0 else state[0]
        if w >= state[0]:
            state[0] = w + 1
        if w >= w_start.shape[0]:
            size = max(2 * w_start.shape[0], w + 1)
            bigger_start = np.empty(size, dtype=np.int64)
            bigger_len = np.empty(size, dtype=np.int64)
            bigger_hash = np.empty(size, dtype=np.uint64)
            bigger_start[: w_start.shape[0]] = w_start
            bigger_len[: w_len.shape[0]] = w_len
            bigger_hash[: w_hash.shape[0]] = w_hash
            w_start = bigger_start
            w_len = bigger_len
            w_hash = bigger_hash
        length = b - a
        if state[1] + length > pool.shape[0]:
            bigger_pool = np.empty(max(2 * pool.shape[0], state[1] + length), dtype=np.uint8)
            bigger_pool[: state[1]] = pool[: state[1]]
            pool = bigger_pool
        for k in range(length):
            pool[state[1] + k] = _byte(buf, a + k, lower)
        w_start[w] = state[1]
        w_len[w] = length
        w_hash[w] = h
        state[1] += length
        slots[s] = w
        out[t] = w
        if 2 * state[0] > slots.shape[0]:  # rehash into a table twice as large
            bigger_slots = np.full(2 * slots.shape[0], -1, dtype=np.int64)
            mask = bigger_slots.shape[0] - 1
            for s_old in range(slots.shape[0]):
                v = slots[s_old]
                if v >= 0:
                    s_new = int(w_hash[v] >> np.uint64(32)) & mask
                    while bigger_slots[s_new] >= 0:
                        s_new = (s_new + 1) & mask
                    bigger_slots[s_new] = v
            slots = bigger_slots
    return out, slots, w_start, w_len, w_hash, pool


@jit
def _line_words(buf: Any, n_lines: int, plain: Any) -> Any:
    """Words of the plain lines of ``buf`` (lines split at ``\\n``, words at spaces).

    Returns:
        ``(counts, special, starts, ends)``: words per line (0 for a special line), whether a
        line holds a byte outside ``plain``, and the byte spans of the plain lines' words.
    """
    counts = np.zeros(n_lines, dtype=np.int64)
    special = np.zeros(n_lines, dtype=np.bool_)
    n = buf.shape[0]
    line = 0
    a = 0
    total = 0
    for k in range(n + 1):
        if k < n and buf[k] != _NEWLINE:
            continue
        words = 0
        prev_blank = True
        for i in range(a, k):
            c = buf[i]
            if not plain[c]:
                special[line] = True
                break
            blank = c == _SPACE
            if not blank and prev_blank:
                words += 1
            prev_blank = blank
        if not special[line]:
            counts[line] = words
            total += words
        line += 1
        a = k + 1
    starts = np.empty(total, dtype=np.int64)
    ends = np.empty(total, dtype=np.int64)
    line = 0
    a = 0
    t = 0
    for k in range(n + 1):
        if k < n and buf[k] != _NEWLINE:
            continue
        if not special[line]:
            i = a
            while i < k:
                while i < k and buf[i] == _SPACE:
                    i += 1
                if i == k:
                    break
                starts[t] = i
                while i < k and buf[i] != _SPACE:
                    i += 1
                ends[t] = i
                t += 1
        line += 1
        a = k + 1
    return counts, special, starts, ends


class WordIndex:
    """Word -> id for METEOR's aligner: a compiled hash table over the words' UTF-8 bytes.

    Args:
        words: Words with given ids: ``ids``, or ``1 .. len(words)`` (a repeated word keeps
            its last id, as in a dict); other words get the following ids as they first appear.
        ids: Their ids (positive).
    """

    def __init__(self, words: Sequence[str], ids: Sequence[int] | None = None) -> None:
        # the compiled lookup releases the GIL and may grow the tables: one caller at a time
        self._lock = threading.Lock()
        self._slots = np.full(1 << 10, -1, dtype=np.int64)
        self._start = np.zeros(1 << 10, dtype=np.int64)
        self._len = np.zeros(1 << 10, dtype=np.int64)
        self._hash = np.zeros(1 << 10, dtype=np.uint64)
        self._pool = np.zeros(1 << 12, dtype=np.uint8)
        given = (
            np.arange(1, len(words) + 1, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64).reshape(-1)
        )
        if given.shape[0] != len(words) or (given.size and int(given.min()) < 1):
            raise ValueError("WordIndex: one positive id per word")
        #: First id given to a new word (one more than the largest given id).
        self.n_given = int(given.max()) + 1 if given.size else 1
        #: ``[next free id, bytes used in the pool]``
        self._state = np.array([self.n_given, 0], dtype=np.int64)
        if words:
            buf, starts, ends = _spans_of(words)
            self._intern(buf, starts, ends, given, lower=False)

    @classmethod
    def of_lines(cls, text: str) -> WordIndex:
        """The words of ``text``, one per line, with the ids ``1 ..`` in line order (as
        ``WordIndex(text.split("\\n"))``, without a list of the words)."""
        index = cls([])
        buf, starts, ends = _line_spans(text.encode("utf-8"))
        index.n_given = ends.shape[0] + 1
        index._state[0] = index.n_given
        index._intern(buf, starts, ends, np.arange(1, index.n_given, dtype=np.int64), lower=False)
        return index

    def __len__(self) -> int:
        """One more than the largest id (ids start at 1)."""
        return int(self._state[0])

    def _intern(self, buf: Any, starts: Any, ends: Any, given: Any, *, lower: bool) -> npt.NDArray[np.int64]:
        with self._lock:
            ids, self._slots, self._start, self._len, self._hash, self._pool = _intern(
                buf,
                starts,
                ends,
                given,
                lower,
                self._slots,
                self._start,
                self._len,
                self._hash,
                self._pool,
                self._state,
            )
        return np.asarray(ids)

    def ids_of(self, words: Sequence[str]) -> npt.NDArray[np.int64]:
        """Ids of ``words`` (new words are registered)."""
        if not words:
            return np.zeros(0, dtype=np.int64)
        buf, starts, ends = _spans_of(words)
        return self._intern(buf, starts, ends, np.full(len(words), -1, dtype=np.int64), lower=False)

    def spans_ids(self, buf: Any, starts: Any, ends: Any) -> npt.NDArray[np.int64]:
        """Ids of the ASCII-lower-cased words ``buf[starts[t]:ends[t]]`` (new words are registered)."""
        return self._intern(buf, starts, ends, np.full(starts.shape[0], -1, dtype=np.int64), lower=True)

    def words(self, first: int, stop: int) -> list[str]:
        """The words of ids ``first .. stop - 1``."""
        with self._lock:
            pool = self._pool
        return [
            pool[s : s + n].tobytes().decode("utf-8")
            for s, n in zip(self._start[first:stop].tolist(), self._len[first:stop].tolist(), strict=True)
        ]


def _line_spans(encoded: bytes) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``encoded`` as bytes, and the byte span of each of its lines (split at ``\\n``)."""
    buf = np.frombuffer(encoded, dtype=np.uint8)
    ends = np.append(np.flatnonzero(buf == _NEWLINE), len(encoded))
    return buf, np.append(0, ends[:-1] + 1), ends


def _spans_of(words: Sequence[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The UTF-8 bytes of ``words`` joined by newlines, and each word's byte span."""
    joined = "\n".join(words)
    encoded = joined.encode("utf-8")
    buf = np.frombuffer(encoded, dtype=np.uint8)
    if len(encoded) == len(joined):  # ASCII: one byte per character
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    elif joined.count("\n") == len(words) - 1:  # no word holds a line break: the breaks end the words
        return _line_spans(encoded)
    else:
        lengths = np.fromiter((len(w.encode("utf-8")) for w in words), dtype=np.int64, count=len(words))
    ends = np.cumsum(lengths + 1) - 1
    return buf, ends - lengths, ends


def segment_tokens(
    texts: Sequence[str], prefixes: dict[str, bool], index: WordIndex, clean: Callable[[int, str], str] | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Word ids of the normalized words of every segment.

    Args:
        texts: Segments without line breaks (as the jar receives them: trimmed, unless ``clean``).
        prefixes: Non-breaking prefixes (see ``normalize_tokens``).
        index: Word ids (new words are registered).
        clean: ``clean(i, text)`` is segment ``i`` as the jar receives it, when ``texts`` are
            not yet so; it can only change blanks, so it is applied to the segments that need
            normalizing only (the words of the others do not depend on it).

    Returns:
        ``(counts, ids)``: words per segment, and the ids of all words, segment after segment.
    """
    n = len(texts)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    joined = "\n".join(texts)
    if joined.count("\n") != n - 1:
        raise ValueError("METEOR segments must not contain line breaks")
    buf = np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
    counts, special, starts, ends = _line_words(buf, n, _PLAIN)
    if "DOTMULTI" in joined:
        # The jar's tokenizer turns the text "DOTMULTI" into "." (it marks runs of dots with it):
        # segments holding it are normalized whole, like other special ones.
        dotmulti = np.fromiter(("DOTMULTI" in text for text in texts), dtype=np.bool_, count=n) & ~special
        if dotmulti.any():
            keep = ~np.repeat(dotmulti, np.where(special, 0, counts))  # their words leave the plain spans
            starts, ends, special = starts[keep], ends[keep], special | dotmulti
    plain_ids = index.spans_ids(buf, starts, ends)
    special_idx = np.flatnonzero(special).tolist()
    if not special_idx:
        return counts, plain_ids
    special_words: list[str] = []
    token_words: dict[str, list[str]] = {}
    for i in special_idx:
        text = texts[i] if clean is None else clean(i, texts[i])
        if _TOKENWISE.fullmatch(text) and not _APOS_ACROSS.search(text) and "DOTMULTI" not in text:
            # normalized token by token (see _TOKENWISE), each distinct token once
            words = []
            for token in text.split():
                got = token_words.get(token)
                if got is None:
                    got = token_words[token] = normalize_tokens(token, prefixes)
                words.extend(got)
        else:
            words = normalize_tokens(text, prefixes)
        counts[i] = len(words)
        special_words.extend(words)
    out = np.empty(int(counts.sum()), dtype=np.int64)
    in_special = np.repeat(special, counts)
    out[~in_special] = plain_ids
    out[in_special] = index.ids_of(special_words)
    return counts, out
