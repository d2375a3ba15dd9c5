"""Correlation of metric scores with human judgments: Pearson, Spearman, Kendall tau-b and tau-c.

Conventions of the caption literature, which :func:`correlate` makes explicit:

* ``level="item"``: one row per caption. When a caption has several human ratings
  (Flickr8K-Expert: three experts), the SPICE and NNEval papers use **one row per individual
  rating**, repeating the metric score (:func:`expand_ratings`); Kendall's tau-c is the
  coefficient they report for Flickr8K-Expert and COMPOSITE.
* ``level="system"``: one row per system. The metric side is the system's *corpus* score
  (e.g. corpus BLEU) when given as a mapping, otherwise the mean of its item scores; the
  human side is the mean rating of the system's captions (THumB, Kasai et al. 2022).

Coefficients are computed here from their definitions, in O(n log n) (Kendall's P - Q by
counting inversions after a sort, Knight 1966; equal to the pairwise count); p-values use the usual large-sample
distributions (t with n - 2 degrees of freedom for Pearson and Spearman, the tie-corrected
normal approximation for Kendall), the same ones scipy.stats uses by default for n > 50.
Kendall's tau-b is ``(P - Q) / sqrt((n0 - n1)(n0 - n2))``; tau-c (Stuart 1953) is
``2 (P - Q) / (n^2 (m - 1) / m)`` with ``m`` the smaller number of distinct values.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from capeval.types import FloatArray, IntArray

__all__ = [
    "METHODS",
    "CorrelationInterval",
    "CorrelationResult",
    "correlate",
    "correlation_interval",
    "expand_ratings",
    "kendall_tau",
    "pearson",
    "spearman",
    "system_means",
]


#: Names accepted by :func:`correlate` (``"kendall"`` is tau-b, scipy's default).
METHODS = ("pearson", "spearman", "kendall-b", "kendall-c", "kendall")


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation coefficient with its p-value.

    Attributes:
        method: ``"pearson"``, ``"spearman"``, ``"kendall-b"`` or ``"kendall-c"``.
        coefficient: The coefficient (NaN when undefined, e.g. a constant input).
        p_value: Two-sided p-value of "no association" (NaN when undefined).
        n: Number of rows.
        level: ``"item"`` or ``"system"`` when computed through :func:`correlate`.
    """

    method: str
    coefficient: float
    p_value: float
    n: int
    level: str = "item"


def _pair(x: Any, y: Any) -> tuple[FloatArray, FloatArray]:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"expected two 1-D sequences, got shapes {a.shape} and {b.shape}")
    if a.size != b.size:
        raise ValueError(f"metric scores have {a.size} rows but human scores have {b.size}")
    for name, arr in (("metric scores", a), ("human scores", b)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise ValueError(f"{name}: row {int(bad[0])} is not finite ({arr[bad[0]]!r})")
    if a.size < 2:
        raise ValueError(f"need at least 2 rows to correlate, got {a.size}")
    return a, b


def _t_p_value(r: float, n: int) -> float:
    if n <= 2 or not math.isfinite(r):
        return math.nan
    if abs(r) >= 1.0:
        return 0.0
    from scipy.special import stdtr

    t = abs(r) * math.sqrt((n - 2) / (1.0 - r * r))
    return float(2.0 * stdtr(n - 2, -t))


def pearson(x: Any, y: Any) -> CorrelationResult:
    """Pearson's r with the two-sided t-test p-value.

    Example:
        >>> round(pearson([1, 2, 3, 4], [1, 3, 2, 4]).coefficient, 6)
        0.8
    """
    a, b = _pair(x, y)
    da, db = a - a.mean(), b - b.mean()
    denom = math.sqrt(float(da @ da) * float(db @ db))
    r = float(da @ db) / denom if denom > 0 else math.nan
    if math.isfinite(r):
        r = max(-1.0, min(1.0, r))
    return CorrelationResult("pearson", r, _t_p_value(r, a.size), int(a.size))


def _average_ranks(values: FloatArray) -> FloatArray:
    """Ranks 1..n with ties given the mean of the ranks they span (vectorized, O(n log n))."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)  # 1-based rank of the last member of each group of ties
    mean_rank = ends - (counts - 1) / 2.0
    return mean_rank[inverse.reshape(-1)].astype(np.float64)


def spearman(x: Any, y: Any) -> CorrelationResult:
    """Spearman's rho (Pearson's r of average ranks) with the t-test p-value.

    Example:
        >>> spearman([1, 2, 3, 4], [10, 20, 30, 100]).coefficient
        1.0
    """
    a, b = _pair(x, y)
    r = pearson(_average_ranks(a), _average_ranks(b)).coefficient
    return CorrelationResult("spearman", r, _t_p_value(r, a.size), int(a.size))


def _tie_sums(values: FloatArray) -> tuple[float, float, float, float]:
    """For groups of tied values of size t: sums of t(t-1)/2, t(t-1)(2t+5), t(t-1)(t-2), t(t-1)."""
    _, counts = np.unique(values, return_counts=True)
    t = counts.astype(np.float64)
    return (
        float(np.sum(t * (t - 1) / 2)),
        float(np.sum(t * (t - 1) * (2 * t + 5))),
        float(np.sum(t * (t - 1) * (t - 2))),
        float(np.sum(t * (t - 1))),
    )


def _dense_ranks(values: FloatArray) -> IntArray:
    """0-based ranks with equal values sharing one rank (0 .. distinct - 1)."""
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _inversions(values: IntArray) -> int:
    """Pairs ``i < j`` with ``values[i] > values[j]``, by a vectorized bottom-up merge sort.

    ``values`` are non-negative integers. At each level the array is sorted within blocks of
    ``width``; every element of the right half of a ``2 width`` block counts the elements of
    its left half that are larger (one ``searchsorted`` over all blocks at once), then the
    blocks are merged by sorting ``block * span + value``. O(n log^2 n) in numpy calls.
    """
    n = values.size
    span = int(values.max()) + 1 if n else 1
    current = values.astype(np.int64)
    index = np.arange(n, dtype=np.int64)
    total = 0
    width = 1
    while width < n:
        block = index // (2 * width)
        keys = block * span + current
        right = (index // width) % 2 == 1
        left_keys = keys[~right]
        upper = np.searchsorted(left_keys, block[right] * span + span, side="left")
        above = np.searchsorted(left_keys, keys[right], side="right")
        total += int(np.sum(upper - above))
        current = np.sort(keys) - block * span
        width *= 2
    return total


def _concordance(a: FloatArray, b: FloatArray) -> float:
    """``P - Q``: concordant minus discordant pairs, in O(n log^2 n).

    Sorting by ``(a, b)`` leaves a discordant pair exactly where ``b`` is inverted; pairs tied
    in ``a`` are in ``b`` order and pairs tied in ``b`` are no inversion. Then
    ``P = n0 - ties(a) - ties(b) + ties(a and b) - Q``.
    """
    n = a.size
    ra, rb = _dense_ranks(a), _dense_ranks(b)
    order = np.lexsort((rb, ra))
    discordant = _inversions(rb[order])
    n0 = n * (n - 1) // 2

    def tied(*keys: IntArray) -> int:
        joint = keys[0] if len(keys) == 1 else keys[0] * (int(keys[1].max()) + 1) + keys[1]
        counts = np.unique(joint, return_counts=True)[1].astype(np.int64)
        return int(np.sum(counts * (counts - 1) // 2))

    concordant = n0 - tied(ra) - tied(rb) + tied(ra, rb) - discordant
    return float(concordant - discordant)


def kendall_tau(x: Any, y: Any, *, variant: str = "b") -> CorrelationResult:
    """Kendall's tau-b or tau-c with the tie-corrected normal-approximation p-value.

    Args:
        x: Metric scores.
        y: Human scores, aligned with ``x``.
        variant: ``"b"`` (ties adjusted; scipy's default) or ``"c"`` (Stuart's tau-c, for
            rectangular tables such as a continuous metric against a 1-4 scale).

    Returns:
        A :class:`CorrelationResult` named ``"kendall-b"`` or ``"kendall-c"``.

    Raises:
        ValueError: on misaligned or non-finite input or an unknown variant.

    Example:
        >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]).coefficient
        0.6666666666666666
    """
    if variant not in ("b", "c"):
        raise ValueError(f"Kendall variant must be 'b' or 'c', got {variant!r}")
    a, b = _pair(x, y)
    n = a.size
    s = _concordance(a, b)
    n0 = n * (n - 1) / 2.0
    tx, vx, x3, x2 = _tie_sums(a)
    ty, vy, y3, y2 = _tie_sums(b)
    if variant == "b":
        denom = math.sqrt((n0 - tx) * (n0 - ty))
        tau = s / denom if denom > 0 else math.nan
    else:
        m = min(np.unique(a).size, np.unique(b).size)
        tau = 2.0 * s / (n * n * (m - 1) / m) if m > 1 else math.nan
    if math.isfinite(tau):
        tau = max(-1.0, min(1.0, tau))
    # Variance of S under independence with ties (Kendall 1970, eq. 4.3).
    var = (n * (n - 1) * (2 * n + 5) - vx - vy) / 18.0
    if n > 2:
        var += x3 * y3 / (9.0 * n * (n - 1) * (n - 2))
    var += x2 * y2 / (2.0 * n * (n - 1))
    p_value = math.erfc(abs(s) / math.sqrt(2.0 * var)) if var > 0 and math.isfinite(tau) else math.nan
    return CorrelationResult(f"kendall-{variant}", tau, p_value, int(n))


def expand_ratings(metric_scores: Any, ratings: Any) -> tuple[FloatArray, FloatArray]:
    """One row per individual human rating, the metric score repeated (NaN ratings dropped).

    Args:
        metric_scores: ``(n_items,)`` metric scores.
        ratings: ``(n_items, n_raters)`` human ratings; NaN marks a missing rating.

    Returns:
        ``(metric_rows, rating_rows)``, item-major order (all ratings of item 0 first).

    Raises:
        ValueError: on misaligned shapes or an item without any rating (naming the item).

    Example:
        >>> expand_ratings([0.5, 0.1], [[4, 3], [1, float("nan")]])
        (array([0.5, 0.5, 0.1]), array([4., 3., 1.]))
    """
    scores = np.asarray(metric_scores, dtype=np.float64)
    table = np.asarray(ratings, dtype=np.float64)
    if table.ndim == 1:
        table = table[:, None]
    if table.ndim != 2 or table.shape[0] != scores.shape[0]:
        raise ValueError(f"{scores.shape[0]} metric scores but ratings of shape {table.shape}")
    present = np.isfinite(table)
    empty = np.flatnonzero(~present.any(axis=1))
    if empty.size:
        raise ValueError(f"item {int(empty[0])} has no human rating")
    rows, _ = np.nonzero(present)
    return scores[rows], table[present]


def system_means(values: Any, systems: Sequence[Hashable]) -> dict[Hashable, float]:
    """Mean of ``values`` per system, systems in first-appearance order."""
    array = np.asarray(values, dtype=np.float64)
    if array.shape[0] != len(systems):
        raise ValueError(f"{array.shape[0]} values but {len(systems)} system labels")
    groups: dict[Hashable, list[int]] = {}
    for i, name in enumerate(systems):
        groups.setdefault(name, []).append(i)
    return {name: float(array[idx].mean()) for name, idx in groups.items()}


def _coefficient(method: str, x: FloatArray, y: FloatArray) -> CorrelationResult:
    if method == "pearson":
        return pearson(x, y)
    if method == "spearman":
        return spearman(x, y)
    if method in ("kendall", "kendall-b"):
        return kendall_tau(x, y, variant="b")
    if method == "kendall-c":
        return kendall_tau(x, y, variant="c")
    raise ValueError(f"unknown correlation method {method!r}; choose from {', '.join(METHODS)}")


def correlate(
    metric_scores: Any,
    human_scores: Any,
    *,
    method: str = "kendall-c",
    level: str = "item",
    systems: Sequence[Hashable] | None = None,
) -> CorrelationResult:
    """Correlate metric scores with human scores at item or system level.

    Args:
        metric_scores: Item level: ``(n,)`` scores. System level: ``(n,)`` item scores (averaged
            per system) or a mapping ``system -> corpus score``.
        human_scores: ``(n,)`` ratings, or ``(n, n_raters)`` with NaN for missing ratings; at item
            level each rating becomes its own row, at system level ratings are averaged.
        method: One of :data:`METHODS`.
        level: ``"item"`` or ``"system"``.
        systems: System label of each item (required for ``level="system"``).

    Returns:
        A :class:`CorrelationResult`.

    Raises:
        ValueError: on misaligned inputs, unknown options, or a system missing on one side.

    Example:
        >>> correlate([0.1, 0.2, 0.9, 0.8], [1, 2, 4, 4], method="pearson").n
        4
        >>> r = correlate([0.1, 0.2, 0.9, 0.8], [1, 2, 4, 4], level="system", systems="aabb", method="pearson")
        >>> (r.n, r.coefficient)
        (2, 1.0)
    """
    if level not in ("item", "system"):
        raise ValueError(f"level must be 'item' or 'system', got {level!r}")
    human = np.asarray(human_scores, dtype=np.float64)
    if level == "item":
        if isinstance(metric_scores, Mapping):
            raise ValueError("item-level correlation needs one metric score per item, not a mapping")
        x, y = expand_ratings(metric_scores, human) if human.ndim == 2 else (metric_scores, human)
        return _coefficient(method, np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    if systems is None:
        raise ValueError("system-level correlation needs the system label of every item")
    per_item_human = np.nanmean(human, axis=1) if human.ndim == 2 else human
    human_by_system = system_means(per_item_human, systems)
    if isinstance(metric_scores, Mapping):
        metric_by_system = {k: float(v) for k, v in metric_scores.items()}
    else:
        metric_by_system = system_means(metric_scores, systems)
    missing = [s for s in human_by_system if s not in metric_by_system]
    if missing:
        raise ValueError(f"no metric score for system {missing[0]!r}")
    names = list(human_by_system)
    x = np.array([metric_by_system[s] for s in names])
    y = np.array([human_by_system[s] for s in names])
    r = _coefficient(method, x, y)
    return CorrelationResult(r.method, r.coefficient, r.p_value, r.n, "system")


@dataclass(frozen=True)
class CorrelationInterval:
    """A percentile bootstrap interval of an item-level correlation.

    Attributes:
        method: Coefficient (one of :data:`METHODS`).
        coefficient: The coefficient on the data itself.
        low: Lower bound.
        high: Upper bound.
        confidence: Coverage (e.g. 0.95).
        n_resamples: Bootstrap resamples.
        seed: Seed of the resampling.
    """

    method: str
    coefficient: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    seed: int


def correlation_interval(
    metric_scores: Any,
    human_scores: Any,
    *,
    method: str = "kendall-c",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CorrelationInterval:
    """Percentile bootstrap interval of an item-level correlation, resampling items.

    An item keeps all its ratings when drawn (with ``(n, n_raters)`` ratings each draw is
    expanded to one row per rating, as :func:`correlate` does). Each resample costs one
    O(n log n) coefficient.

    Raises:
        ValueError: on misaligned input, an unknown method, fewer than 2 resamples or a
            confidence outside (0, 1).

    Example:
        >>> ci = correlation_interval([1, 2, 3, 4, 5, 6], [1, 2, 2, 4, 3, 6], method="pearson", n_resamples=200)
        >>> ci.low <= ci.coefficient <= ci.high
        True
    """
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2, got {n_resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    scores = np.asarray(metric_scores, dtype=np.float64)
    human = np.asarray(human_scores, dtype=np.float64)
    point = correlate(scores, human, method=method).coefficient
    rng = np.random.default_rng(seed)
    n = scores.shape[0]
    values = np.empty(n_resamples)
    for k in range(n_resamples):
        pick = rng.integers(0, n, size=n)
        values[k] = correlate(scores[pick], human[pick], method=method).coefficient
    alpha = (1.0 - confidence) / 2.0
    low, high = np.nanquantile(values, [alpha, 1.0 - alpha])
    return CorrelationInterval(method, point, float(low), float(high), confidence, n_resamples, seed)
