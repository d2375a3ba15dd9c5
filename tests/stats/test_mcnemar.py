"""McNemar's test against statsmodels and a hand-computed binomial tail."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from capeval.stats import mcnemar, mcnemar_table

statsmodels_tables = pytest.importorskip("statsmodels.stats.contingency_tables")

TABLES = [
    [[10, 7], [1, 12]],
    [[0, 0], [0, 0]],
    [[5, 0], [9, 3]],
    [[101, 121], [59, 33]],
    [[794, 86], [150, 570]],
    [[3, 25], [25, 4]],
    [[0, 1], [0, 0]],
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize(("exact", "correction"), [(True, True), (False, True), (False, False)])
def test_matches_statsmodels(table: list[list[int]], exact: bool, correction: bool) -> None:
    ours = mcnemar_table(table, exact=exact, correction=correction)
    b, c = table[0][1], table[1][0]
    if b + c == 0:
        assert (ours.statistic, ours.p_value) == (0.0, 1.0)
        return
    ref = statsmodels_tables.mcnemar(np.array(table), exact=exact, correction=correction)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_exact_hand_computed() -> None:
    # b=7, c=1: 2 * (C(8,0) + C(8,1)) / 2^8 = 18 / 256
    assert mcnemar_table([[10, 7], [1, 12]]).p_value == pytest.approx(18 / 256, abs=1e-15)


def test_brute_force_sign_flips() -> None:
    # The exact test equals the permutation distribution of b - c over the discordant pairs.
    b, c = 6, 2
    n = b + c
    observed = abs(b - c)
    extreme = sum(1 for signs in itertools.product([0, 1], repeat=n) if abs(2 * sum(signs) - n) >= observed)
    assert mcnemar_table([[0, b], [c, 0]]).p_value == pytest.approx(extreme / 2**n)


def test_from_outcomes() -> None:
    a = [1, 1, 1, 0, 1, 0, 1, 1]
    b = [0, 0, 1, 0, 0, 1, 1, 0]
    result = mcnemar(a, b)
    assert (result.b, result.c, result.n) == (4, 1, 8)
    assert mcnemar([True, False], [True, False]).p_value == 1.0


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ([1, 0, 2], [1, 0, 1], "index 2"),
        ([1, 0], [1, 0, 1], "queries"),
        ([[1, 0]], [[1, 0]], "1-D"),
    ],
)
def test_bad_outcomes(a: object, b: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mcnemar(a, b)


def test_bad_table() -> None:
    with pytest.raises(ValueError, match="2x2"):
        mcnemar_table([[1, 2, 3]])
    with pytest.raises(ValueError, match="non-negative integer"):
        mcnemar_table([[1, -2], [3, 4]])
