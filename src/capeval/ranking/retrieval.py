"""Ranking evaluation of image description and image search (Hodosh et al. 2013).

A system scores every (query, pool item) pair; higher is better. For **image annotation**
the queries are images and the pool is captions (5 per image in Flickr8K/COCO: a
many-to-one gold mapping); for **image search** the queries are captions and the pool is
images. The rank of a query is the position of its *first* gold item (1 = top).

* R@k: fraction of queries whose first gold item is within the top ``k``.
* median rank / mean rank of the first gold item.
* S@k: fraction of queries with at least one *relevant* item (binary human judgments,
  which may mark more than the gold items as relevant) within the top ``k``.
* R-precision: precision within the top ``R`` items, ``R`` = number of relevant items of the
  query; queries without any relevant item are left out (and counted in the result).

Ties in the scores are resolved explicitly: ``"pessimistic"`` (default: a gold/relevant item
tied with others is placed after them), ``"optimistic"`` (before them) or ``"index"`` (by pool
position, a stable sort).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.types import FloatArray, IntArray

__all__ = [
    "TIE_RULES",
    "RankingResult",
    "annotation_relevance",
    "binarize",
    "evaluate_ranking",
    "first_relevant_ranks",
    "mean_rank",
    "median_rank",
    "r_precision",
    "recall_at_k",
    "success_at_k",
]

BoolArray = npt.NDArray[np.bool_]

TIE_RULES = ("pessimistic", "optimistic", "index")
#: Queries processed per block when counting ranks (bounds memory to block x n_pool).
_BLOCK = 256
#: The cut-offs reported by Hodosh et al. (2013) and most later work.
DEFAULT_KS = (1, 5, 10)


def _scores(scores: Any) -> FloatArray:
    array = np.asarray(scores, dtype=np.float64)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"scores must be a non-empty (n_queries, n_pool) matrix, got shape {array.shape}")
    bad = np.argwhere(np.isnan(array))
    if bad.size:
        q, p = (int(v) for v in bad[0])
        raise ValueError(f"score of query {q}, pool item {p} is NaN")
    return array


def _relevance(relevant: Any, shape: tuple[int, int]) -> BoolArray:
    array = np.asarray(relevant)
    if array.shape != shape:
        raise ValueError(f"relevance matrix has shape {array.shape} but scores have shape {shape}")
    return array.astype(bool)


def annotation_relevance(pool_to_query: Sequence[int], n_queries: int | None = None) -> BoolArray:
    """Gold relevance ``(n_queries, n_pool)`` from a many-to-one mapping pool item -> query.

    For image annotation pass ``caption -> image index``; transpose the result for image search.

    Raises:
        ValueError: when an index is negative or not below ``n_queries``.

    Example:
        >>> annotation_relevance([0, 0, 1]).astype(int).tolist()
        [[1, 1, 0], [0, 0, 1]]
    """
    gold = np.asarray(pool_to_query)
    if gold.ndim != 1 or gold.size == 0:
        raise ValueError("gold mapping must be a non-empty 1-D sequence of query indices")
    if not np.issubdtype(gold.dtype, np.integer):
        if not np.all(np.mod(gold, 1) == 0):
            raise ValueError("gold mapping must hold integer query indices")
        gold = gold.astype(np.int64)
    n = int(gold.max()) + 1 if n_queries is None else n_queries
    bad = np.flatnonzero((gold < 0) | (gold >= n))
    if bad.size:
        raise ValueError(
            f"gold mapping: pool item {int(bad[0])} points to query {int(gold[bad[0]])}, outside 0..{n - 1}"
        )
    out = np.zeros((n, gold.size), dtype=bool)
    out[gold, np.arange(gold.size)] = True
    return out


def binarize(judgments: Any, threshold: float) -> BoolArray:
    """Binary relevance from graded judgments: ``judgment >= threshold`` (NaN = not judged = not relevant).

    Hodosh et al. (2013) count an expert score of 3 ("minor mistakes") or 4 as relevant for S@k
    and R-precision, or a CrowdFlower "yes" fraction of at least 2/3.

    Example:
        >>> binarize([[4, 2, float("nan")]], 3).tolist()
        [[True, False, False]]
    """
    array = np.asarray(judgments, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(array), False, array >= threshold)


def _order(scores: FloatArray, relevant: BoolArray, ties: str) -> IntArray:
    """Pool indices of each query, best first, ties resolved by the rule."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    if ties == "index":
        return np.argsort(-scores, axis=1, kind="stable")
    # lexsort: last key is primary. Pessimistic puts relevant items after tied non-relevant ones.
    secondary = relevant if ties == "pessimistic" else ~relevant
    out: IntArray = np.lexsort((secondary, -scores), axis=-1)
    return out


def _first_ranks(s: FloatArray, rel: BoolArray, ties: str) -> IntArray:
    """Rank of the first relevant item per query by counting (no full sort); 0 when none is relevant."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    out = np.zeros(s.shape[0], dtype=np.int64)
    for start in range(0, s.shape[0], _BLOCK):
        block, rblock = s[start : start + _BLOCK], rel[start : start + _BLOCK]
        has = rblock.any(axis=1)
        best = np.where(rblock, block, -np.inf).max(axis=1, initial=-np.inf)[:, None]
        above = (block > best).sum(axis=1)
        tied = block == best
        if ties == "optimistic":
            rank = above + 1
        elif ties == "pessimistic":
            rank = above + (tied & ~rblock).sum(axis=1) + 1
        else:  # pool order among the tied items, up to the first tied relevant one
            first = np.argmax(tied & rblock, axis=1)
            before = np.cumsum(tied, axis=1) - tied  # tied items strictly before each position
            rank = above + before[np.arange(block.shape[0]), first] + 1
        out[start : start + _BLOCK] = np.where(has, rank, 0)
    return out


def first_relevant_ranks(scores: Any, relevant: Any, *, ties: str = "pessimistic") -> IntArray:
    """1-based rank of the first relevant item of each query.

    Args:
        scores: ``(n_queries, n_pool)``, higher is better (``-inf`` allowed for "not ranked").
        relevant: Boolean matrix of the same shape.
        ties: One of :data:`TIE_RULES`.

    Returns:
        ``(n_queries,)`` ranks.

    Raises:
        ValueError: on shape mismatch, NaN scores, or a query without any relevant item
            (naming the query).

    Example:
        >>> first_relevant_ranks([[0.9, 0.5, 0.7], [0.2, 0.2, 0.1]], [[0, 1, 0], [1, 0, 0]]).tolist()
        [3, 2]
    """
    s = _scores(scores)
    rel = _relevance(relevant, s.shape)
    empty = np.flatnonzero(~rel.any(axis=1))
    if empty.size:
        raise ValueError(f"query {int(empty[0])} has no gold item")
    return _first_ranks(s, rel, ties)


def recall_at_k(ranks: Any, k: int) -> float:
    """Fraction of queries whose first gold item is within the top ``k``.

    Example:
        >>> recall_at_k([1, 3, 12, 2], 5)
        0.75
    """
    if k < 1:
        raise ValueError(f"k must be positive, got {k}")
    r = np.asarray(ranks)
    return float(np.mean(r <= k))


def median_rank(ranks: Any) -> float:
    """Median rank of the first gold item (lower is better)."""
    return float(np.median(np.asarray(ranks, dtype=np.float64)))


def mean_rank(ranks: Any) -> float:
    """Mean rank of the first gold item (lower is better)."""
    return float(np.mean(np.asarray(ranks, dtype=np.float64)))


def success_at_k(scores: Any, relevant: Any, k: int, *, ties: str = "pessimistic") -> float:
    """S@k: fraction of queries with at least one relevant item in the top ``k``.

    Queries without any relevant item count as failures (they can never succeed).

    Example:
        >>> success_at_k([[0.9, 0.5, 0.7]], [[0, 1, 1]], 1)
        0.0
    """
    if k < 1:
        raise ValueError(f"k must be positive, got {k}")
    s = _scores(scores)
    rel = _relevance(relevant, s.shape)
    ranks = _first_ranks(s, rel, ties)
    return float(np.mean((ranks >= 1) & (ranks <= k)))


def r_precision(scores: Any, relevant: Any, *, ties: str = "pessimistic") -> tuple[float, int]:
    """Mean R-precision over queries with at least one relevant item.

    Returns:
        ``(mean R-precision, number of queries counted)``.

    Raises:
        ValueError: when no query has a relevant item.

    Example:
        >>> r_precision([[0.9, 0.5, 0.7], [0.1, 0.2, 0.3]], [[1, 0, 1], [0, 0, 0]])
        (1.0, 1)
    """
    s = _scores(scores)
    rel = _relevance(relevant, s.shape)
    counts = rel.sum(axis=1)
    keep = np.flatnonzero(counts > 0)
    if keep.size == 0:
        raise ValueError("no query has a relevant item; R-precision is undefined")
    order = _order(s[keep], rel[keep], ties)
    hits = np.take_along_axis(rel[keep], order, axis=1)
    values = [hits[i, : counts[q]].mean() for i, q in enumerate(keep)]
    return float(np.mean(values)), int(keep.size)


@dataclass(frozen=True)
class RankingResult:
    """R@k and rank statistics for one retrieval direction.

    Attributes:
        task: ``"annotation"`` (image -> captions) or ``"search"`` (caption -> image).
        n_queries: Number of queries.
        n_pool: Size of the pool.
        recall: ``k -> R@k`` (fraction).
        median_rank: Median rank of the first gold item.
        mean_rank: Mean rank of the first gold item.
        ranks: Per-query ranks (for significance tests).
        ties: Tie rule used.
    """

    task: str
    n_queries: int
    n_pool: int
    recall: dict[int, float]
    median_rank: float
    mean_rank: float
    ranks: IntArray
    ties: str


def evaluate_ranking(
    scores: Any,
    pool_to_query: Sequence[int],
    *,
    task: str = "annotation",
    ks: Sequence[int] = DEFAULT_KS,
    ties: str = "pessimistic",
) -> RankingResult:
    """R@k, median and mean rank for image annotation or image search from one score matrix.

    Args:
        scores: ``(n_images, n_captions)`` compatibility scores, higher is better (the same
            matrix serves both directions).
        pool_to_query: Image index of every caption (many-to-one gold).
        task: ``"annotation"`` ranks captions for each image; ``"search"`` ranks images for
            each caption.
        ks: Cut-offs for R@k.
        ties: One of :data:`TIE_RULES`.

    Returns:
        A :class:`RankingResult`.

    Raises:
        ValueError: on inconsistent shapes, unknown task, or an image without captions.

    Example:
        >>> s = [[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.6]]
        >>> r = evaluate_ranking(s, [0, 0, 1, 1], task="search", ks=(1,))
        >>> (r.recall, r.median_rank)
        ({1: 1.0}, 1.0)
    """
    s = _scores(scores)
    if task not in ("annotation", "search"):
        raise ValueError(f"task must be 'annotation' or 'search', got {task!r}")
    if len(pool_to_query) != s.shape[1]:
        raise ValueError(f"gold mapping has {len(pool_to_query)} captions but scores have {s.shape[1]} columns")
    rel = annotation_relevance(pool_to_query, s.shape[0])
    if task == "search":
        s, rel = s.T, rel.T
    ranks = first_relevant_ranks(s, rel, ties=ties)
    return RankingResult(
        task=task,
        n_queries=int(s.shape[0]),
        n_pool=int(s.shape[1]),
        recall={int(k): recall_at_k(ranks, int(k)) for k in ks},
        median_rank=median_rank(ranks),
        mean_rank=mean_rank(ranks),
        ranks=ranks,
        ties=ties,
    )
