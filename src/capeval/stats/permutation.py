"""Fisher's randomization test (paired permutation test) for means and medians.

Under the null hypothesis that two systems are exchangeable, the two values of each query
(e.g. the rank each system gives the gold caption) may be swapped. The test statistic is
``stat(a) - stat(b)`` with ``stat`` the mean or the median (Fisher 1935; used for ranking
systems by Hodosh et al. 2013 and recommended for IR by Smucker, Allan and Carterette 2007).

* exact: every one of the ``2^n`` swap patterns (the identity included),
  ``p = #{T* extreme} / 2^n``.
* Monte Carlo: ``n_resamples`` random swap patterns, ``p = (1 + #{T* extreme}) / (1 + n_resamples)``
  (the add-one estimator that never returns 0; scipy.stats.permutation_test uses it too).

"Extreme" for the two-sided test is ``|T*| >= |T|``; the null distribution is symmetric
(swapping every pair negates ``T``), so this equals twice the smaller one-sided p-value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from capeval.stats._common import FloatArray, as_float_vector, as_generator, seed_label

__all__ = ["PermutationResult", "paired_permutation_test"]

#: Largest number of pairs enumerated exactly when ``exact`` is left to ``None`` (2^16 = 65,536 patterns).
EXACT_MAX_PAIRS = 16
#: Largest number of pairs accepted with ``exact=True`` (2^24, about 17 million patterns).
EXACT_LIMIT = 24
#: Swap patterns evaluated per block (bounds memory to block x n values).
_BLOCK = 4096
#: Relative tolerance when comparing a permuted statistic with the observed one, so that values
#: equal up to floating-point rounding count as "as extreme" (scipy.stats.permutation_test does the same).
TIE_RTOL = 1e-9

Alternative = Literal["two-sided", "greater", "less"]


@dataclass(frozen=True)
class PermutationResult:
    """Outcome of a paired permutation test.

    Attributes:
        statistic: Observed ``stat(a) - stat(b)``.
        p_value: p-value for ``alternative``.
        statistic_name: ``"mean"`` or ``"median"``.
        alternative: ``"two-sided"``, ``"greater"`` (a > b) or ``"less"``.
        n: Number of pairs.
        n_resamples: Swap patterns evaluated (``2^n`` when exact).
        exact: Whether every pattern was enumerated.
        seed: The seed recorded for Monte Carlo runs (``""`` when exact).
    """

    statistic: float
    p_value: float
    statistic_name: str
    alternative: str
    n: int
    n_resamples: int
    exact: bool
    seed: str


def _stat(values: FloatArray, name: str) -> FloatArray:
    return values.mean(axis=-1) if name == "mean" else np.median(values, axis=-1)


def _count_extreme(null: FloatArray, observed: float, alternative: str) -> int:
    tol = TIE_RTOL * max(abs(observed), 1e-300)
    if alternative == "greater":
        return int(np.sum(null >= observed - tol))
    if alternative == "less":
        return int(np.sum(null <= observed + tol))
    return int(np.sum(np.abs(null) >= abs(observed) - tol))


def paired_permutation_test(
    a: Any,
    b: Any,
    *,
    statistic: Literal["mean", "median"] = "mean",
    alternative: Alternative = "two-sided",
    n_resamples: int = 10000,
    exact: bool | None = None,
    seed: int | np.random.Generator | None = None,
) -> PermutationResult:
    """Paired permutation (Fisher randomization) test of ``stat(a) - stat(b)``.

    Args:
        a: Per-query values of system A (e.g. ranks of the gold item).
        b: Per-query values of system B, aligned with ``a``.
        statistic: ``"mean"`` or ``"median"`` of each system's values.
        alternative: ``"two-sided"``, ``"greater"`` (A's statistic larger) or ``"less"``.
        n_resamples: Random swap patterns for the Monte Carlo test.
        exact: Enumerate all ``2^n`` patterns; default: when ``n <= EXACT_MAX_PAIRS``.
        seed: Seed or Generator for the Monte Carlo test (default :data:`DEFAULT_SEED`).

    Returns:
        A :class:`PermutationResult`.

    Raises:
        ValueError: on misaligned, empty or non-finite input, or unknown options.

    Example:
        >>> r = paired_permutation_test([3, 5, 2, 8], [1, 2, 2, 3])
        >>> (r.statistic, r.p_value, r.exact)
        (2.5, 0.25, True)
    """
    x = as_float_vector(a, "a")
    y = as_float_vector(b, "b")
    if x.size != y.size:
        raise ValueError(f"a has {x.size} values but b has {y.size}; they must be paired")
    if x.size == 0:
        raise ValueError("no pairs to test")
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")
    n = x.size
    if exact is None:
        exact = n <= EXACT_MAX_PAIRS
    if exact and n > EXACT_LIMIT:
        raise ValueError(f"exact enumeration of 2^{n} swap patterns is not feasible (max {EXACT_LIMIT} pairs)")
    observed = float(_stat(x, statistic) - _stat(y, statistic))

    def null_block(swap: np.ndarray) -> FloatArray:
        xs = np.where(swap, y, x)
        ys = np.where(swap, x, y)
        return _stat(xs, statistic) - _stat(ys, statistic)

    count = 0
    if exact:
        total = 1 << n
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, _BLOCK):
            codes = np.arange(start, min(start + _BLOCK, total), dtype=np.int64)
            swap = ((codes[:, None] >> bits) & 1).astype(bool)
            count += _count_extreme(null_block(swap), observed, alternative)
        return PermutationResult(observed, count / total, statistic, alternative, n, total, True, "")
    rng = as_generator(seed)
    done = 0
    while done < n_resamples:
        size = min(_BLOCK, n_resamples - done)
        swap = rng.random((size, n)) < 0.5
        count += _count_extreme(null_block(swap), observed, alternative)
        done += size
    p_value = (count + 1) / (n_resamples + 1)
    return PermutationResult(observed, p_value, statistic, alternative, n, n_resamples, False, seed_label(seed))
