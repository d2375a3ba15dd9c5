"""Compiled CIDEr-D / CIDEr: one call scores a whole batch of items.

Used for reward scoring in reinforcement learning (thousands of calls on small batches against
document frequencies frozen from a training corpus, where a vectorized numpy path pays a fixed
cost per call) and for the COCO evaluation itself (document frequencies of the evaluated
references):

* every word is an integer below ``2 ** 16`` (the vocabulary, then a batch's unseen words), so
  an n-gram of up to four words is exactly one 64-bit key;
* document frequencies live in a :class:`GramIndex` (an open-addressing hash table over all
  orders), built once per :class:`~capeval.metrics.cider.DocumentFrequencies` or counted over
  the evaluated references in one pass (:func:`reference_index`);
* the batch's n-gram occurrences are interned through a small hash table; each sentence's
  vector lists its distinct n-grams in first-occurrence order with weight tf * idf;
* each reference vector is spread over a dense array once, and every candidate of its item
  reads it.

The arithmetic and the order of every sum are those of the official scorer (``pycocoevalcap``
``cider_scorer.py``: dictionary order is first-occurrence order): term frequency times
``log(N) - log(max(1, df))``, clipped (CIDEr-D) or plain products, divided by the product of
the norms when both are non-zero, the Gaussian penalty on the difference of the bigram counts,
the mean over orders of the sums over references, divided by the number of references and
scaled. Values therefore match the official ones bit for bit on almost every item (the rest
differ in the last bit, from the logarithm's implementation).

Needs numba; without it :func:`available` is False and callers use the vectorized path.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics import _numba
from capeval.metrics.ngrams import bounds, encode_words, ranks_within

__all__ = [
    "GramIndex",
    "available",
    "build_tables",
    "encode_frozen",
    "frequency_table",
    "reference_index",
    "score_batch",
    "score_encoded",
    "score_with_reference_frequencies",
]

WORD_BITS = _numba.WORD_BITS
#: Words (frozen vocabulary plus a batch's unseen words) that fit in a packed key.
MAX_WORDS = _numba.MAX_WORDS
#: Highest n-gram order a packed key holds.
MAX_ORDER = 64 // WORD_BITS
#: Sentences scored in one compiled call; larger batches go in runs of whole items, which
#: bounds the working memory (about 100 bytes per n-gram occurrence).
CHUNK_SENTENCES = 4096
#: Most threads scoring runs of a large batch at once.
_MAX_THREADS = 4


def _available_cpus() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


_jit = _numba.jit


def available(n: int, n_vocab: int) -> bool:
    """Whether the compiled path can score orders ``1..n`` over a vocabulary of ``n_vocab``."""
    return _numba.HAVE_NUMBA and 1 <= n <= MAX_ORDER and n_vocab < MAX_WORDS


@dataclass(frozen=True, eq=False)
class GramIndex:
    """Document frequencies of n-grams, in the compiled path's layout.

    N-gram ``g`` (all orders together) is ``gram_key[g]`` (its word ids packed, ``WORD_BITS``
    each) of order ``gram_order[g]`` with document frequency ``gram_df[g]``; ``slot_gram`` is
    an open-addressing hash table of the ids (a power of two long, -1 for empty, at most
    half full; 32-bit ids, which halve the memory its lookups miss in), looked up with
    :func:`capeval.metrics._numba.find_gram`.

    Attributes:
        n: Highest order held.
        n_vocab: Words of the vocabulary the keys use (ids ``0..n_vocab-1``); n-grams with a
            word outside it have document frequency 0 without a lookup.
    """

    n: int
    n_vocab: int
    slot_gram: npt.NDArray[np.int32]
    gram_key: npt.NDArray[np.uint64]
    gram_order: npt.NDArray[np.int64]
    gram_df: npt.NDArray[np.float64]


def build_tables(
    prefix: npt.NDArray[np.int64],
    last_word: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    df: npt.NDArray[np.float64],
    n: int,
    n_vocab: int,
) -> GramIndex:
    """Index a frozen n-gram table (prefix id + last word per gram id, orders in ``offsets`` ranges)."""
    packed = np.zeros(prefix.shape[0], dtype=np.uint64)
    packed[: offsets[1]] = last_word[: offsets[1]].astype(np.uint64)
    for k in range(2, n + 1):
        lo, hi = int(offsets[k - 1]), int(offsets[k])
        packed[lo:hi] = (packed[prefix[lo:hi]] << np.uint64(WORD_BITS)) | last_word[lo:hi].astype(np.uint64)
    order = np.repeat(np.arange(1, n + 1, dtype=np.int64), np.diff(offsets[: n + 1]))
    n_grams = int(offsets[n])
    slot_gram = _index(packed, order, n_grams, _table_size(n_grams))
    return GramIndex(n, n_vocab, slot_gram, packed[:n_grams], order, np.ascontiguousarray(df[:n_grams], np.float64))


def _table_size(n_grams: int) -> int:
    """Slots for ``n_grams`` entries: a power of two, at most half full."""
    size = 16
    while size < 2 * n_grams:
        size *= 2
    return size


@_jit
def _index(gram_key: Any, gram_order: Any, n_grams: int, size: int) -> Any:  # pragma: no cover - compiled
    """A hash table of ``size`` slots holding n-grams ``0..n_grams-1``."""
    slot_gram = np.full(size, -1, dtype=np.int32)
    for g in range(n_grams):
        slot = _numba.find_gram(gram_key[g], gram_order[g], slot_gram, gram_key, gram_order)
        slot_gram[slot] = g
    return slot_gram


def reference_index(
    ids: npt.NDArray[np.int64], starts: npt.NDArray[np.int64], item_start: npt.NDArray[np.int64], n: int, n_vocab: int
) -> GramIndex:
    """Document frequencies of the references (item ``i``: sentences ``item_start[i]..item_start[i+1]-1``).

    A document is an item: an n-gram counts once per item whose references contain it.
    """
    return _reference_counts(ids, starts, item_start, n, n_vocab, keep_occurrences=False)[0]


def _occurrences(lengths: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.int64]:
    """N-gram occurrences of orders ``1..n`` in sentences of these lengths."""
    counts: npt.NDArray[np.int64] = np.maximum(lengths[:, None] - np.arange(n)[None, :], 0).sum(axis=1)
    return counts


def _reference_counts(
    ids: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    item_start: npt.NDArray[np.int64],
    n: int,
    n_vocab: int,
    *,
    keep_occurrences: bool = True,
) -> tuple[GramIndex, npt.NDArray[np.int32]]:
    """:func:`reference_index`, and the n-gram id of every occurrence in the references (sentence
    by sentence, order by order, left to right), which spares the scorer looking them up again
    (empty unless ``keep_occurrences``)."""
    lengths = np.diff(starts[item_start[0] : item_start[-1] + 1])
    capacity = int(_occurrences(lengths, n).sum()) + 1
    gram_key = np.empty(capacity, dtype=np.uint64)  # upper bounds: only the pages written are touched
    # narrow while counting (fewer cache misses), widened for the index
    gram_order = np.empty(capacity, dtype=np.int8)
    gram_df = np.empty(capacity, dtype=np.int32)
    last_item = np.empty(capacity, dtype=np.int32)
    occurrence_gram = np.empty(capacity - 1 if keep_occurrences else 0, dtype=np.int32)
    state = np.zeros(3, dtype=np.int64)  # next item, n-grams so far, occurrences so far
    slot_gram = np.full(1024, -1, dtype=np.int32)
    while not _count_references(
        ids, starts, item_start, n, slot_gram, gram_key, gram_order, gram_df, last_item, occurrence_gram, state
    ):
        # Too full for the next item: a larger table (a separate scan keeps the hot loop's
        # arrays fixed, which numba compiles much better).
        slot_gram = _index(gram_key, gram_order, int(state[1]), 2 * slot_gram.shape[0])
    n_grams = int(state[1])
    index = GramIndex(
        n,
        n_vocab,
        slot_gram,
        gram_key[:n_grams].copy(),
        gram_order[:n_grams].astype(np.int64),
        gram_df[:n_grams].astype(np.float64),
    )
    return index, occurrence_gram


def frequency_table(references: Sequence[Sequence[str]], n: int) -> tuple[Any, ...] | None:
    """Document frequencies of ``references`` in :class:`~capeval.metrics.cider.DocumentFrequencies`' layout.

    Returns ``(vocab, prefix, last_word, offsets, df, index)``: words in id order (first
    occurrence), then per order the n-gram ids sorted by (prefix id, last word) as the
    vectorized counter numbers them, and the :class:`GramIndex` of the same counts. None when
    the words or ``n`` do not fit in packed keys.
    """
    encoded = _encode([ref for refs in references for ref in refs], n)
    if encoded is None:
        return None
    ids, starts, vocab = encoded
    n_refs = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    index = reference_index(ids, starts, bounds(n_refs), n, len(vocab))
    offsets, prefix, last_word, df = [0], [], [], []
    previous = np.zeros(0, dtype=np.uint64)
    for k in range(1, n + 1):
        mine = np.flatnonzero(index.gram_order == k)
        order = np.argsort(index.gram_key[mine], kind="stable")
        keys = index.gram_key[mine][order]
        if k == 1:
            prefix.append(np.full(keys.shape[0], -1, dtype=np.int64))
        else:  # packed keys sort as (prefix key, last word), i.e. as (prefix id, last word)
            prefix.append(np.searchsorted(previous, keys >> np.uint64(WORD_BITS)).astype(np.int64) + offsets[k - 2])
        last_word.append((keys & np.uint64(MAX_WORDS - 1)).astype(np.int64))
        df.append(index.gram_df[mine][order])
        offsets.append(offsets[-1] + keys.shape[0])
        previous = keys
    return (
        vocab,
        np.concatenate(prefix),
        np.concatenate(last_word),
        np.asarray(offsets, dtype=np.int64),
        np.concatenate(df),
        index,
    )


@_jit
def _count_references(
    ids: Any,
    starts: Any,
    item_start: Any,
    n: int,
    slot_gram: Any,
    gram_key: Any,
    gram_order: Any,
    gram_df: Any,
    last_item: Any,
    occurrence_gram: Any,
    state: Any,
) -> bool:  # pragma: no cover - compiled
    """Count document frequencies from item ``state[0]`` on; False when the table needs to grow first.
    Each occurrence's n-gram id goes to ``occurrence_gram`` unless that is empty."""
    n_grams = state[1]
    o = state[2]
    keep = occurrence_gram.shape[0] > 0
    for item in range(state[0], item_start.shape[0] - 1):
        occurrences = 0
        for r in range(item_start[item], item_start[item + 1]):
            length = starts[r + 1] - starts[r]
            for k in range(1, n + 1):
                occurrences += max(length - k + 1, 0)
        if 2 * (n_grams + occurrences) > slot_gram.shape[0]:
            state[0], state[1], state[2] = item, n_grams, o
            return False
        for r in range(item_start[item], item_start[item + 1]):
            a, length = starts[r], starts[r + 1] - starts[r]
            for k in range(1, n + 1):
                for p in range(length - k + 1):
                    key = _numba.pack_gram(ids, a + p, k)
                    slot = _numba.find_gram(key, k, slot_gram, gram_key, gram_order)
                    gram = slot_gram[slot]
                    if gram < 0:
                        gram = n_grams
                        n_grams += 1
                        slot_gram[slot], gram_key[gram], gram_order[gram] = gram, key, k
                        gram_df[gram], last_item[gram] = 0, -1
                    if last_item[gram] != item:
                        last_item[gram] = item
                        gram_df[gram] += 1
                    if keep:
                        occurrence_gram[o] = gram
                        o += 1
    state[0], state[1], state[2] = item_start.shape[0] - 1, n_grams, o
    return True


def encode_frozen(
    sentences: Sequence[str], word_index: dict[str, int], n_vocab: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Word ids of all sentences (``str.split()``) and each sentence's first-word offset.

    Words of the frozen vocabulary keep their ids; unseen words get ids from ``n_vocab`` up,
    one per distinct word. Returns None when the ids do not fit in a packed key.
    """
    parts = [s.split() for s in sentences]
    starts = bounds(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)))
    flat = list(chain.from_iterable(parts))
    ids = np.fromiter(map(word_index.get, flat, repeat(-1)), dtype=np.int64, count=len(flat))
    unseen = np.flatnonzero(ids < 0)
    if unseen.shape[0]:
        local: dict[str, int] = {}
        ids[unseen] = [n_vocab + local.setdefault(flat[j], len(local)) for j in unseen.tolist()]
        if n_vocab + len(local) > MAX_WORDS:
            return None
    return ids, starts


def score_batch(
    candidates: Sequence[str],
    cand_item: npt.NDArray[np.int64],
    flat_refs: Sequence[str],
    n_refs: npt.NDArray[np.int64],
    word_index: dict[str, int],
    index: GramIndex,
    n_documents: int,
    *,
    n: int,
    sigma: float | None,
    clip: bool,
    scale: float,
) -> npt.NDArray[np.float64] | None:
    """Score tokenized candidates against the references of their items, with frozen frequencies.

    ``flat_refs`` are the references item by item, ``n_refs[i]`` of them for item ``i``;
    ``word_index`` and ``index`` are the frozen corpus's vocabulary and n-gram index. Returns
    None when the batch's words do not fit in packed keys (the caller then uses the vectorized
    path). Other arguments as in :func:`score_encoded`; inputs are already validated.
    """
    encoded = encode_frozen([*candidates, *flat_refs], word_index, index.n_vocab)
    if encoded is None:
        return None
    ids, starts = encoded
    return score_encoded(
        index,
        ids,
        starts,
        len(candidates),
        cand_item,
        bounds(n_refs) + len(candidates),
        n_documents,
        n=n,
        sigma=sigma,
        clip=clip,
        scale=scale,
    )


def score_with_reference_frequencies(
    candidates: Sequence[str],
    cand_item: npt.NDArray[np.int64],
    flat_refs: Sequence[str],
    n_refs: npt.NDArray[np.int64],
    *,
    n: int,
    sigma: float | None,
    clip: bool,
    scale: float,
) -> npt.NDArray[np.float64] | None:
    """Score with document frequencies counted over the references (one document per item), as
    the official scorer does. Arguments as in :func:`score_batch`. None when the words or ``n``
    do not fit in packed keys."""
    encoded = _encode([*candidates, *flat_refs], n)
    if encoded is None:
        return None
    ids, starts, vocab = encoded
    item_start = bounds(n_refs) + len(candidates)
    index, reference_grams = _reference_counts(ids, starts, item_start, n, len(vocab))
    return score_encoded(
        index,
        ids,
        starts,
        len(candidates),
        cand_item,
        item_start,
        n_refs.shape[0],
        n=n,
        sigma=sigma,
        clip=clip,
        scale=scale,
        reference_grams=reference_grams,
    )


def _encode(sentences: Sequence[str], n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Any] | None:
    """Word ids, sentence bounds and vocabulary of ``sentences``; None if they do not fit the kernel."""
    ids, lengths, vocab = encode_words(sentences)
    if not available(n, len(vocab)):
        return None
    return ids, bounds(lengths), vocab


def score_encoded(
    index: GramIndex,
    ids: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    n_cands: int,
    cand_item: npt.NDArray[np.int64],
    item_start: npt.NDArray[np.int64],
    n_documents: int,
    *,
    n: int,
    sigma: float | None,
    clip: bool,
    scale: float,
    reference_grams: npt.NDArray[np.int32] | None = None,
) -> npt.NDArray[np.float64]:
    """Score candidates ``0..n_cands-1`` against the references of their items.

    Args:
        index: Document frequencies (:func:`build_tables` or :func:`reference_index`).
        ids, starts: Encoded sentences (sentence ``s`` is ``ids[starts[s]:starts[s+1]]``):
            candidates first, then the references item by item.
        cand_item: Item of each candidate.
        item_start: References of item ``i`` are sentences ``item_start[i]..item_start[i+1]-1``.
        n_documents: Number of documents the frequencies were counted over (the idf numerator).
        sigma: Width of the length penalty, or None for none.
        clip: Clip candidate counts at the reference counts (CIDEr-D).
        scale: Factor applied to every score.
        reference_grams: The ``index`` id of every n-gram occurrence of the references, when
            ``index`` was counted on them (:func:`_reference_counts`); their frequencies are then
            read without a lookup.

    Large batches are scored in runs of whole items of about ``CHUNK_SENTENCES`` sentences,
    which bounds the working memory.
    """
    n_items = item_start.shape[0] - 1
    params = (
        index.slot_gram,
        index.gram_key,
        index.gram_order,
        index.gram_df,
        index.n_vocab,
        math.log(float(n_documents)),
        n,
        -1.0 if sigma is None else float(sigma),
        clip,
        float(scale),
    )
    if reference_grams is None:
        reference_grams = np.zeros(0, dtype=np.int32)
    if starts.shape[0] - 1 <= CHUNK_SENTENCES:
        return np.asarray(
            _score(ids, starts, n_cands, cand_item, item_start, reference_grams, *params), dtype=np.float64
        )
    # where each reference sentence's occurrences start in ``reference_grams``
    first_ref = int(item_start[0])
    occurrence_start = bounds(_occurrences(np.diff(starts[first_ref : item_start[-1] + 1]), n))
    per_item = np.diff(item_start) + np.bincount(cand_item, minlength=n_items)
    cut = np.cumsum(per_item) // CHUNK_SENTENCES
    edges = [0, *(np.flatnonzero(np.diff(cut)) + 1).tolist(), n_items]
    scores = np.empty(n_cands, dtype=np.float64)
    runs = [(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]

    def run_args(a: int, b: int) -> tuple[npt.NDArray[np.int64], tuple[Any, ...]]:
        picked = np.flatnonzero((cand_item >= a) & (cand_item < b))
        sentences = np.concatenate([picked, np.arange(item_start[a], item_start[b], dtype=np.int64)])
        lengths = starts[sentences + 1] - starts[sentences]
        chunk_starts = bounds(lengths)
        chunk_ids = ids[np.repeat(starts[sentences], lengths) + ranks_within(lengths)]
        chunk_item_start = item_start[a : b + 1] - item_start[a] + picked.shape[0]
        grams = reference_grams
        if grams.shape[0]:
            grams = grams[occurrence_start[item_start[a] - first_ref] : occurrence_start[item_start[b] - first_ref]]
        return picked, (
            chunk_ids,
            chunk_starts,
            picked.shape[0],
            cand_item[picked] - a,
            chunk_item_start,
            grams,
            *params,
        )

    threads = min(_MAX_THREADS, _available_cpus(), len(runs))
    if threads <= 1:
        for a, b in runs:
            picked, args = run_args(a, b)
            scores[picked] = _score(*args)
        return scores
    # The compiled scorer releases the GIL: runs are scored in threads while this one cuts the
    # next ones (a few runs in flight bound the memory); every run's scores are its own.
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending: deque[Any] = deque()
        for a, b in runs:
            picked, args = run_args(a, b)
            pending.append((picked, pool.submit(_score, *args)))
            while len(pending) > 2 * threads:
                done, future = pending.popleft()
                scores[done] = future.result()
        while pending:
            done, future = pending.popleft()
            scores[done] = future.result()
    return scores


@_jit
def _score(
    ids: Any,
    starts: Any,
    n_cands: int,
    cand_item: Any,
    item_start: Any,
    ref_gram: Any,
    df_slot: Any,
    df_key: Any,
    df_order: Any,
    df_value: Any,
    n_vocab: int,
    log_docs: float,
    n: int,
    sigma: float,
    clip: bool,
    scale: float,
) -> Any:  # pragma: no cover - compiled
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
    slot_gram = np.full(size, -1, dtype=np.int32)
    gram_key = np.empty(total, dtype=np.uint64)
    gram_order = np.empty(total, dtype=np.int64)
    occurrence = np.empty(total, dtype=np.int64)
    segment = np.zeros(n_sents * n + 1, dtype=np.int64)  # occurrences of (sentence, order)
    # the frequency table's id of an n-gram met in a reference, when ``ref_gram`` gives them
    known = np.full(total, -1, dtype=np.int64)
    from_refs = ref_gram.shape[0] > 0
    n_grams = 0
    o = 0
    ro = 0  # occurrences in references so far
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
                if from_refs and s >= n_cands:
                    if known[gram] < 0:
                        known[gram] = ref_gram[ro]
                    ro += 1
                occurrence[o] = gram
                o += 1
            segment[s * n + k] = o
    # 2. Inverse document frequency of each distinct n-gram (n-grams with an unseen word: df 0).
    idf = np.empty(n_grams, dtype=np.float64)
    word_mask = np.uint64(MAX_WORDS - 1)
    for g in range(n_grams):
        doc_freq = 0.0
        if known[g] >= 0:
            doc_freq = df_value[known[g]]
        else:
            key = gram_key[g]
            k = gram_order[g]
            seen = True
            for w in range(k):
                if ((key >> np.uint64(WORD_BITS * w)) & word_mask) >= np.uint64(n_vocab):
                    seen = False
            if seen:
                found = df_slot[_numba.find_gram(key, k, df_slot, df_key, df_order)]
                if found >= 0:
                    doc_freq = df_value[found]
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
