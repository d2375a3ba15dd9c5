"""Bootstrap confidence intervals and paired significance tests for any capeval metric.

Every capeval metric's corpus score is ``metric.corpus_score(stats.sum(axis=0))`` for an
``(n_items, n_stats)`` matrix of per-item sufficient statistics (``CorpusResult.stats``).
Resampling therefore works on rows of that matrix and recomputes the corpus score from the
resampled column sums, so corpus-level BLEU (brevity penalty over the whole corpus) and
CIDEr-D (document frequencies computed once by ``prepare()`` on the full reference set and
frozen in the rows) are handled exactly like mean-of-items metrics, with no metric-specific code.

* :func:`bootstrap_ci`: percentile interval for one system (Efron and Tibshirani 1993).
* :func:`paired_bootstrap`: both systems resampled with the *same* item indices (Koehn 2004);
  intervals for each system and for the difference, plus a two-sided p-value from the
  bootstrap distribution of the difference shifted to the null,
  ``p = (1 + #{|d* - d| >= |d|}) / (1 + B)``.
* :func:`approximate_randomization`: each item's two rows are swapped with probability 1/2
  (Noreen 1989; Riezler and Maxwell 2005), ``p = (1 + #{|d*| >= |d|}) / (1 + R)``; with
  ``exact=True`` all ``2^n`` swap patterns are enumerated and ``p = #{|d*| >= |d|} / 2^n``.

Randomness comes only from the ``seed`` argument (an int or a ``numpy.random.Generator``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from capeval.stats._common import (
    FloatArray,
    MetricLike,
    as_generator,
    as_stats_matrix,
    corpus_scorer,
    metric_label,
    seed_label,
)

__all__ = [
    "BootstrapCI",
    "PairedBootstrapResult",
    "RandomizationResult",
    "approximate_randomization",
    "bootstrap_ci",
    "paired_bootstrap",
]

#: Default confidence level of the intervals.
DEFAULT_CONFIDENCE = 0.95
#: Resamples per block when building resampled column sums (bounds memory to block x n).
_BLOCK = 256
#: Relative tolerance for "as extreme as observed" (floating-point rounding of re-summed totals).
TIE_RTOL = 1e-9
#: Largest number of items for exact enumeration of approximate randomization (2^20 patterns).
EXACT_MAX_ITEMS = 20


@dataclass(frozen=True)
class BootstrapCI:
    """A bootstrap percentile confidence interval for one corpus score.

    Attributes:
        metric: Name of the metric.
        score: Corpus score on the full data.
        low: Lower end of the interval.
        high: Upper end of the interval.
        mean: Mean of the bootstrap distribution.
        std: Standard deviation of the bootstrap distribution (the standard error estimate).
        confidence: Confidence level, e.g. 0.95.
        n_items: Items per resample.
        n_resamples: Number of resamples.
        seed: Seed used (as recorded text).
    """

    metric: str
    score: float
    low: float
    high: float
    mean: float
    std: float
    confidence: float
    n_items: int
    n_resamples: int
    seed: str


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap comparison of a system against a baseline.

    Attributes:
        baseline: Interval of the baseline's corpus score.
        system: Interval of the system's corpus score.
        delta: ``system - baseline`` on the full data.
        delta_low: Lower end of the interval of the difference.
        delta_high: Upper end of the interval of the difference.
        p_value: Two-sided p-value for "no difference".
        n_resamples: Number of resamples.
        seed: Seed used.
    """

    baseline: BootstrapCI
    system: BootstrapCI
    delta: float
    delta_low: float
    delta_high: float
    p_value: float
    n_resamples: int
    seed: str


@dataclass(frozen=True)
class RandomizationResult:
    """Approximate (or exact) randomization test between two systems.

    Attributes:
        metric: Name of the metric.
        baseline_score: Baseline corpus score.
        system_score: System corpus score.
        delta: ``system_score - baseline_score``.
        p_value: Two-sided p-value.
        n_resamples: Swap patterns evaluated (``2^n`` when exact).
        exact: Whether all swap patterns were enumerated.
        seed: Seed used (``""`` when exact).
    """

    metric: str
    baseline_score: float
    system_score: float
    delta: float
    p_value: float
    n_resamples: int
    exact: bool
    seed: str


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def _check_resamples(n_resamples: int) -> None:
    if int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples}")


def _percentiles(values: FloatArray, confidence: float) -> tuple[float, float]:
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _bootstrap_totals(matrices: list[FloatArray], n_resamples: int, rng: np.random.Generator) -> list[FloatArray]:
    """Column sums of ``n_resamples`` bootstrap resamples, same indices for every matrix."""
    n = matrices[0].shape[0]
    out = [np.empty((n_resamples, m.shape[1])) for m in matrices]
    for start in range(0, n_resamples, _BLOCK):
        stop = min(start + _BLOCK, n_resamples)
        indices = rng.integers(0, n, size=(stop - start, n))
        counts = np.stack([np.bincount(row, minlength=n) for row in indices]).astype(np.float64)
        for matrix, target in zip(matrices, out, strict=True):
            target[start:stop] = counts @ matrix
    return out


def _scores(scorer: Callable[[FloatArray], float], totals: FloatArray) -> FloatArray:
    return np.fromiter((scorer(row) for row in totals), dtype=np.float64, count=totals.shape[0])


def _ci(
    name: str, scorer: Callable[[FloatArray], float], full: FloatArray, boot: FloatArray, confidence: float, seed: str
) -> BootstrapCI:
    low, high = _percentiles(boot, confidence)
    return BootstrapCI(
        metric=name,
        score=scorer(full.sum(axis=0)),
        low=low,
        high=high,
        mean=float(boot.mean()),
        std=float(boot.std(ddof=1)) if boot.size > 1 else 0.0,
        confidence=confidence,
        n_items=int(full.shape[0]),
        n_resamples=int(boot.size),
        seed=seed,
    )


def bootstrap_ci(
    stats: Any,
    *,
    metric: MetricLike | None = None,
    n_resamples: int = 1000,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | np.random.Generator | None = None,
) -> BootstrapCI:
    """Percentile bootstrap interval of a corpus score.

    Args:
        stats: ``(n_items, n_stats)`` statistics matrix or a ``CorpusResult``.
        metric: The metric (its ``corpus_score``), a callable ``totals -> score``, or ``None`` for
            plain per-item values (one column, or ``[value, count]`` rows).
        n_resamples: Number of bootstrap resamples.
        confidence: Confidence level.
        seed: Seed or Generator (default :data:`capeval.stats.DEFAULT_SEED`).

    Returns:
        A :class:`BootstrapCI`.

    Raises:
        ValueError: on an empty or non-finite matrix or bad options.

    Example:
        >>> ci = bootstrap_ci([[1.0, 1], [0.0, 1], [1.0, 1], [1.0, 1]], n_resamples=200, seed=1)
        >>> ci.score, ci.low <= ci.score <= ci.high
        (0.75, True)
    """
    matrix = as_stats_matrix(stats, "stats")
    _check_resamples(n_resamples)
    _check_confidence(confidence)
    scorer = corpus_scorer(metric, matrix.shape[0], matrix.shape[1])
    rng = as_generator(seed)
    (totals,) = _bootstrap_totals([matrix], int(n_resamples), rng)
    return _ci(metric_label(metric), scorer, matrix, _scores(scorer, totals), confidence, seed_label(seed))


def _pair(baseline: Any, system: Any) -> tuple[FloatArray, FloatArray]:
    base = as_stats_matrix(baseline, "baseline")
    sys_ = as_stats_matrix(system, "system")
    if base.shape != sys_.shape:
        raise ValueError(
            f"baseline statistics have shape {base.shape} but system statistics {sys_.shape}; "
            "both systems must be scored on the same items with the same metric"
        )
    base_ids = getattr(baseline, "ids", None)
    sys_ids = getattr(system, "ids", None)
    if base_ids is not None and sys_ids is not None and tuple(base_ids) != tuple(sys_ids):
        first = next(i for i, (p, q) in enumerate(zip(base_ids, sys_ids, strict=False)) if p != q)
        raise ValueError(f"item {first}: baseline id {base_ids[first]!r} but system id {sys_ids[first]!r}")
    return base, sys_


def paired_bootstrap(
    baseline: Any,
    system: Any,
    *,
    metric: MetricLike | None = None,
    n_resamples: int = 1000,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | np.random.Generator | None = None,
) -> PairedBootstrapResult:
    """Paired bootstrap of two systems' corpus scores on the same items.

    Args:
        baseline: Baseline statistics matrix or ``CorpusResult``.
        system: System statistics (same shape and item order).
        metric: The metric, a callable ``totals -> score``, or ``None`` for plain values.
        n_resamples: Number of bootstrap resamples.
        confidence: Confidence level of the intervals.
        seed: Seed or Generator (default :data:`capeval.stats.DEFAULT_SEED`).

    Returns:
        A :class:`PairedBootstrapResult`.

    Raises:
        ValueError: on misaligned inputs (naming the first differing item id) or bad options.
    """
    base, sys_ = _pair(baseline, system)
    _check_resamples(n_resamples)
    _check_confidence(confidence)
    scorer = corpus_scorer(metric, base.shape[0], base.shape[1])
    rng = as_generator(seed)
    label = seed_label(seed)
    base_totals, sys_totals = _bootstrap_totals([base, sys_], int(n_resamples), rng)
    base_boot = _scores(scorer, base_totals)
    sys_boot = _scores(scorer, sys_totals)
    name = metric_label(metric)
    base_ci = _ci(name, scorer, base, base_boot, confidence, label)
    sys_ci = _ci(name, scorer, sys_, sys_boot, confidence, label)
    delta = sys_ci.score - base_ci.score
    deltas = sys_boot - base_boot
    low, high = _percentiles(deltas, confidence)
    tol = TIE_RTOL * max(abs(delta), 1e-300)
    extreme = int(np.sum(np.abs(deltas - delta) >= abs(delta) - tol))
    p_value = (extreme + 1) / (n_resamples + 1)
    return PairedBootstrapResult(base_ci, sys_ci, delta, low, high, p_value, int(n_resamples), label)


def approximate_randomization(
    baseline: Any,
    system: Any,
    *,
    metric: MetricLike | None = None,
    n_resamples: int = 10000,
    exact: bool = False,
    seed: int | np.random.Generator | None = None,
) -> RandomizationResult:
    """Approximate randomization test of ``score(system) - score(baseline)``.

    Args:
        baseline: Baseline statistics matrix or ``CorpusResult``.
        system: System statistics (same shape and item order).
        metric: The metric, a callable ``totals -> score``, or ``None`` for plain values.
        n_resamples: Random swap patterns (ignored when ``exact``).
        exact: Enumerate all ``2^n`` swap patterns (at most :data:`EXACT_MAX_ITEMS` items).
        seed: Seed or Generator (default :data:`capeval.stats.DEFAULT_SEED`).

    Returns:
        A :class:`RandomizationResult`.

    Raises:
        ValueError: on misaligned inputs, too many items for ``exact``, or bad options.

    Example:
        >>> r = approximate_randomization([[0.0], [0.0], [1.0]], [[1.0], [1.0], [1.0]], exact=True)
        >>> round(r.delta, 4), r.p_value
        (0.6667, 0.5)
    """
    base, sys_ = _pair(baseline, system)
    _check_resamples(n_resamples)
    n = base.shape[0]
    if exact and n > EXACT_MAX_ITEMS:
        raise ValueError(f"exact randomization over 2^{n} swap patterns is not feasible (max {EXACT_MAX_ITEMS} items)")
    scorer = corpus_scorer(metric, n, base.shape[1])
    base_sum, sys_sum = base.sum(axis=0), sys_.sum(axis=0)
    base_score, sys_score = scorer(base_sum), scorer(sys_sum)
    delta = sys_score - base_score
    tol = TIE_RTOL * max(abs(delta), 1e-300)
    diff = sys_ - base  # swapping item i moves diff[i] from the system's totals to the baseline's

    def count_block(swap: np.ndarray) -> int:
        moved = swap.astype(np.float64) @ diff
        d = _scores(scorer, sys_sum - moved) - _scores(scorer, base_sum + moved)
        return int(np.sum(np.abs(d) >= abs(delta) - tol))

    count = 0
    if exact:
        total = 1 << n
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, 4096):
            codes = np.arange(start, min(start + 4096, total), dtype=np.int64)
            count += count_block(((codes[:, None] >> bits) & 1).astype(bool))
        return RandomizationResult(metric_label(metric), base_score, sys_score, delta, count / total, total, True, "")
    rng = as_generator(seed)
    done = 0
    while done < n_resamples:
        size = min(_BLOCK * 16, n_resamples - done)
        count += count_block(rng.random((size, n)) < 0.5)
        done += size
    p_value = (count + 1) / (n_resamples + 1)
    return RandomizationResult(
        metric_label(metric), base_score, sys_score, delta, p_value, int(n_resamples), False, seed_label(seed)
    )
