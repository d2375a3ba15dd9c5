"""Cohen's kappa between binarised metric scores and binarised human judgments.

Hodosh et al. (2013) ask whether an automatic metric agrees with expert judgments on
"is this caption acceptable?": both sides are thresholded and agreement is measured with
Cohen's kappa, ``(p_o - p_e) / (1 - p_e)`` (Cohen 1960), over a grid of metric thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from capeval.meta_eval.correlation import FloatArray

__all__ = ["KappaGrid", "cohen_kappa", "kappa_grid"]


def cohen_kappa(labels_a: Any, labels_b: Any) -> float:
    """Cohen's kappa of two aligned label sequences (any hashable labels).

    Returns NaN when chance agreement is 1 (both raters constant and equal).

    Raises:
        ValueError: on misaligned or empty input.

    Example:
        >>> round(cohen_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]), 6)
        0.615385
    """
    a = np.asarray(labels_a)
    b = np.asarray(labels_b)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"label sequences must be 1-D and aligned, got shapes {a.shape} and {b.shape}")
    if a.size == 0:
        raise ValueError("no labels")
    categories = np.unique(np.concatenate([a, b]))
    ia = np.searchsorted(categories, a)
    ib = np.searchsorted(categories, b)
    k = categories.size
    table = np.zeros((k, k))
    np.add.at(table, (ia, ib), 1.0)
    table /= a.size
    observed = float(np.trace(table))
    expected = float(table.sum(axis=1) @ table.sum(axis=0))
    if expected >= 1.0:
        return float("nan")
    return (observed - expected) / (1.0 - expected)


@dataclass(frozen=True)
class KappaGrid:
    """Kappa for every (metric threshold, human threshold) pair.

    Attributes:
        metric_thresholds: Rows; a metric score ``>=`` the threshold counts as positive.
        human_thresholds: Columns; a human score ``>=`` the threshold counts as positive.
        kappa: ``(len(metric_thresholds), len(human_thresholds))`` matrix.
    """

    metric_thresholds: tuple[float, ...]
    human_thresholds: tuple[float, ...]
    kappa: FloatArray

    def best(self, human_threshold: float) -> tuple[float, float]:
        """``(metric threshold, kappa)`` with the highest kappa for one human threshold."""
        col = self.human_thresholds.index(human_threshold)
        values = self.kappa[:, col]
        if np.all(np.isnan(values)):
            return (float("nan"), float("nan"))
        row = int(np.nanargmax(values))
        return self.metric_thresholds[row], float(values[row])


def kappa_grid(
    metric_scores: Any,
    human_scores: Any,
    *,
    metric_thresholds: Sequence[float] | None = None,
    human_thresholds: Sequence[float] = (3.0, 4.0),
) -> KappaGrid:
    """Cohen's kappa between thresholded metric and human scores over a grid of thresholds.

    Args:
        metric_scores: One score per item.
        human_scores: One human score per item (aggregate several raters first, or expand rows).
        metric_thresholds: Metric cut-offs; default 21 evenly spaced values spanning the scores.
        human_thresholds: Human cut-offs; default 3 and 4 (Flickr8K-Expert: "describes the image
            with minor mistakes" and "describes the image").

    Returns:
        A :class:`KappaGrid`.

    Raises:
        ValueError: on misaligned or non-finite input.
    """
    m = np.asarray(metric_scores, dtype=np.float64)
    h = np.asarray(human_scores, dtype=np.float64)
    if m.ndim != 1 or m.shape != h.shape:
        raise ValueError(f"metric scores {m.shape} and human scores {h.shape} must be aligned 1-D sequences")
    for name, arr in (("metric scores", m), ("human scores", h)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise ValueError(f"{name}: item {int(bad[0])} is not finite")
    if metric_thresholds is None:
        metric_thresholds = np.linspace(float(m.min()), float(m.max()), 21).tolist()
    grid = np.empty((len(metric_thresholds), len(human_thresholds)))
    for i, mt in enumerate(metric_thresholds):
        for j, ht in enumerate(human_thresholds):
            grid[i, j] = cohen_kappa(m >= mt, h >= ht)
    return KappaGrid(tuple(float(t) for t in metric_thresholds), tuple(float(t) for t in human_thresholds), grid)
