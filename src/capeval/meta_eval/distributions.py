"""Cumulative distributions of graded human scores per system.

Hodosh et al. (2013) summarise expert judgments of each system's captions as the
percentage of test items whose score is at least ``x`` for every grade ``x`` (on the
Flickr8K-Expert 1-4 scale: "% of items scored >= 3", ...).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = ["cumulative_by_system", "cumulative_distribution"]


def cumulative_distribution(scores: Any, levels: Sequence[float] | None = None) -> dict[float, float]:
    """Fraction of scores ``>= level`` for each level (default: the distinct scores, ascending).

    Raises:
        ValueError: on empty or non-finite scores.

    Example:
        >>> cumulative_distribution([1, 2, 2, 4])
        {1.0: 1.0, 2.0: 0.75, 4.0: 0.25}
    """
    values = np.asarray(scores, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("no scores")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ValueError(f"score {int(bad[0])} is not finite")
    grid = np.unique(values) if levels is None else np.asarray(levels, dtype=np.float64)
    return {float(level): float(np.mean(values >= level)) for level in grid}


def cumulative_by_system(
    scores: Any, systems: Sequence[Hashable], levels: Sequence[float] | None = None
) -> dict[Hashable, dict[float, float]]:
    """:func:`cumulative_distribution` for each system on a shared grid of levels.

    Raises:
        ValueError: when ``scores`` and ``systems`` are not aligned.
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.shape[0] != len(systems):
        raise ValueError(f"{values.shape[0]} scores but {len(systems)} system labels")
    finite = values[np.isfinite(values)]
    grid = list(np.unique(finite)) if levels is None else list(levels)
    labels = list(systems)
    out: dict[Hashable, dict[float, float]] = {}
    for name in dict.fromkeys(labels):
        mask = np.array([s == name for s in labels])
        out[name] = cumulative_distribution(values[mask], grid)
    return out
