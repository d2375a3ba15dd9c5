"""Compiled clipped n-gram matches for BLEU.

For each item, the candidate's n-grams (orders 1..n, each a 64-bit key of up to four 16-bit
word ids) go into a small hash table; every reference n-gram is looked up there and counted
per reference, so the maximum reference count is known for exactly the n-grams that can
match. The result is the official ``sum_g min(count_cand(g), max_ref count_ref(g))`` per order.

Needs numba and fewer than 65,536 distinct words; otherwise :func:`available` is False and
BLEU uses its vectorized path (same counts).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics import _numba
from capeval.metrics.ngrams import bounds

__all__ = ["available", "clipped_matches"]

#: Highest n-gram order a packed key holds.
MAX_ORDER = 64 // _numba.WORD_BITS


def available(n: int, n_vocab: int) -> bool:
    """Whether the compiled path can count orders ``1..n`` over a vocabulary of ``n_vocab`` words."""
    return _numba.HAVE_NUMBA and 1 <= n <= MAX_ORDER and n_vocab < _numba.MAX_WORDS


def clipped_matches(
    words: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], n_items: int, n_refs: npt.NDArray[np.int64], n: int
) -> npt.NDArray[np.int64]:
    """Clipped matches per item and order, ``(n_items, n)``.

    Args:
        words, lengths: Encoded sentences: the ``n_items`` candidates, then the references
            item by item (``n_refs[i]`` for item ``i``).
    """
    return np.asarray(_clipped(words, bounds(lengths), n_items, bounds(n_refs) + n_items, n), dtype=np.int64)


@_numba.jit
def _clipped(words: Any, starts: Any, n_items: int, ref_start: Any, n: int) -> Any:  # pragma: no cover - compiled
    out = np.zeros((n_items, n), dtype=np.int64)
    longest = 0
    for s in range(starts.shape[0] - 1):
        longest = max(longest, starts[s + 1] - starts[s])
    capacity = max(longest * n, 1)
    size = 16
    while size < 2 * capacity:
        size *= 2
    slot_gram = np.full(size, -1, dtype=np.int64)
    used = np.empty(capacity, dtype=np.int64)  # slots taken, to clear them after the item
    gram_key = np.empty(capacity, dtype=np.uint64)
    gram_order = np.empty(capacity, dtype=np.int64)
    cand_count = np.empty(capacity, dtype=np.int64)
    ref_count = np.empty(capacity, dtype=np.int64)
    max_ref = np.empty(capacity, dtype=np.int64)
    for item in range(n_items):
        # The candidate's distinct n-grams and their counts.
        a, length = starts[item], starts[item + 1] - starts[item]
        n_grams = 0
        for k in range(1, n + 1):
            for p in range(length - k + 1):
                key = _numba.pack_gram(words, a + p, k)
                slot = _numba.find_gram(key, k, slot_gram, gram_key, gram_order)
                gram = slot_gram[slot]
                if gram < 0:
                    gram = n_grams
                    n_grams += 1
                    slot_gram[slot], used[gram], gram_key[gram], gram_order[gram] = gram, slot, key, k
                    cand_count[gram] = 0
                    max_ref[gram] = 0
                cand_count[gram] += 1
        # Each reference: counts of the candidate's n-grams only, then the running maximum.
        for r in range(ref_start[item], ref_start[item + 1]):
            a, length = starts[r], starts[r + 1] - starts[r]
            for g in range(n_grams):
                ref_count[g] = 0
            for k in range(1, n + 1):
                for p in range(length - k + 1):
                    key = _numba.pack_gram(words, a + p, k)
                    gram = slot_gram[_numba.find_gram(key, k, slot_gram, gram_key, gram_order)]
                    if gram >= 0:
                        ref_count[gram] += 1
            for g in range(n_grams):
                max_ref[g] = max(max_ref[g], ref_count[g])
        for g in range(n_grams):
            out[item, gram_order[g] - 1] += min(cand_count[g], max_ref[g])
            slot_gram[used[g]] = -1
    return out
