"""The one n-gram counter the n-gram metrics share (BLEU, CIDEr, CIDEr-D, ROUGE-N).

Sentences are split with ``str.split()`` (as the official BLEU and CIDEr scorers do) and
words become integer ids in one compiled pass over the UTF-8 bytes; every n-gram of order
1..n then becomes an integer id, built one order at a time from the id of its (k-1)-gram
prefix and its last word. Per-sentence counts are found by sorting packed integer keys;
that part is numpy, nothing loops over n-grams in Python.

Ids are exact: words are compared by their bytes, n-grams are compressed through sorted
unique keys, never identified by a hash alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import chain, count
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics import _numba
from capeval.types import IntArray

__all__ = [
    "IntArray",
    "NgramTable",
    "bounds",
    "count_ngrams",
    "encode_words",
    "group_runs",
    "ngram_table",
    "ranks_within",
    "shared_encodings",
    "sort_with_positions",
]


#: Bits available in a signed 64-bit key.
_KEY_BITS = 63


def sort_with_positions(keys: IntArray) -> tuple[IntArray, IntArray]:
    """Sort non-negative ``keys`` and return ``(sorted_keys, order)``.

    When the key and the position fit together in 63 bits, the position rides in the low
    bits of one packed key and a plain (SIMD) sort does the work; otherwise a stable
    argsort is used. Ties keep input order in both cases.
    """
    n = keys.shape[0]
    if n == 0:
        return keys.copy(), np.zeros(0, dtype=np.int64)
    pos_bits = max(1, int(n - 1).bit_length())
    max_key = int(keys.max())
    if max_key.bit_length() + pos_bits <= _KEY_BITS:
        packed = np.sort((keys << pos_bits) | np.arange(n, dtype=np.int64))
        order = packed & ((1 << pos_bits) - 1)
        return packed >> pos_bits, order
    order = np.argsort(keys, kind="stable").astype(np.int64)
    return keys[order], order


def bounds(counts: IntArray) -> IntArray:
    """Where each group of size ``c`` starts, then the total: ``[2, 3] -> [0, 2, 5]``."""
    out = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def ranks_within(counts: IntArray) -> IntArray:
    """``0..c-1`` for each group of size ``c``, concatenated: ``[2, 3] -> [0, 1, 0, 1, 2]``."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    return np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


def group_runs(sorted_keys: IntArray) -> tuple[IntArray, IntArray]:
    """Start index of each run of equal values in a sorted array, and each run's length."""
    n = sorted_keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    is_start = np.empty(n, dtype=bool)
    is_start[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=is_start[1:])
    starts = np.flatnonzero(is_start).astype(np.int64)
    lengths = np.diff(np.append(starts, n))
    return starts, lengths


def _compress(keys: IntArray) -> tuple[IntArray, IntArray]:
    """Map keys to dense ids 0..G-1 in key order; return ``(ids, unique_keys)``."""
    sorted_keys, order = sort_with_positions(keys)
    starts, _ = group_runs(sorted_keys)
    is_start = np.zeros(keys.shape[0], dtype=np.int64)
    is_start[starts] = 1
    ids = np.empty(keys.shape[0], dtype=np.int64)
    ids[order] = np.cumsum(is_start) - 1
    return ids, sorted_keys[starts]


#: Joins sentences into one string for a single split; ``\x00`` is deleted by the PTB
#: tokenizer and never occurs in scored text, and its presence is checked anyway.
_SENTINEL = "\x00"
#: Boundary marker when the text does contain the sentinel; equal to no string.
_BOUNDARY = object()


#: Encodings kept by :func:`shared_encodings`: ``(sentences, sep, encoding)``.
_SHARED: ContextVar[list[tuple[list[str], str | None, Any]] | None] = ContextVar(
    "capeval_shared_encodings", default=None
)


@contextmanager
def shared_encodings() -> Iterator[None]:
    """Within the block, :func:`encode_words` of equal lists of sentences (and separators) runs once.

    Metrics that score the same tokenized text (BLEU and CIDEr-D in one run) then share one
    encoding: its arrays are the same objects for all, so callers never write to them. What is
    kept is released at the block's end.
    """
    token = _SHARED.set([])
    try:
        yield
    finally:
        _SHARED.reset(token)


def encode_words(sentences: Sequence[str], sep: str | None = None) -> tuple[IntArray, IntArray, tuple[str, ...]]:
    """Split sentences with ``str.split(sep)`` and map words to ids.

    ``sep=None`` splits on runs of whitespace (BLEU, CIDEr); ``sep=" "`` splits on single
    spaces and keeps empty strings as words (the official ROUGE-L).

    Returns:
        ``(word_ids, lengths, vocab)``: the ids of all words of all sentences in order, the
        number of words of each sentence, and the words in id order.
    """
    shared = _SHARED.get()
    if shared is None or not isinstance(sentences, list):
        return _encode_words(sentences, sep)
    for kept, kept_sep, encoding in shared:
        if kept_sep == sep and len(kept) == len(sentences) and kept == sentences:
            return encoding  # type: ignore[no-any-return]
    encoding = _encode_words(sentences, sep)
    shared.append((list(sentences), sep, encoding))
    return encoding


def _encode_words(sentences: Sequence[str], sep: str | None) -> tuple[IntArray, IntArray, tuple[str, ...]]:
    if not sentences:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), ()
    joined = f" {_SENTINEL} ".join(sentences)
    if joined.count(_SENTINEL) == len(sentences) - 1 and sep in (None, " "):
        encoded = _encode_bytes(joined, sep)
        if encoded is not None:
            return encoded
    flat: list[Any]
    if joined.count(_SENTINEL) == len(sentences) - 1:
        # One C-level split is several times faster than one split per sentence.
        marker: Any = _SENTINEL
        flat = joined.split(sep)
    else:  # the text itself contains the sentinel: mark boundaries with an object instead
        marker = _BOUNDARY
        flat = list(chain.from_iterable([*s.split(sep), marker] for s in sentences))[:-1]
    # Each word's id is first the position of its first occurrence (one dict pass), then
    # the rank of that position among all first occurrences.
    index: dict[Any, int] = {}
    first = np.fromiter(map(index.setdefault, flat, count()), dtype=np.int64, count=len(flat))
    is_word = first != index[marker] if marker in index else np.ones(first.shape[0], dtype=bool)
    boundaries = np.flatnonzero(~is_word)
    lengths = np.diff(np.concatenate(([-1], boundaries, [first.shape[0]]))) - 1
    first = first[is_word]
    is_first = np.zeros(len(flat), dtype=np.int64)
    is_first[first] = 1
    firsts = np.flatnonzero(is_first)
    rank = np.cumsum(is_first) - 1
    vocab = tuple(flat[i] for i in firsts.tolist())
    return rank[first], lengths.astype(np.int64), vocab


def _encode_bytes(joined: str, sep: str | None) -> tuple[IntArray, IntArray, tuple[str, ...]] | None:
    """:func:`encode_words` on the UTF-8 bytes in one compiled pass (None without numba)."""
    if not _numba.HAVE_NUMBA:
        return None  # pragma: no cover - exercised only without numba
    raw = joined.encode("utf-8")
    ids, word_start, word_len, lengths = _split_and_intern(np.frombuffer(raw, dtype=np.uint8), sep is None)
    vocab = tuple(raw[a : a + k].decode("utf-8") for a, k in zip(word_start.tolist(), word_len.tolist(), strict=True))
    return ids, lengths, vocab


#: Per byte: 1 if it separates words by itself, 2 if it may start a multi-byte white-space
#: character (see :func:`_space_width`), else 0; for ``str.split()`` and for ``str.split(" ")``.
_SPLIT_ANY_KIND = np.zeros(256, dtype=np.uint8)
_SPLIT_ANY_KIND[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = 1
_SPLIT_ANY_KIND[[0xC2, 0xE1, 0xE2, 0xE3]] = 2
_SPACE_KIND = np.zeros(256, dtype=np.uint8)
_SPACE_KIND[32] = 1
#: 64-bit FNV-1a hash of a word's bytes (offset basis and prime of the FNV specification).
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
#: Longest word whose bytes, packed into one integer, are its own key.
_PACKED_BYTES = 8


@_numba.helper
def _space_width(data: Any, i: int) -> int:  # pragma: no cover - compiled
    """Bytes of the non-ASCII white-space character starting at ``data[i]``, or 0.

    These are the non-ASCII characters ``str.split()`` splits at, in UTF-8: U+0085 and U+00A0
    (C2 85, C2 A0), U+1680 (E1 9A 80), U+2000..U+200A, U+2028, U+2029, U+202F (E2 80 xx),
    U+205F (E2 81 9F) and U+3000 (E3 80 80).
    """
    n = data.shape[0]
    b = data[i]
    b1 = data[i + 1] if i + 1 < n else 0
    b2 = data[i + 2] if i + 2 < n else 0
    if b == 0xC2:
        return 2 if b1 == 0x85 or b1 == 0xA0 else 0
    if b == 0xE1:
        return 3 if b1 == 0x9A and b2 == 0x80 else 0
    if b == 0xE2:
        if b1 == 0x80 and (0x80 <= b2 <= 0x8A or b2 == 0xA8 or b2 == 0xA9 or b2 == 0xAF):
            return 3
        return 3 if b1 == 0x81 and b2 == 0x9F else 0
    if b == 0xE3:
        return 3 if b1 == 0x80 and b2 == 0x80 else 0
    return 0


@_numba.jit
def _split_and_intern(data: Any, split_any: bool) -> Any:  # pragma: no cover - compiled
    """Split at white space (``split_any``) or at single spaces, sentences at the ``\\x00``
    sentinel word; word ids in order of first occurrence.

    Returns ``(ids, word_start, word_len, lengths)``: each word's id, the byte span of each id's
    first occurrence, and the number of words of each sentence.
    """
    n = data.shape[0]
    # Words of at least one byte plus a separator, or empty ones between single spaces. The
    # per-word arrays are sized for the worst case; only the pages written are ever touched.
    capacity = n // 2 + 2 if split_any else n + 2
    ids = np.empty(capacity, dtype=np.int64)
    lengths = np.empty(capacity, dtype=np.int64)
    word_key = np.empty(capacity, dtype=np.int64)
    word_start = np.empty(capacity, dtype=np.int64)
    word_len = np.empty(capacity, dtype=np.int64)
    state = np.zeros(5, dtype=np.int64)
    slots = np.full((1024, 3), -1, dtype=np.int64)
    while not _scan_words(data, split_any, slots, ids, lengths, word_key, word_start, word_len, state):
        # The table is half full: twice the slots, same words (a separate scan keeps the
        # arrays of the hot loop fixed, which numba compiles much better).
        size = 2 * slots.shape[0]
        slots = np.full((size, 3), -1, dtype=np.int64)
        for w in range(state[4]):
            s = _numba.hash_slot(np.uint64(word_key[w]), np.uint64(size - 1))
            while slots[s, 1] >= 0:
                s = (s + 1) & (size - 1)
            slots[s, 0], slots[s, 1], slots[s, 2] = word_key[w], w, word_len[w]
    n_ids, n_sents, in_sentence, n_vocab = state[1], state[2], state[3], state[4]
    lengths[n_sents] = in_sentence
    return ids[:n_ids].copy(), word_start[:n_vocab].copy(), word_len[:n_vocab].copy(), lengths[: n_sents + 1].copy()


@_numba.helper
def _scan_words(
    data: Any,
    split_any: bool,
    slots: Any,
    ids: Any,
    lengths: Any,
    word_key: Any,
    word_start: Any,
    word_len: Any,
    state: Any,
) -> bool:  # pragma: no cover - compiled
    """Intern the words from byte ``state[0]`` on; stop at the end (True) or once the table is
    half full (False). ``state``: byte position, words, sentences done, words in the current
    sentence, vocabulary size.

    A word of up to 8 bytes is its own key (its bytes packed into an integer; no text holds a
    NUL but the sentinel); a longer one is keyed by its FNV-1a hash and compared byte by byte.
    A slot holds the key, the word id and the word's length.
    """
    n = data.shape[0]
    kinds = _SPLIT_ANY_KIND if split_any else _SPACE_KIND
    i, n_ids, n_sents, in_sentence, n_vocab = state[0], state[1], state[2], state[3], state[4]
    mask = slots.shape[0] - 1
    done = False
    while True:
        if split_any:  # skip white space; with single spaces, empty words count
            while i < n:
                kind = kinds[data[i]]
                if kind == 0:
                    break
                width = 1 if kind == 1 else _space_width(data, i)
                if width == 0:
                    break
                i += width
            if i >= n:
                done = True
                break
        j = i
        packed = np.uint64(0)
        fnv = np.uint64(_FNV_OFFSET)
        while j < n:
            b = data[j]
            kind = kinds[b]
            if kind == 1 or (kind == 2 and _space_width(data, j) > 0):
                break
            if j - i < _PACKED_BYTES:
                packed |= np.uint64(b) << np.uint64(8 * (j - i))
            fnv = (fnv ^ np.uint64(b)) * np.uint64(_FNV_PRIME)
            j += 1
        length = j - i
        full = False
        if length == 1 and data[i] == 0:  # the sentinel between sentences
            lengths[n_sents] = in_sentence
            n_sents += 1
            in_sentence = 0
        else:
            key = np.int64(packed) if length <= _PACKED_BYTES else np.int64(fnv)
            slot = _numba.hash_slot(np.uint64(key), np.uint64(mask))
            word = -1
            while slots[slot, 1] >= 0:
                if slots[slot, 0] == key and slots[slot, 2] == length:
                    known = slots[slot, 1]
                    same = True
                    if length > _PACKED_BYTES:
                        first = word_start[known]
                        for t in range(length):
                            if data[first + t] != data[i + t]:
                                same = False
                                break
                    if same:
                        word = known
                        break
                slot = (slot + 1) & mask
            if word < 0:
                word = n_vocab
                word_key[word], word_start[word], word_len[word] = key, i, length
                slots[slot, 0], slots[slot, 1], slots[slot, 2] = key, word, length
                n_vocab += 1
                full = 2 * n_vocab > slots.shape[0]
            ids[n_ids] = word
            n_ids += 1
            in_sentence += 1
        if j >= n:
            done = True
            break
        i = j if split_any else j + 1  # a single-space separator is consumed here
        if full:
            break
    state[0], state[1], state[2], state[3], state[4] = i, n_ids, n_sents, in_sentence, n_vocab
    return done


@dataclass(frozen=True)
class NgramTable:
    """Per-sentence n-gram counts of a batch of tokenized sentences.

    Entries are sorted by ``(gram, sentence)``, so orders come one after the other; each
    ``(sentence, gram)`` pair appears once.
    Gram ids are global across orders (order ``k`` ids follow all order ``k-1`` ids).

    Attributes:
        n: Highest n-gram order.
        lengths: Number of words of each sentence.
        sentence: Sentence index of each entry.
        gram: Global n-gram id of each entry.
        count: Occurrences of the n-gram in the sentence.
        n_grams: Number of distinct n-gram ids.
        vocab: Words in id order.
        prefix: For each gram id, the id of its (k-1)-gram prefix (-1 for unigrams).
        last_word: For each gram id, the word id of its last word.
        offsets: Gram ids of order ``k`` are ``offsets[k-1] <= id < offsets[k]``.
    """

    n: int
    lengths: IntArray
    sentence: IntArray
    gram: IntArray
    count: IntArray
    n_grams: int
    vocab: tuple[str, ...]
    prefix: IntArray
    last_word: IntArray
    offsets: IntArray

    def orders_of(self, grams: IntArray) -> IntArray:
        """N-gram order (1..n) of each gram id."""
        orders = np.ones(grams.shape[0], dtype=np.int64)
        for bound in self.offsets[1:-1].tolist():  # a few comparisons beat a binary search per id
            orders += grams >= bound
        return orders

    @property
    def order(self) -> IntArray:
        """N-gram order (1..n) of each entry."""
        return self.orders_of(self.gram)

    @property
    def n_sentences(self) -> int:
        """Number of sentences in the batch."""
        return int(self.lengths.shape[0])

    def gram_words(self, gram_id: int) -> tuple[str, ...]:
        """The words of one n-gram id (for display and external lookups)."""
        words = []
        g = int(gram_id)
        while g >= 0:
            words.append(self.vocab[int(self.last_word[g])])
            g = int(self.prefix[g])
        return tuple(reversed(words))


def count_ngrams(sentences: Sequence[str], n: int = 4) -> NgramTable:
    """Count the n-grams (orders 1..n) of every sentence, split on whitespace.

    Example:
        >>> t = count_ngrams(["a b a", "b"], n=2)
        >>> sorted((int(s), t.gram_words(g), int(c)) for s, g, c in zip(t.sentence, t.gram, t.count))
        [(0, ('a',), 2), (0, ('a', 'b'), 1), (0, ('b',), 1), (0, ('b', 'a'), 1), (1, ('b',), 1)]
    """
    words, lengths, vocab = encode_words(sentences)
    return ngram_table(words, lengths, vocab, n)


def ngram_table(
    words: IntArray, lengths: IntArray, vocab: tuple[str, ...], n: int = 4, active: npt.NDArray[np.bool_] | None = None
) -> NgramTable:
    """Count the n-grams of encoded sentences (see :func:`encode_words`).

    Args:
        words: Word ids of all sentences, concatenated.
        lengths: Words per sentence.
        vocab: Words in id order.
        n: Highest order.
        active: Optional per-word flags; only n-grams made entirely of active words are
            counted (a caller that knows which words can matter skips the rest). Sentence
            lengths are unaffected.
    """
    if n < 1:
        raise ValueError(f"n-gram order must be >= 1, got {n}")
    n_words = len(vocab)
    n_tokens = words.shape[0]
    sent_of_token = np.repeat(np.arange(lengths.shape[0], dtype=np.int64), lengths)
    pos_in_sent = ranks_within(lengths)
    remaining = np.repeat(lengths, lengths) - pos_in_sent  # words from here to sentence end
    if active is not None:
        # Words from here to the next inactive word (or the sentence end, whichever is first).
        index = np.arange(n_tokens, dtype=np.int64)
        next_inactive = np.where(active, n_tokens, index)
        next_inactive = np.minimum.accumulate(next_inactive[::-1])[::-1]
        remaining = np.minimum(remaining, next_inactive - index)

    pair_parts, prefix_parts, last_parts = [], [], []
    offsets = [0]
    offset = 0
    id_at = np.zeros(n_tokens, dtype=np.int64)  # gram id (within order k-1) starting at each token
    prev_count = 0
    sent_bits = max(1, int(lengths.shape[0]).bit_length())
    for k in range(1, n + 1):
        positions = np.flatnonzero(remaining >= k)
        if k == 1:
            ids = words[positions]
            n_order = n_words
            prefix = np.full(n_words, -1, dtype=np.int64)
            last = np.arange(n_words, dtype=np.int64)
        else:
            # The k-gram starting at p is the (k-1)-gram at p plus the word at p+k-1.
            keys = id_at[positions] * n_words + words[positions + k - 1]
            ids, unique_keys = _compress(keys)
            n_order = unique_keys.shape[0]
            prefix = unique_keys // n_words + (offset - prev_count)
            last = unique_keys % n_words
        if int(n_order).bit_length() + sent_bits > _KEY_BITS:  # pragma: no cover - astronomically large input
            raise ValueError("corpus too large for one n-gram table; score it in shards")
        # Group equal (sentence, gram) pairs of this order with one sort of packed keys.
        pair_keys = np.sort((ids << sent_bits) | sent_of_token[positions])
        pair_parts.append(pair_keys + (offset << sent_bits))
        prefix_parts.append(prefix)
        last_parts.append(last)
        id_at[positions] = ids
        prev_count = n_order
        offset += n_order
        offsets.append(offset)

    all_pairs = np.concatenate(pair_parts)
    run_starts, run_lengths = group_runs(all_pairs)
    unique_pairs = all_pairs[run_starts]
    sentence = unique_pairs & ((1 << sent_bits) - 1)
    gram = unique_pairs >> sent_bits
    n_grams = offset
    return NgramTable(
        n=n,
        lengths=lengths,
        sentence=sentence,
        gram=gram,
        count=run_lengths,
        n_grams=n_grams,
        vocab=vocab,
        prefix=np.concatenate(prefix_parts),
        last_word=np.concatenate(last_parts),
        offsets=np.asarray(offsets, dtype=np.int64),
    )
