"""Image and text kernels of Hodosh et al. (2013).

Image side: histogram intersection (Swain and Ballard 1991) and the 3-level spatial pyramid
intersection kernel (Lazebnik et al. 2006) over visual-word counts, averaged over colour,
texture and SIFT words (:func:`image_kernel`).

Text side, each a normalized linear kernel over an explicit (sparse) feature map, so every
one is positive semi-definite, and each built on *documents*: one caption, or the five
captions of a training image taken together:

* :func:`bow_features`: bag of words, weights ``none`` (counts), ``idf`` or ``sqrt-idf``;
* :func:`tagrank_features`: word presence, absolute and relative rank of each word's first
  mention (Hwang and Grauman 2012), averaged over a document's captions, optionally IDF
  weighted;
* :func:`ngram_features` with :func:`blended_ngram_kernel` or :func:`ngram_kernel`: the
  word-trigram kernel TRI, i.e. shared unigrams, bigrams and trigrams inside captions,
  weighted counts (none, IDF or sqrt-IDF). Blended (the default of the systems): the
  blended spectrum kernel of Shawe-Taylor and Cristianini (2004), order ``n`` weighted by
  ``decay ** (2 n)``, normalized once; or each order's cosine, averaged;
* :func:`semantic_ngram_kernel`: TRI with soft matching, an n-gram pair counting
  ``prod_i S[g_i, h_i]`` for a word similarity ``S`` (TRI-SEM), blended or averaged the same
  way. It is PSD when ``S`` is; a sparsified ``S`` (the default) need not be, which the
  KCCA's truncated eigendecomposition absorbs (negative directions are dropped).

Lexical similarities (:mod:`capeval.ranking.systems.lexical`) supply ``S``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.ranking.systems.image_features import FEATURES, PYRAMID_SIDE, ImageFeatures

__all__ = [
    "PYRAMID_WEIGHTS",
    "WEIGHTINGS",
    "Vocabulary",
    "blended_ngram_kernel",
    "bow_features",
    "cosine_kernel",
    "document_frequencies",
    "image_feature_matrix",
    "image_kernel",
    "intersection_kernel",
    "ngram_features",
    "ngram_kernel",
    "pyramid_features",
    "pyramid_kernel",
    "semantic_ngram_kernel",
    "tagrank_features",
    "tokenize",
]

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
#: Weights of pyramid levels 0 (whole image), 1 (2x2) and 2 (4x4): ``1/2^L`` and ``1/2^(L-l+1)``, L = 2.
PYRAMID_WEIGHTS = (0.25, 0.25, 0.5)
#: Term weightings of the bag-of-words and n-gram kernels.
WEIGHTINGS = ("none", "idf", "sqrt-idf")


# --------------------------------------------------------------------------------------------- image


_compiled: Any = None


def _intersection_numba() -> Any:
    global _compiled
    if _compiled is None:
        import numba

        @numba.njit(parallel=True, fastmath=True, cache=True)
        def kernel(a: F32, b: F32, out: F64, symmetric: bool) -> None:  # pragma: no cover - compiled
            n, m, d = a.shape[0], b.shape[0], a.shape[1]
            for i in numba.prange(n):
                for j in range(i if symmetric else 0, m):
                    s = np.float32(0.0)
                    for k in range(d):
                        s += min(a[i, k], b[j, k])
                    out[i, j] = s
                    if symmetric:
                        out[j, i] = s

        _compiled = kernel
    return _compiled


def intersection_kernel(a: Any, b: Any | None = None) -> F64:
    """Histogram intersection ``K[i, j] = sum_k min(a[i, k], b[j, k])`` (PSD on non-negative rows).

    Example:
        >>> intersection_kernel([[1.0, 2.0, 0.0]], [[2.0, 1.0, 1.0]]).tolist()
        [[2.0]]

    Raises:
        ValueError: on negative entries or mismatched widths.
    """
    x = np.ascontiguousarray(a, dtype=np.float32)
    y = x if b is None else np.ascontiguousarray(b, dtype=np.float32)
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1]:
        raise ValueError(f"histograms must be 2-D with equal widths, got {x.shape} and {y.shape}")
    if (x < 0).any() or (y < 0).any():
        raise ValueError("histogram intersection needs non-negative histograms")
    out = np.empty((x.shape[0], y.shape[0]), dtype=np.float64)
    _intersection_numba()(x, y, out, b is None)
    return out


def pyramid_features(counts: Any) -> F32:
    """Weighted, normalized 3-level pyramid histograms from finest-level counts.

    Args:
        counts: ``(n, 16, words)`` visual-word counts per cell of the 4x4 grid (row-major).

    Returns:
        ``(n, 21 * words)``: level 0, the four level-1 cells, the sixteen level-2 cells; each
        level's histogram sums to 1 and is scaled by its :data:`PYRAMID_WEIGHTS`, so the
        intersection of an image with itself is 1.
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 3 or c.shape[1] != PYRAMID_SIDE * PYRAMID_SIDE:
        raise ValueError(f"counts must be (n, {PYRAMID_SIDE**2}, words), got {c.shape}")
    n, _, words = c.shape
    grid = c.reshape(n, PYRAMID_SIDE, PYRAMID_SIDE, words)
    level1 = grid.reshape(n, 2, 2, 2, 2, words).sum(axis=(2, 4)).reshape(n, 4, words)
    level0 = c.sum(axis=1, keepdims=True)
    total = np.maximum(level0.sum(axis=2, keepdims=True), 1e-12)  # descriptors per image
    parts = [w * lv / total for w, lv in zip(PYRAMID_WEIGHTS, (level0, level1, c), strict=True)]
    return np.concatenate([p.reshape(n, -1) for p in parts], axis=1).astype(np.float32)


def pyramid_kernel(counts_a: Any, counts_b: Any | None = None) -> F64:
    """Spatial-pyramid intersection kernel (3 levels) between two sets of images' counts."""
    fa = pyramid_features(counts_a)
    return intersection_kernel(fa, fa if counts_b is None else pyramid_features(counts_b))


def image_feature_matrix(features: ImageFeatures) -> F32:
    """``(n, sum of 21 * words)``: the pyramid features of colour, texture and SIFT side by side, divided by 3.

    The intersection kernel of these rows is the average of the three pyramid kernels (a
    minimum of scaled values is the scaled minimum), so one pass computes :func:`image_kernel`.
    """
    parts = [pyramid_features(features.counts[f]) / np.float32(len(FEATURES)) for f in FEATURES]
    return np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.float32)


def image_kernel(a: ImageFeatures, b: ImageFeatures | None = None, *, power: float = 1.0) -> F64:
    """The average of the colour, texture and SIFT pyramid kernels, raised elementwise to ``power``.

    An integer power of a PSD kernel is PSD (Schur product theorem); Hodosh et al. use 2 or 3.
    """
    fa = image_feature_matrix(a)
    total = intersection_kernel(fa, None if b is None else image_feature_matrix(b))
    return total if power == 1.0 else total**power


def tokenize(caption: str) -> list[str]:
    """Lower-cased tokens of a (lemmatized) caption, punctuation-only tokens dropped."""
    return [t for t in caption.lower().split() if any(ch.isalnum() for ch in t)]


class Vocabulary:
    """A growing ``string -> column`` index (words or n-grams)."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def __len__(self) -> int:
        return len(self.index)

    def id(self, item: Any, grow: bool = True) -> int:
        """Column of ``item`` (``-1`` when unknown and not ``grow``)."""
        got = self.index.get(item)
        if got is None:
            if not grow:
                return -1
            got = self.index[item] = len(self.index)
        return got


def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def document_frequencies(captions: Sequence[str], max_order: int = 1) -> tuple[dict[tuple[str, ...], int], int]:
    """In how many captions each n-gram (orders 1..``max_order``) occurs; and the number of captions."""
    df: Counter[tuple[str, ...]] = Counter()
    for c in captions:
        toks = tokenize(c)
        for n in range(1, max_order + 1):
            df.update(set(_ngrams(toks, n)))
    return dict(df), len(captions)


def _weight(df: Mapping[tuple[str, ...], int], n_docs: int, weighting: str) -> Any:
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")

    def w(gram: tuple[str, ...]) -> float:
        if weighting == "none":
            return 1.0
        idf = math.log((n_docs + 1) / (df.get(gram, 0) + 1)) + 1.0  # smoothed; unseen n-grams weigh most
        return idf if weighting == "idf" else math.sqrt(idf)

    return w


def _sparse_rows(rows: list[dict[int, float]], width: int) -> Any:
    from scipy import sparse

    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indices: list[int] = []
    data: list[float] = []
    for i, row in enumerate(rows):
        indices.extend(row.keys())
        data.extend(row.values())
        indptr[i + 1] = len(indices)
    return sparse.csr_matrix(
        (np.asarray(data, dtype=np.float64), np.asarray(indices, dtype=np.int64), indptr), shape=(len(rows), width)
    )


def _normalize_rows(m: Any) -> Any:
    from scipy import sparse

    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    return sparse.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ m


def bow_features(
    documents: Sequence[Sequence[str]],
    vocabulary: Vocabulary,
    *,
    weighting: str = "idf",
    df: tuple[Mapping[tuple[str, ...], int], int] | None = None,
    grow: bool = True,
) -> Any:
    """L2-normalized bag-of-words rows (scipy CSR), one per document (a list of captions).

    Args:
        documents: Each a list of captions (1 for a test caption or BoW1, 5 for BoW5).
        vocabulary: Word columns (grown when ``grow``; unknown words are dropped otherwise).
        weighting: ``none``, ``idf`` or ``sqrt-idf`` (IDF over training captions, ``df``).
        df: :func:`document_frequencies` of the training captions (needed unless ``none``).
        grow: Whether new words get columns.

    Example:
        >>> v = Vocabulary()
        >>> x = bow_features([["a dog run"], ["a dog"]], v, weighting="none")
        >>> round(float((x @ x.T).toarray()[0, 1]), 4)  # 2 / (sqrt(3) sqrt(2))
        0.8165
    """
    weight = _weight(*(df or ({}, 0)), weighting)
    rows: list[dict[int, float]] = []
    for doc in documents:
        row: dict[int, float] = {}
        for caption in doc:
            for t in tokenize(caption):
                j = vocabulary.id(t, grow)
                if j >= 0:
                    row[j] = row.get(j, 0.0) + weight((t,))
        rows.append(row)
    return _normalize_rows(_sparse_rows(rows, max(len(vocabulary), 1)))


def tagrank_features(
    documents: Sequence[Sequence[str]],
    vocabulary: Vocabulary,
    *,
    grow: bool = True,
    weighting: str = "none",
    df: tuple[Mapping[tuple[str, ...], int], int] | None = None,
) -> Any:
    """TagRank rows: word presence, absolute rank ``1 / log2(1 + p)`` and relative rank ``1 - (p - 1) / n``.

    ``p`` is the 1-based position of a word's first mention in a caption of ``n`` tokens; each
    value is multiplied by the word's weight (``weighting``: ``none``, ``idf`` or ``sqrt-idf``
    over the training captions, ``df``); each of the three blocks is averaged over the
    document's captions and L2-normalized, and the concatenation is scaled by ``1 / sqrt(3)``
    (unit norm; the kernel is the mean of the three blocks' cosines).
    """
    from scipy import sparse

    weight = _weight(*(df or ({}, 0)), weighting)
    blocks: list[list[dict[int, float]]] = [[], [], []]
    for doc in documents:
        acc: list[dict[int, float]] = [{}, {}, {}]
        for caption in doc:
            toks = tokenize(caption)
            seen: set[str] = set()
            for p, t in enumerate(toks, 1):
                if t in seen:
                    continue
                seen.add(t)
                j = vocabulary.id(t, grow)
                if j < 0:
                    continue
                w = weight((t,)) / len(doc)
                for b, value in enumerate((1.0, 1.0 / math.log2(1 + p), 1.0 - (p - 1) / len(toks))):
                    acc[b][j] = acc[b].get(j, 0.0) + w * value
        for b in range(3):
            blocks[b].append(acc[b])
    width = max(len(vocabulary), 1)
    parts = [_normalize_rows(_sparse_rows(rows, width)) for rows in blocks]
    return sparse.hstack(parts, format="csr") / math.sqrt(3.0)


def ngram_features(
    documents: Sequence[Sequence[str]],
    vocabularies: Sequence[Vocabulary],
    *,
    weighting: str = "none",
    df: tuple[Mapping[tuple[str, ...], int], int] | None = None,
    grow: bool = True,
) -> list[Any]:
    """Per order ``n = 1..len(vocabularies)``: weighted n-gram count rows (CSR), not normalized.

    N-grams never cross caption boundaries; a document's rows sum its captions' counts.
    """
    weight = _weight(*(df or ({}, 0)), weighting)
    out = []
    for n, vocabulary in enumerate(vocabularies, 1):
        rows: list[dict[int, float]] = []
        for doc in documents:
            row: dict[int, float] = {}
            for caption in doc:
                for g in _ngrams(tokenize(caption), n):
                    j = vocabulary.id(g, grow)
                    if j >= 0:
                        row[j] = row.get(j, 0.0) + weight(g)
            rows.append(row)
        out.append(_sparse_rows(rows, max(len(vocabulary), 1)))
    return out


def cosine_kernel(a: Any, b: Any) -> F64:
    """``a_i . b_j / (|a_i| |b_j|)`` for sparse or dense rows (0 where a row is empty)."""
    na = _normalize_rows(_as_sparse(a))
    nb = _normalize_rows(_as_sparse(b))
    out: F64 = np.asarray((na @ nb.T).toarray(), dtype=np.float64)
    return out


def _as_sparse(m: Any) -> Any:
    from scipy import sparse

    return m if sparse.issparse(m) else sparse.csr_matrix(np.asarray(m, dtype=np.float64))


def ngram_kernel(a: Sequence[Any], b: Sequence[Any]) -> F64:
    """TRI, averaged reading: the mean over n-gram orders of the cosine between documents' n-gram rows."""
    return np.mean([cosine_kernel(x, y) for x, y in zip(a, b, strict=True)], axis=0)


def blended_ngram_kernel(a: Sequence[Any], b: Sequence[Any], decay: float) -> F64:
    """TRI, blended reading: ``k(x, y) = sum_n decay^(2n) x_n . y_n``, normalized to ``k(x, x) = 1``.

    The blended spectrum kernel (Shawe-Taylor and Cristianini 2004, Section 11.3) over words:
    a shared n-gram counts ``decay ** (2 n)`` times the product of its weights, so a small
    ``decay`` leans on unigrams and ``decay = 1`` counts every order alike. A normalized
    linear kernel, hence PSD.

    Args:
        a, b: :func:`ngram_features` of two document sets (orders 1..N, same vocabularies).
        decay: The per-word decay, in ``(0, 1]``.

    Example:
        >>> v = [Vocabulary(), Vocabulary()]
        >>> f = ngram_features([["a dog run"], ["a dog"]], v)
        >>> round(float(blended_ngram_kernel(f, f, 1.0)[0, 1]), 4)  # 3 / sqrt(5 * 3)
        0.7746
    """
    _check_decay(decay)
    parts = []
    for x, y in zip(a, b, strict=True):
        x, y = _as_sparse(x), _as_sparse(y)
        cross = np.asarray((x @ y.T).toarray(), dtype=np.float64)
        parts.append((cross, _row_dots(x, x), _row_dots(y, y)))
    return _combine_orders(parts, decay)


def _check_decay(decay: float | None) -> None:
    if decay is not None and not 0.0 < decay <= 1.0:
        raise ValueError(f"decay must be in (0, 1], got {decay}")


def _row_dots(a: Any, b: Any) -> F64:
    """``a_i . b_i`` per row of two sparse matrices (clipped at 0: a kernel's self-similarity)."""
    return np.maximum(np.asarray(a.multiply(b).sum(axis=1), dtype=np.float64).ravel(), 0.0)


def _combine_orders(parts: Sequence[tuple[F64, F64, F64]], decay: float | None) -> F64:
    """One kernel from per-order ``(cross products, left self-products, right self-products)``.

    ``decay``: the orders summed with weights ``decay ** (2 n)`` and the sum normalized once
    (blended); ``None``: each order normalized and the orders averaged.
    """
    if not parts:
        raise ValueError("no n-gram order given")

    def normalized(cross: F64, sa: F64, sb: F64) -> F64:
        da, db = np.sqrt(sa), np.sqrt(sb)
        out: F64 = cross / np.outer(np.where(da > 0, da, 1.0), np.where(db > 0, db, 1.0))
        return out

    if decay is None:
        mean: F64 = np.mean([normalized(*part) for part in parts], axis=0)
        return mean
    cross, sa, sb = (np.zeros_like(m) for m in parts[0])
    for n, (c, a, b) in enumerate(parts, 1):
        w = decay ** (2 * n)
        cross += w * c
        sa += w * a
        sb += w * b
    return normalized(cross, sa, sb)


def _soft_ngram_matrix(vocabulary: Vocabulary, n: int, similarity: Any, word_index: Mapping[str, int]) -> Any:
    """``S_n[g, h] = prod_i S[g_i, h_i]`` over the n-grams of ``vocabulary`` (sparse, words outside ``S``: identity)."""
    from scipy import sparse

    s = sparse.csr_matrix(similarity)
    grams = list(vocabulary.index)
    size = len(grams)
    if size == 0:  # no n-gram of this order: the feature matrices have one empty column
        return sparse.csr_matrix((1, 1))
    # a word outside the similarity's vocabulary matches only itself: give it a private id
    extra: dict[str, int] = {}
    ids = np.empty((size, n), dtype=np.int64)
    for r, g in enumerate(grams):
        for i, w in enumerate(g):
            k = word_index.get(w)
            if k is None:
                k = extra.setdefault(w, s.shape[0] + len(extra))
            ids[r, i] = k
    total = s.shape[0] + len(extra)
    s = sparse.block_diag([s, sparse.identity(len(extra))], format="csr") if extra else s
    neighbours = [s.indices[s.indptr[k] : s.indptr[k + 1]] for k in range(total)]
    values = [s.data[s.indptr[k] : s.indptr[k + 1]] for k in range(total)]
    codes = np.zeros(size, dtype=np.int64)
    for i in range(n):
        codes = codes * total + ids[:, i]
    order = np.argsort(codes)
    sorted_codes = codes[order]
    rows: list[npt.NDArray[np.int64]] = []
    cols: list[npt.NDArray[np.int64]] = []
    vals: list[F64] = []
    for r in range(size):
        cand = np.zeros(1, dtype=np.int64)
        val = np.ones(1)
        for i in range(n):
            nb, nv = neighbours[ids[r, i]], values[ids[r, i]]
            cand = (cand[:, None] * total + nb[None, :]).ravel()
            val = (val[:, None] * nv[None, :]).ravel()
        pos = np.searchsorted(sorted_codes, cand)
        pos = np.minimum(pos, size - 1)
        hit = sorted_codes[pos] == cand
        cols.append(order[pos[hit]])
        vals.append(val[hit])
        rows.append(np.full(int(hit.sum()), r, dtype=np.int64))
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(size, size))


def semantic_ngram_kernel(
    a: Sequence[Any],
    b: Sequence[Any],
    vocabularies: Sequence[Vocabulary],
    similarity: Any,
    words: Sequence[str],
    *,
    decay: float | None = None,
) -> F64:
    """TRI-SEM: soft n-gram matching, ``x S_n y^T`` per order, blended or averaged over orders.

    Per order ``n``, ``k_n(x, y) = x S_n y^T`` with ``S_n[g, h] = prod_i S[g_i, h_i]``. With
    ``decay`` (the blended reading of :func:`blended_ngram_kernel`) the orders are summed with
    weights ``decay ** (2 n)`` and the sum is normalized once; without it each order is
    normalized, ``k_n(x, y) / sqrt(k_n(x, x) k_n(y, y))``, and the orders are averaged.

    Args:
        a, b: :func:`ngram_features` of two document sets (same vocabularies).
        vocabularies: The n-gram vocabularies (order 1..N).
        similarity: ``(len(words), len(words))`` word similarity with unit diagonal (dense or
            sparse); words outside it match only themselves.
        words: The words of ``similarity``'s rows.
        decay: Per-word decay in ``(0, 1]`` of the blended reading; ``None``: per-order mean.
    """
    _check_decay(decay)
    index = {w: i for i, w in enumerate(words)}
    parts = []
    for n, (x, y, vocabulary) in enumerate(zip(a, b, vocabularies, strict=True), 1):
        soft = _soft_ngram_matrix(vocabulary, n, similarity, index)
        x = _as_sparse(x)
        y = _as_sparse(y)
        xs = x @ soft
        cross = np.asarray((xs @ y.T).toarray())
        parts.append((cross, _row_dots(xs, x), _row_dots(y @ soft, y)))
    return _combine_orders(parts, decay)
