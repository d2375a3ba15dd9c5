"""Borda-count aggregation of several rankings of the same pools.

Hodosh et al. (2013) combine the rankings of several systems (or annotators) with Borda
counts: an item ranked ``r`` among ``n`` gets ``n - r`` points from that ranking, points are
summed, and items with equal totals are ordered by their median rank (lower first). Remaining
ties keep pool order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from capeval.ranking.retrieval import FloatArray, IntArray

__all__ = ["borda_aggregate", "scores_to_ranks"]


def scores_to_ranks(scores: Any) -> IntArray:
    """1-based ranks per query (row) from scores, higher is better; ties share the lowest rank.

    Example:
        >>> scores_to_ranks([[0.2, 0.9, 0.2]]).tolist()
        [[2, 1, 2]]
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"scores must be a (n_queries, n_pool) matrix, got shape {s.shape}")
    # rank = 1 + number of strictly better items ("competition" ranking)
    sorted_desc = -np.sort(-s, axis=1)
    out = np.empty(s.shape, dtype=np.int64)
    for q in range(s.shape[0]):
        out[q] = np.searchsorted(-sorted_desc[q], -s[q], side="left") + 1
    return out


def borda_aggregate(rankings: Sequence[Any], *, are_ranks: bool = False) -> tuple[FloatArray, IntArray]:
    """Aggregate several rankings of the same ``(n_queries, n_pool)`` pools.

    Args:
        rankings: Score matrices (higher is better), or rank matrices (1 = best) with
            ``are_ranks=True``; all of the same shape.
        are_ranks: Whether ``rankings`` already hold ranks.

    Returns:
        ``(points, ranks)``: summed Borda points and the aggregated 1-based ranks (a
        permutation per query: Borda ties broken by median rank, then pool order).

    Raises:
        ValueError: on an empty list or mismatched shapes (naming the ranking).

    Example:
        >>> ranks_in = [[[1, 2, 3, 4]], [[1, 3, 4, 2]], [[1, 3, 4, 2]]]
        >>> points, ranks = borda_aggregate(ranks_in, are_ranks=True)
        >>> points.tolist(), ranks.tolist()  # items 1 and 3 tie on 4 points; 3 has the better median
        ([[9.0, 4.0, 1.0, 4.0]], [[1, 3, 4, 2]])
    """
    if not rankings:
        raise ValueError("no rankings to aggregate")
    mats: list[FloatArray] = []
    for i, r in enumerate(rankings):
        m = np.asarray(r, dtype=np.float64)
        if m.ndim != 2 or (mats and m.shape != mats[0].shape):
            expected = mats[0].shape if mats else "(n_queries, n_pool)"
            raise ValueError(f"ranking {i} has shape {m.shape}, expected {expected}")
        if np.isnan(m).any():
            raise ValueError(f"ranking {i} contains NaN")
        mats.append(m if are_ranks else scores_to_ranks(m).astype(np.float64))
    ranks = np.stack(mats)  # (n_rankings, n_queries, n_pool)
    n_pool = ranks.shape[2]
    points = (n_pool - ranks).sum(axis=0)
    medians = np.median(ranks, axis=0)
    out = np.empty(points.shape, dtype=np.int64)
    for q in range(points.shape[0]):
        order = np.lexsort((np.arange(n_pool), medians[q], -points[q]))
        out[q, order] = np.arange(1, n_pool + 1)
    return points, out
