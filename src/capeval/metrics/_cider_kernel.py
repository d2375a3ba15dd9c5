"""Compiled CIDEr-D / CIDEr scoring against frozen document frequencies.

Reward scoring in reinforcement learning calls CIDEr-D thousands of times on small batches
(a few images, a few sampled captions each) against document frequencies frozen from a
training corpus. The vectorized path of :mod:`capeval.metrics.cider` pays a fixed cost per
numpy call there; this module does the whole batch in one compiled call instead:

* every word is an integer below ``2 ** 16`` (the frozen vocabulary, then the batch's
  unseen words), so an n-gram of up to four words is exactly one 64-bit key;
* each sentence's n-grams of each order are sorted and counted in place;
* document frequencies come from one open-addressing hash table per order, built once per
  :class:`~capeval.metrics.cider.DocumentFrequencies` (n-grams with an unseen word have
  document frequency 0 without a lookup);
* each candidate/reference comparison is a merge of two sorted n-gram lists.

The arithmetic is that of the official scorer (``pycocoevalcap`` ``cider_scorer.py``): term
frequency times ``log(N) - log(max(1, df))``, clipped (CIDEr-D) or plain dot products
divided by the product of the norms when both are non-zero, the Gaussian penalty on the
difference of the bigram counts, the mean over orders of the sums over references, divided
by the number of references and scaled. Sums run in n-gram key order rather than the
official dictionary order, so values can differ from the vectorized path in the last bit.

Needs numba; without it :func:`available` is False and callers use the vectorized path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics import _numba

__all__ = ["FrozenTables", "available", "build_tables", "encode_frozen", "score_batch", "score_frozen"]

WORD_BITS = _numba.WORD_BITS
#: Words (frozen vocabulary plus a batch's unseen words) that fit in a packed key.
MAX_WORDS = _numba.MAX_WORDS
#: Highest n-gram order a packed key holds.
MAX_ORDER = 64 // WORD_BITS
#: Largest share of occupied slots in a hash table before it doubles (linear probing).
_MAX_LOAD = 0.7
#: Sentences scored in one compiled call; larger batches go in runs of whole items, which
#: bounds the working memory (about 100 bytes per n-gram occurrence).
CHUNK_SENTENCES = 4096

_jit = _numba.jit
_slot = _numba.hash_slot


def available(n: int, n_vocab: int) -> bool:
    """Whether the compiled path can score orders ``1..n`` over a vocabulary of ``n_vocab``."""
    return _numba.HAVE_NUMBA and 1 <= n <= MAX_ORDER and n_vocab < MAX_WORDS


@dataclass(frozen=True, eq=False)
class FrozenTables:
    """Hash tables of one set of frozen document frequencies, in the compiled path's layout.

    Attributes:
        n: Highest order held.
        n_vocab: Size of the frozen vocabulary (word ids ``0..n_vocab-1``).
        word_df: Document frequency of each word.
        keys, values: All orders' hash tables, concatenated: packed n-gram key and document
            frequency per slot (frequency 0 marks an empty slot).
        table_start: Order ``k``'s table is ``keys[table_start[k]:table_start[k + 1]]``
            (orders 2..n; a power of two long).
    """

    n: int
    n_vocab: int
    word_df: npt.NDArray[np.float64]
    keys: npt.NDArray[np.uint64]
    values: npt.NDArray[np.float64]
    table_start: npt.NDArray[np.int64]


def build_tables(prefix: npt.NDArray[np.int64], last_word: npt.NDArray[np.int64], offsets: npt.NDArray[np.int64],
                 df: npt.NDArray[np.float64], n: int, n_vocab: int) -> FrozenTables:
    """Pack a frozen n-gram index (prefix id + last word per gram id) into hash tables."""
    packed = np.zeros(prefix.shape[0], dtype=np.uint64)
    packed[: offsets[1]] = last_word[: offsets[1]].astype(np.uint64)
    sizes = [0, 0]
    for k in range(2, n + 1):
        lo, hi = int(offsets[k - 1]), int(offsets[k])
        packed[lo:hi] = (packed[prefix[lo:hi]] << np.uint64(WORD_BITS)) | last_word[lo:hi].astype(np.uint64)
        size = 8
        while size * _MAX_LOAD < hi - lo:
            size *= 2
        sizes.append(size)
    table_start = np.zeros(n + 2, dtype=np.int64)
    table_start[3:] = np.cumsum(sizes[2:])
    keys = np.zeros(int(table_start[-1]), dtype=np.uint64)
    values = np.zeros(int(table_start[-1]), dtype=np.float64)
    for k in range(2, n + 1):
        lo, hi = int(offsets[k - 1]), int(offsets[k])
        a, b = int(table_start[k]), int(table_start[k + 1])
        _insert_all(keys[a:b], values[a:b], packed[lo:hi], df[lo:hi])
    word_df = np.ascontiguousarray(df[: offsets[1]], dtype=np.float64)
    return FrozenTables(n, n_vocab, word_df, keys, values, table_start)


@_jit
def _insert_all(keys: Any, values: Any, new_keys: Any, new_values: Any) -> None:  # pragma: no cover - compiled
    mask = np.uint64(keys.shape[0] - 1)
    for i in range(new_keys.shape[0]):
        h = _slot(new_keys[i], mask)
        while values[h] != 0.0:
            h = (h + 1) & np.int64(mask)
        keys[h] = new_keys[i]
        values[h] = new_values[i]


def encode_frozen(sentences: Sequence[str], word_index: dict[str, int],
                  n_vocab: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Word ids of all sentences (``str.split()``) and each sentence's first-word offset.

    Words of the frozen vocabulary keep their ids; unseen words get ids from ``n_vocab`` up,
    one per distinct word. Returns None when the ids do not fit in a packed key.
    """
    parts = [s.split() for s in sentences]
    starts = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)), out=starts[1:])
    flat = list(chain.from_iterable(parts))
    ids = np.fromiter(map(word_index.get, flat, repeat(-1)), dtype=np.int64, count=len(flat))
    unseen = np.flatnonzero(ids < 0)
    if unseen.shape[0]:
        local: dict[str, int] = {}
        ids[unseen] = [n_vocab + local.setdefault(flat[j], len(local)) for j in unseen.tolist()]
        if n_vocab + len(local) > MAX_WORDS:
            return None
    return ids, starts


def score_batch(candidates: Sequence[str], cand_item: npt.NDArray[np.int64], references: Sequence[Sequence[str]],
                word_index: dict[str, int], tables: FrozenTables, n_documents: int, *, n: int, sigma: float | None,
                clip: bool, scale: float) -> npt.NDArray[np.float64] | None:
    """Score tokenized candidates against the references of their items (``cand_item``).

    Returns None when the batch's words do not fit in packed keys (the caller then uses the
    vectorized path). Arguments as in :func:`score_frozen`; inputs are already validated.
    """
    n_refs = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    n_cands = len(candidates)
    if n_cands + int(n_refs.sum()) <= CHUNK_SENTENCES:
        chunks = [(0, len(references))]
    else:
        # Runs of whole items, each with about CHUNK_SENTENCES sentences.
        per_item = n_refs + np.bincount(cand_item, minlength=len(references))
        cut = np.cumsum(per_item) // CHUNK_SENTENCES
        bounds = np.flatnonzero(np.diff(cut)) + 1
        edges = [0, *bounds.tolist(), len(references)]
        chunks = [(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    scores = np.empty(n_cands, dtype=np.float64)
    for a, b in chunks:
        if len(chunks) == 1:
            picked, chunk_cands = np.arange(n_cands), candidates
        else:
            picked = np.flatnonzero((cand_item >= a) & (cand_item < b))
            chunk_cands = [candidates[i] for i in picked.tolist()]
        refs = [ref for item_refs in references[a:b] for ref in item_refs]
        encoded = encode_frozen([*chunk_cands, *refs], word_index, tables.n_vocab)
        if encoded is None:
            return None
        item_start = np.zeros(b - a + 1, dtype=np.int64)
        np.cumsum(n_refs[a:b], out=item_start[1:])
        scores[picked] = score_frozen(tables, *encoded, len(chunk_cands), cand_item[picked] - a,
                                      item_start + len(chunk_cands), n_documents, n, sigma, clip, scale)
    return scores


def score_frozen(tables: FrozenTables, ids: npt.NDArray[np.int64], starts: npt.NDArray[np.int64], n_cands: int,
                 cand_item: npt.NDArray[np.int64], item_start: npt.NDArray[np.int64], n_documents: int, n: int,
                 sigma: float | None, clip: bool, scale: float) -> npt.NDArray[np.float64]:
    """Score candidates ``0..n_cands-1`` against the references of their items.

    Args:
        tables: The frozen document frequencies (:func:`build_tables`).
        ids, starts: Encoded sentences (:func:`encode_frozen`): candidates first, then the
            references item by item.
        cand_item: Item of each candidate.
        item_start: References of item ``i`` are sentences ``item_start[i]..item_start[i+1]-1``.
        n_documents: Number of documents of the frozen corpus (the idf numerator).
        sigma: Width of the length penalty, or None for none.
        clip: Clip candidate counts at the reference counts (CIDEr-D).
        scale: Factor applied to every score.
    """
    return _score(ids, starts, n_cands, cand_item, item_start, tables.word_df, tables.keys, tables.values,
                  tables.table_start, tables.n_vocab, math.log(float(n_documents)), n,
                  -1.0 if sigma is None else float(sigma), clip, float(scale))


@_jit
def _score(ids: Any, starts: Any, n_cands: int, cand_item: Any, item_start: Any, word_df: Any, keys: Any,
           values: Any, table_start: Any, n_vocab: int, log_docs: float, n: int, sigma: float, clip: bool,
           scale: float) -> Any:  # pragma: no cover - compiled
    n_sents = starts.shape[0] - 1
    n_items = item_start.shape[0] - 1
    # 1. Intern every n-gram occurrence (sentence by sentence, order by order, left to right):
    #    a dense id per distinct (order, packed words) of the batch, through a small hash table.
    total = 0
    for s in range(n_sents):
        length = starts[s + 1] - starts[s]
        for k in range(1, n + 1):
            total += max(length - k + 1, 0)
    size = 16
    while size < 2 * total:
        size *= 2
    slot_gram = np.full(size, -1, dtype=np.int64)
    gram_key = np.empty(total, dtype=np.uint64)
    gram_order = np.empty(total, dtype=np.int64)
    occurrence = np.empty(total, dtype=np.int64)
    segment = np.zeros(n_sents * n + 1, dtype=np.int64)  # occurrences of (sentence, order)
    n_grams = 0
    o = 0
    for s in range(n_sents):
        a = starts[s]
        length = starts[s + 1] - a
        for k in range(1, n + 1):
            for p in range(length - k + 1):
                key = _numba.pack_gram(ids, a + p, k)
                slot = _numba.find_gram(key, k, slot_gram, gram_key, gram_order)
                gram = slot_gram[slot]
                if gram < 0:
                    gram = n_grams
                    n_grams += 1
                    slot_gram[slot], gram_key[gram], gram_order[gram] = gram, key, k
                occurrence[o] = gram
                o += 1
            segment[s * n + k] = o
    # 2. Inverse document frequency of each distinct n-gram (n-grams with an unseen word: df 0).
    idf = np.empty(n_grams, dtype=np.float64)
    word_mask = np.uint64(MAX_WORDS - 1)
    for g in range(n_grams):
        key = gram_key[g]
        k = gram_order[g]
        seen = True
        for w in range(k):
            if ((key >> np.uint64(WORD_BITS * w)) & word_mask) >= np.uint64(n_vocab):
                seen = False
        doc_freq = 0.0
        if seen:
            if k == 1:
                doc_freq = word_df[np.int64(key)]
            else:
                lo = table_start[k]
                table_mask = np.uint64(table_start[k + 1] - lo - 1)
                h = _slot(key, table_mask)
                while values[lo + h] != 0.0:
                    if keys[lo + h] == key:
                        doc_freq = values[lo + h]
                        break
                    h = (h + 1) & np.int64(table_mask)
        idf[g] = log_docs - math.log(max(1.0, doc_freq))
    # 3. Each sentence's vector per order: distinct n-grams in first-occurrence order (the
    #    official dictionary order) with weight tf * idf, and the vector's norm.
    counts = np.zeros(n_grams, dtype=np.int64)
    vec_gram = np.empty(total, dtype=np.int64)
    vec_weight = np.empty(total, dtype=np.float64)
    vec_start = np.zeros(n_sents * n + 1, dtype=np.int64)
    norm = np.zeros(n_sents * n, dtype=np.float64)
    m = 0
    for seg in range(n_sents * n):
        first = m
        for o in range(segment[seg], segment[seg + 1]):
            g = occurrence[o]
            if counts[g] == 0:
                vec_gram[m] = g
                m += 1
            counts[g] += 1
        sq = 0.0
        for e in range(first, m):
            g = vec_gram[e]
            weight = float(counts[g]) * idf[g]
            vec_weight[e] = weight
            sq += weight * weight
            counts[g] = 0
        vec_start[seg + 1] = m
        norm[seg] = math.sqrt(sq)
    # 4. Candidates grouped by item; each reference vector is spread over a dense array once
    #    and every candidate of its item reads it.
    per_item = np.zeros(n_items + 1, dtype=np.int64)
    for c in range(n_cands):
        per_item[cand_item[c] + 1] += 1
    for i in range(n_items):
        per_item[i + 1] += per_item[i]
    fill = per_item[:-1].copy()
    cands_by_item = np.empty(n_cands, dtype=np.int64)
    for c in range(n_cands):
        cands_by_item[fill[cand_item[c]]] = c
        fill[cand_item[c]] += 1
    dense = np.zeros(n_grams, dtype=np.float64)
    acc = np.zeros(n_cands * n, dtype=np.float64)
    for item in range(n_items):
        if per_item[item + 1] == per_item[item]:
            continue
        for r in range(item_start[item], item_start[item + 1]):
            for e in range(vec_start[r * n], vec_start[(r + 1) * n]):
                dense[vec_gram[e]] = vec_weight[e]
            bigrams_r = max(starts[r + 1] - starts[r] - 1, 0)
            for q in range(per_item[item], per_item[item + 1]):
                c = cands_by_item[q]
                penalty = 1.0
                if sigma > 0:
                    # The official "length" is the number of bigrams (len - 1, 0 for one word).
                    delta = float(max(starts[c + 1] - starts[c] - 1, 0) - bigrams_r)
                    penalty = math.e ** (-(delta * delta) / (2 * sigma * sigma))
                for k in range(n):
                    dot = 0.0
                    for e in range(vec_start[c * n + k], vec_start[c * n + k + 1]):
                        wr = dense[vec_gram[e]]
                        wc = vec_weight[e]
                        dot += (min(wc, wr) if clip else wc) * wr
                    if norm[c * n + k] != 0.0 and norm[r * n + k] != 0.0:
                        dot /= norm[c * n + k] * norm[r * n + k]
                    acc[c * n + k] += dot * penalty
            for e in range(vec_start[r * n], vec_start[(r + 1) * n]):
                dense[vec_gram[e]] = 0.0
    scores = np.empty(n_cands, dtype=np.float64)
    for c in range(n_cands):
        item = cand_item[c]
        total_score = 0.0
        for k in range(n):
            total_score += acc[c * n + k]
        scores[c] = total_score / n / (item_start[item + 1] - item_start[item]) * scale
    return scores
