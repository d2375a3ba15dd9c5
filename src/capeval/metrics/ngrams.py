"""The one n-gram counter the n-gram metrics share (BLEU, CIDEr, CIDEr-D, ROUGE-N).

Sentences are split with ``str.split()`` (as the official BLEU and CIDEr scorers do),
words become integer ids, and every n-gram of order 1..n becomes an integer id, built one
order at a time from the id of its (k-1)-gram prefix and its last word. Per-sentence
counts are then found by sorting packed integer keys; everything is numpy, nothing loops
over n-grams in Python.

The tables are exact: ids are compressed through sorted unique keys, never hashed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, count
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "IntArray",
    "NgramTable",
    "count_ngrams",
    "encode_words",
    "group_runs",
    "ngram_table",
    "ranks_within",
    "sort_with_positions",
]

IntArray = npt.NDArray[np.int64]

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


def encode_words(sentences: Sequence[str], sep: str | None = None) -> tuple[IntArray, IntArray, tuple[str, ...]]:
    """Split sentences with ``str.split(sep)`` and map words to ids.

    ``sep=None`` splits on runs of whitespace (BLEU, CIDEr); ``sep=" "`` splits on single
    spaces and keeps empty strings as words (the official ROUGE-L).

    Returns:
        ``(word_ids, lengths, vocab)``: the ids of all words of all sentences in order, the
        number of words of each sentence, and the words in id order.
    """
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


#: Bytes ``str.split()`` treats as whitespace in ASCII text.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
#: Non-ASCII characters ``str.split()`` treats as white space.
_UNICODE_SPACE_BYTES = tuple(
    c.encode("utf-8") for c in "\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B)))
)
#: Odd multipliers mixing a token's packed bytes into one hash (any odd constants work).
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))
#: Bits of the hash used to group tokens; equal hashes are verified on the full bytes.
_HASH_BITS = 40
#: Longest token packed into two machine words; longer ones go through a dictionary.
_PACKED_BYTES = 16


def _encode_bytes(joined: str, sep: str | None) -> tuple[IntArray, IntArray, tuple[str, ...]] | None:
    """:func:`encode_words` on the UTF-8 bytes, without a Python string object per word.

    Each word's bytes (up to 16) are packed into two integers; words are grouped by a hash of
    them, and every group is checked to hold one byte string, so ids are exact. Returns None
    when a hash collision makes the check fail (the caller then uses the dictionary path).
    """
    raw = joined.encode("utf-8")
    data = np.frombuffer(raw + b"\0" * (_PACKED_BYTES + 8), dtype=np.uint8)
    n = len(raw)
    if sep is None:
        space = _ASCII_SPACE[data[:n]]
        if not joined.isascii():
            # str.split() also splits at non-ASCII white space (the no-break space in "1 1/2"):
            # mark the bytes of those characters' UTF-8 encodings as space too.
            lead = np.flatnonzero(data[:n] >= 0xC2)  # first bytes of multi-byte characters
            for pattern in _UNICODE_SPACE_BYTES:
                at = lead[data[lead] == pattern[0]]
                for offset in range(1, len(pattern)):
                    at = at[data[at + offset] == pattern[offset]]
                for offset in range(len(pattern)):
                    space[at + offset] = True
        edge = np.diff(np.concatenate(([True], space, [True])).astype(np.int8))
        starts = np.flatnonzero(edge == -1)
        ends = np.flatnonzero(edge == 1)
    elif sep == " ":
        cuts = np.flatnonzero(data[:n] == 32)
        starts = np.concatenate(([0], cuts + 1))
        ends = np.concatenate((cuts, [n]))
    else:
        return None
    length = (ends - starts).astype(np.int64)
    # Eight bytes starting at every offset, read as little-endian integers (byte i in bits 8i..8i+7).
    words8 = np.ndarray(shape=(n + _PACKED_BYTES,), dtype="<u8", buffer=data, strides=(1,))
    all_ones = np.uint64(0xFFFFFFFFFFFFFFFF)

    def low_bytes(count: IntArray) -> Any:
        count = np.clip(count, 0, 8).astype(np.uint64)
        return np.where(count >= 8, all_ones, (np.uint64(1) << (count * np.uint64(8))) - np.uint64(1))

    first = words8[starts] & low_bytes(length)
    second = words8[starts + 8] & low_bytes(length - 8)
    # Zero padding makes the packing unique (text has no NUL but the sentinel), except that the
    # empty word and the sentinel both pack to 0: give the empty word a second word of 1.
    second[length == 0] = 1
    short = length <= _PACKED_BYTES
    mixed = first * _MIX[0] ^ second * _MIX[1]
    hashed = (mixed >> np.uint64(64 - _HASH_BITS)).astype(np.int64)
    short_idx = np.flatnonzero(short)
    sorted_hash, order = sort_with_positions(hashed[short_idx])
    order = short_idx[order]
    run_starts, run_lengths = group_runs(sorted_hash)
    head = np.repeat(order[run_starts], run_lengths)
    if not (np.array_equal(first[order], first[head]) and np.array_equal(second[order], second[head])):
        return None  # two different words share a hash
    ids = np.empty(length.shape[0], dtype=np.int64)
    ids[order] = np.repeat(np.arange(run_starts.shape[0], dtype=np.int64), run_lengths)
    vocab = [raw[s:e].decode("utf-8") for s, e in zip(starts[order[run_starts]].tolist(),
                                                       ends[order[run_starts]].tolist(), strict=True)]
    long_idx = np.flatnonzero(~short)
    if long_idx.shape[0]:
        index: dict[str, int] = {}
        long_words = [raw[s:e].decode("utf-8") for s, e in zip(starts[long_idx].tolist(), ends[long_idx].tolist(),
                                                                 strict=True)]
        first_seen = np.fromiter(map(index.setdefault, long_words, count()), dtype=np.int64, count=len(long_words))
        is_first = np.zeros(len(long_words), dtype=np.int64)
        is_first[first_seen] = 1
        ids[long_idx] = len(vocab) + (np.cumsum(is_first) - 1)[first_seen]
        vocab.extend(index)  # dict order is first-occurrence order, as the ranks above
    sentinel = _SENTINEL.encode("ascii")
    is_sentinel = (length == 1) & (first == np.uint64(sentinel[0]))
    boundaries = np.flatnonzero(is_sentinel)
    lengths = np.diff(np.concatenate(([-1], boundaries, [length.shape[0]]))) - 1
    if boundaries.shape[0]:
        # The sentinel's own id is dropped from the vocabulary by renumbering the ids above it.
        sentinel_id = int(ids[boundaries[0]])
        keep = ~is_sentinel
        ids = ids[keep]
        ids -= ids > sentinel_id
        del vocab[sentinel_id]
    return ids, lengths.astype(np.int64), tuple(vocab)


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
