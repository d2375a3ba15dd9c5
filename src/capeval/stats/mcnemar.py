"""McNemar's test for two systems' binary outcomes on the same queries.

Hodosh, Young and Hockenmaier (2013) compare ranking systems by whether each test query
was answered correctly (e.g. "gold item in the top 10") with McNemar's test. Only the
discordant queries matter: ``b`` (system A right, B wrong) and ``c`` (A wrong, B right).

* exact: two-sided binomial test of ``b`` against ``Binomial(b + c, 1/2)``,
  ``p = min(1, 2 * P[X <= min(b, c)])`` (McNemar 1947; statsmodels' ``mcnemar(exact=True)``).
* chi-square: ``(|b - c| - 1)^2 / (b + c)`` with Edwards' continuity correction, or
  ``(b - c)^2 / (b + c)`` without, against chi-square with one degree of freedom.

When there are no discordant queries both versions return statistic 0 and p-value 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["McNemarResult", "mcnemar", "mcnemar_table"]


@dataclass(frozen=True)
class McNemarResult:
    """Outcome of McNemar's test.

    Attributes:
        statistic: ``min(b, c)`` for the exact test, the chi-square value otherwise.
        p_value: Two-sided p-value.
        b: Queries where the first system is right and the second wrong.
        c: Queries where the first system is wrong and the second right.
        n: Number of queries.
        method: ``"exact"``, ``"chi2"`` or ``"chi2-corrected"``.
    """

    statistic: float
    p_value: float
    b: int
    c: int
    n: int
    method: str


def _binomial_two_sided(k: int, n: int) -> float:
    """``min(1, 2 P[X <= k])`` for ``X ~ Binomial(n, 1/2)``, in exact integer arithmetic."""
    if n == 0:
        return 1.0
    k = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def mcnemar_table(table: Any, *, exact: bool = True, correction: bool = True) -> McNemarResult:
    """McNemar's test from a 2x2 table ``[[both right, A right B wrong], [A wrong B right, both wrong]]``.

    Args:
        table: 2x2 non-negative integer counts (rows: system A right/wrong; columns: B right/wrong).
        exact: Binomial test (default) instead of the chi-square approximation.
        correction: Continuity correction for the chi-square version.

    Returns:
        A :class:`McNemarResult`.

    Raises:
        ValueError: if the table is not 2x2 of non-negative integers.

    Example:
        >>> r = mcnemar_table([[10, 7], [1, 12]])
        >>> (r.b, r.c, round(r.p_value, 6))
        (7, 1, 0.070312)
    """
    counts = np.asarray(table, dtype=np.float64)
    if counts.shape != (2, 2):
        raise ValueError(f"McNemar table must be 2x2, got shape {counts.shape}")
    if np.any(counts < 0) or np.any(counts != np.round(counts)) or not np.all(np.isfinite(counts)):
        raise ValueError(f"McNemar table must hold non-negative integer counts, got {counts.tolist()}")
    b, c = int(counts[0, 1]), int(counts[1, 0])
    n = int(counts.sum())
    if exact:
        return McNemarResult(float(min(b, c)), _binomial_two_sided(min(b, c), b + c), b, c, n, "exact")
    method = "chi2-corrected" if correction else "chi2"
    if b + c == 0:
        return McNemarResult(0.0, 1.0, b, c, n, method)
    diff = abs(b - c) - (1 if correction else 0)
    statistic = diff**2 / (b + c)
    # Survival function of chi-square with 1 degree of freedom: erfc(sqrt(x / 2)).
    p_value = math.erfc(math.sqrt(statistic / 2.0))
    return McNemarResult(float(statistic), float(p_value), b, c, n, method)


def mcnemar(outcomes_a: Any, outcomes_b: Any, *, exact: bool = True, correction: bool = True) -> McNemarResult:
    """McNemar's test from two aligned sequences of per-query binary outcomes.

    Args:
        outcomes_a: ``True``/1 where system A answered the query correctly.
        outcomes_b: Same for system B, aligned with ``outcomes_a``.
        exact: Binomial test (default) instead of the chi-square approximation.
        correction: Continuity correction for the chi-square version.

    Returns:
        A :class:`McNemarResult`.

    Raises:
        ValueError: on length mismatch or values other than 0/1/True/False (naming the index).

    Example:
        >>> mcnemar([1, 1, 1, 0, 1], [0, 0, 1, 0, 0]).p_value
        0.25
    """
    a = _binary(outcomes_a, "outcomes_a")
    b = _binary(outcomes_b, "outcomes_b")
    if a.shape != b.shape:
        raise ValueError(f"outcomes_a has {a.size} queries but outcomes_b has {b.size}")
    table = [
        [int(np.sum(a & b)), int(np.sum(a & ~b))],
        [int(np.sum(~a & b)), int(np.sum(~a & ~b))],
    ]
    return mcnemar_table(table, exact=exact, correction=correction)


def _binary(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of binary outcomes, got shape {array.shape}")
    as_float = array.astype(np.float64)
    bad = np.flatnonzero((as_float != 0) & (as_float != 1))
    if bad.size:
        raise ValueError(f"{name}: outcome at index {int(bad[0])} is {array[bad[0]]!r}, expected 0/1 or True/False")
    return as_float.astype(bool)
