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
        order: N-gram order (1..n) of each entry.
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
    order: IntArray
    count: IntArray
    n_grams: int
    vocab: tuple[str, ...]
    prefix: IntArray
    last_word: IntArray
    offsets: IntArray

    def orders_of(self, grams: IntArray) -> IntArray:
        """N-gram order (1..n) of each gram id."""
        return np.searchsorted(self.offsets, grams, side="right").astype(np.int64)

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
        >>> [(int(s), t.gram_words(g), int(c)) for s, g, c in zip(t.sentence, t.gram, t.count)]
        [(0, ('a',), 2), (0, ('b',), 1), (1, ('b',), 1), (0, ('a', 'b'), 1), (0, ('b', 'a'), 1)]
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
    # Unique pairs are sorted by gram id, and each order owns one contiguous id range.
    bounds = np.searchsorted(gram, np.asarray(offsets, dtype=np.int64))
    order = np.repeat(np.arange(1, n + 1, dtype=np.int64), np.diff(bounds))
    return NgramTable(
        n=n,
        lengths=lengths,
        sentence=sentence,
        gram=gram,
        order=order,
        count=run_lengths,
        n_grams=n_grams,
        vocab=vocab,
        prefix=np.concatenate(prefix_parts),
        last_word=np.concatenate(last_parts),
        offsets=np.asarray(offsets, dtype=np.int64),
    )
