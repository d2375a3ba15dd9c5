"""Shared helpers of the significance tests: random generators, input checks, metric adapters.

Randomness is always passed in (an ``int`` seed or a :class:`numpy.random.Generator`); nothing
here reads or changes NumPy's or Python's global random state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from capeval.types import FloatArray

__all__ = [
    "DEFAULT_SEED",
    "CorpusScorer",
    "FloatArray",
    "MetricLike",
    "as_float_vector",
    "as_generator",
    "as_stats_matrix",
    "corpus_scorer",
    "metric_label",
    "seed_label",
]


#: Seed used when the caller gives none, so that a result is reproducible by default
#: (sacrebleu's significance module uses the same value for its bootstrap).
DEFAULT_SEED = 12345


@runtime_checkable
class CorpusScorer(Protocol):
    """Anything with ``corpus_score(totals) -> float``: every capeval metric."""

    def corpus_score(self, totals: FloatArray) -> float:
        """Primary corpus score from the column sums of a statistics matrix."""
        ...


#: A metric object, or a plain function from column sums to a corpus score.
MetricLike = CorpusScorer | Callable[[FloatArray], float]


def as_generator(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A private generator for ``seed`` (``None`` means :data:`DEFAULT_SEED`).

    Raises:
        ValueError: if ``seed`` is neither an integer, a Generator nor ``None``.
    """
    if seed is None:
        return np.random.default_rng(DEFAULT_SEED)
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return np.random.default_rng(int(seed))
    raise ValueError(f"seed must be an int, a numpy.random.Generator or None, got {type(seed).__name__}")


def seed_label(seed: int | np.random.Generator | None) -> str:
    """How the seed is recorded in results and signatures."""
    if seed is None:
        return str(DEFAULT_SEED)
    if isinstance(seed, np.random.Generator):
        return "generator"
    return str(int(seed))


def as_float_vector(values: Any, name: str) -> FloatArray:
    """A finite 1-D float array; ``ValueError`` naming the first bad index otherwise."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected numbers ({exc})") from None
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of numbers, got shape {array.shape}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name}: value at index {int(bad[0])} is not finite ({array[bad[0]]!r})")
    return array


def as_stats_matrix(stats: Any, name: str) -> FloatArray:
    """A finite ``(n_items, n_stats)`` matrix from an array or a ``CorpusResult``."""
    raw = getattr(stats, "stats", stats)
    try:
        array = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected a statistics matrix ({exc})") from None
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise ValueError(f"{name}: expected an (n_items, n_stats) matrix, got shape {array.shape}")
    if array.shape[0] == 0:
        raise ValueError(f"{name}: no items")
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        row, col = (int(v) for v in bad[0])
        raise ValueError(f"{name}: item {row}, statistic {col} is not finite ({array[row, col]!r})")
    return array


def corpus_scorer(metric: MetricLike | None, n_items: int, n_stats: int) -> Callable[[FloatArray], float]:
    """A function ``totals -> score`` for a metric object, a callable, or ``None``.

    ``None`` means plain per-item values: a single value column (corpus score = mean over the
    ``n_items`` rows of a resample) or ``[value, count]`` rows (corpus score = sum / count).

    Raises:
        ValueError: if ``metric`` is neither a metric object nor a callable.
    """
    if metric is None:
        if n_stats >= 2:
            return lambda totals: float(totals[0] / totals[1]) if totals[1] else 0.0
        return lambda totals: float(totals[0] / n_items)
    score = getattr(metric, "corpus_score", None)
    if callable(score):
        return lambda totals: float(score(totals))
    if callable(metric):
        return lambda totals: float(metric(totals))
    raise ValueError(f"metric must have corpus_score(totals) or be callable, got {type(metric).__name__}")


def metric_label(metric: MetricLike | None) -> str:
    """A short name for a metric in results (registry key when the object has one)."""
    if metric is None:
        return "mean"
    name = getattr(metric, "name", None) or getattr(metric, "__name__", None)
    return str(name) if name else type(metric).__name__
