"""Fisher's randomization test against brute force and scipy.stats.permutation_test."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from capeval.stats import paired_permutation_test

scipy_stats = pytest.importorskip("scipy.stats")


def _brute_force(a: np.ndarray, b: np.ndarray, stat: str) -> float:
    f = np.mean if stat == "mean" else np.median
    observed = abs(f(a) - f(b))
    hits = 0
    patterns = list(itertools.product([False, True], repeat=a.size))
    for swap in patterns:
        s = np.array(swap)
        x, y = np.where(s, b, a), np.where(s, a, b)
        hits += abs(f(x) - f(y)) >= observed - 1e-12
    return hits / len(patterns)


CASES = [
    ([3, 5, 2, 8, 7, 1], [1, 2, 2, 3, 9, 1]),
    ([10.5, 3.25, 7.0, 8.0, 1.0, 4.0, 2.0], [9.0, 3.0, 6.5, 9.0, 2.0, 1.0, 2.5]),
    ([1, 2, 3, 4, 5, 6, 7, 8, 9], [2, 1, 4, 3, 6, 5, 8, 7, 10]),
    ([5, 17, 1, 3, 42, 2, 9, 11], [4, 20, 2, 3, 30, 1, 12, 10]),
]


@pytest.mark.parametrize(("a", "b"), CASES)
@pytest.mark.parametrize("stat", ["mean", "median"])
def test_exact_matches_brute_force_and_scipy(a: list[float], b: list[float], stat: str) -> None:
    x, y = np.asarray(a, float), np.asarray(b, float)
    ours = paired_permutation_test(x, y, statistic=stat, exact=True)
    assert ours.p_value == pytest.approx(_brute_force(x, y, stat), abs=1e-12)
    f = np.mean if stat == "mean" else np.median
    ref = scipy_stats.permutation_test(
        (x, y),
        lambda p, q, axis=-1: f(p, axis=axis) - f(q, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        vectorized=True,
    )
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_matches_scipy(alternative: str) -> None:
    x, y = np.asarray(CASES[0][0], float), np.asarray(CASES[0][1], float)
    ours = paired_permutation_test(x, y, alternative=alternative, exact=True)
    ref = scipy_stats.permutation_test(
        (x, y),
        lambda p, q, axis=-1: p.mean(axis=axis) - q.mean(axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        vectorized=True,
        alternative=alternative,
    )
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_monte_carlo_close_to_exact_and_deterministic() -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(1, 50, 14).astype(float)
    y = x + rng.normal(1.5, 4.0, 14)
    exact = paired_permutation_test(x, y, exact=True).p_value
    mc = paired_permutation_test(x, y, exact=False, n_resamples=20000, seed=3)
    assert mc.p_value == pytest.approx(exact, abs=0.015)
    np.random.seed(99)
    random.seed(99)
    again = paired_permutation_test(x, y, exact=False, n_resamples=20000, seed=3)
    assert again == mc
    other = paired_permutation_test(x, y, exact=False, n_resamples=20000, seed=4)
    assert other.p_value != mc.p_value
    gen = paired_permutation_test(x, y, exact=False, n_resamples=20000, seed=np.random.default_rng(3))
    assert gen.p_value == mc.p_value


def test_hand_computed() -> None:
    # differences 2, 3, 0, 5: only "all same direction" reaches |mean| 2.5 -> 4 of 16 patterns
    result = paired_permutation_test([3, 5, 2, 8], [1, 2, 2, 3])
    assert (result.statistic, result.p_value, result.n_resamples) == (2.5, 0.25, 16)


def test_identical_systems() -> None:
    assert paired_permutation_test([1, 2, 3], [1, 2, 3]).p_value == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"a": [1, 2], "b": [1]}, "paired"),
        ({"a": [], "b": []}, "no pairs"),
        ({"a": [1, float("nan")], "b": [1, 2]}, "index 1"),
        ({"a": [1, 2], "b": [1, 2], "statistic": "mode"}, "statistic"),
        ({"a": [1, 2], "b": [1, 2], "alternative": "both"}, "alternative"),
        ({"a": list(range(40)), "b": list(range(40)), "exact": True}, "not feasible"),
        ({"a": [1, 2], "b": [1, 2], "exact": False, "seed": -1}, "seed"),
    ],
)
def test_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        paired_permutation_test(**kwargs)
