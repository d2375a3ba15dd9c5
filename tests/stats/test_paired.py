"""Bootstrap and approximate randomization over statistics matrices."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from capeval.stats import approximate_randomization, bootstrap_ci, paired_bootstrap

scipy_stats = pytest.importorskip("scipy.stats")


def ratio_of_sums(totals: np.ndarray) -> float:
    """A corpus-level score that is not a mean of item scores (like corpus BLEU's precisions)."""
    return float(totals[0] / totals[1])


class ToyBLEU:
    """Clipped-precision x brevity-penalty on [cand_len, ref_len, correct, total] rows."""

    name = "toy-bleu"

    def corpus_score(self, totals: np.ndarray) -> float:
        cand, ref, correct, total = totals
        bp = 1.0 if cand >= ref else float(np.exp(1 - ref / cand))
        return bp * correct / total


def _toy_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    cand = rng.integers(5, 15, n).astype(float)
    ref = cand + rng.integers(-3, 4, n)
    correct = np.minimum(cand, rng.integers(0, 12, n))
    return np.column_stack([cand, ref, correct, cand])


def test_randomization_exact_matches_brute_force_nonlinear_metric() -> None:
    rng = np.random.default_rng(0)
    base, system = _toy_rows(rng, 9), _toy_rows(rng, 9)
    metric = ToyBLEU()
    ours = approximate_randomization(base, system, metric=metric, exact=True)
    observed = abs(metric.corpus_score(system.sum(0)) - metric.corpus_score(base.sum(0)))
    hits = 0
    for swap in itertools.product([False, True], repeat=9):
        s = np.array(swap)[:, None]
        a, b = np.where(s, system, base), np.where(s, base, system)
        hits += abs(metric.corpus_score(b.sum(0)) - metric.corpus_score(a.sum(0))) >= observed - 1e-12
    assert ours.p_value == pytest.approx(hits / 2**9, abs=1e-12)
    assert ours.n_resamples == 512 and ours.exact


def test_randomization_mean_matches_scipy_permutation() -> None:
    x = np.array([0.3, 0.9, 0.1, 0.5, 0.7, 0.2, 0.8, 0.4, 0.6, 0.35])
    y = np.array([0.5, 0.8, 0.4, 0.5, 0.9, 0.1, 0.9, 0.6, 0.65, 0.3])
    ours = approximate_randomization(x[:, None], y[:, None], exact=True)
    ref = scipy_stats.permutation_test(
        (y, x),
        lambda p, q, axis=-1: p.mean(axis=axis) - q.mean(axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        vectorized=True,
    )
    assert ours.delta == pytest.approx(ref.statistic)
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomization_monte_carlo_close_to_exact() -> None:
    rng = np.random.default_rng(5)
    base, system = _toy_rows(rng, 14), _toy_rows(rng, 14)
    exact = approximate_randomization(base, system, metric=ToyBLEU(), exact=True).p_value
    mc = approximate_randomization(base, system, metric=ToyBLEU(), n_resamples=20000, seed=11).p_value
    assert mc == pytest.approx(exact, abs=0.015)


def test_bootstrap_recomputes_corpus_score_from_resampled_totals() -> None:
    rng = np.random.default_rng(1)
    stats = np.column_stack([rng.integers(0, 10, 30), rng.integers(1, 10, 30)]).astype(float)
    ci = bootstrap_ci(stats, metric=ratio_of_sums, n_resamples=200, seed=42)
    # Independent re-implementation: the same index draws, the ratio of resampled sums.
    draws = np.random.default_rng(42).integers(0, 30, size=(200, 30))
    naive = np.array([ratio_of_sums(stats[idx].sum(0)) for idx in draws])
    assert ci.score == pytest.approx(ratio_of_sums(stats.sum(0)))
    assert ci.mean == pytest.approx(naive.mean(), rel=1e-12)
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(naive, [0.025, 0.975])), rel=1e-12)
    # A mean of item ratios would give a different number: the corpus formula is what is resampled.
    assert ci.score != pytest.approx(float(np.mean(stats[:, 0] / stats[:, 1])))


def test_bootstrap_close_to_scipy_percentile_interval() -> None:
    values = np.random.default_rng(3).normal(0.5, 0.2, 400)
    ours = bootstrap_ci(values, n_resamples=4000, seed=1)
    ref = scipy_stats.bootstrap((values,), np.mean, n_resamples=4000, method="percentile", random_state=1)
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.004)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.004)


def test_paired_bootstrap_uses_same_indices() -> None:
    rng = np.random.default_rng(2)
    base = _toy_rows(rng, 50)
    result = paired_bootstrap(base, base.copy(), metric=ToyBLEU(), n_resamples=300, seed=9)
    assert result.delta == 0.0 and result.delta_low == 0.0 and result.delta_high == 0.0
    assert result.p_value == 1.0
    assert result.baseline.low == result.system.low


def test_paired_bootstrap_detects_a_real_difference() -> None:
    rng = np.random.default_rng(4)
    base = np.column_stack([rng.random(300), np.ones(300)])
    system = base.copy()
    system[:, 0] += 0.1
    result = paired_bootstrap(base, system, n_resamples=500, seed=1)
    assert result.delta == pytest.approx(0.1)
    assert result.delta_low > 0.09 and result.p_value < 0.01


def test_deterministic_and_independent_of_global_state() -> None:
    rng = np.random.default_rng(8)
    base, system = _toy_rows(rng, 40), _toy_rows(rng, 40)
    runs = []
    for global_seed in (0, 1):
        np.random.seed(global_seed)
        random.seed(global_seed)
        runs.append(
            (
                paired_bootstrap(base, system, metric=ToyBLEU(), n_resamples=200, seed=5),
                approximate_randomization(base, system, metric=ToyBLEU(), n_resamples=500, seed=5),
                bootstrap_ci(base, metric=ToyBLEU(), n_resamples=100, seed=5),
            )
        )
    assert runs[0] == runs[1]
    assert paired_bootstrap(base, system, metric=ToyBLEU(), n_resamples=200, seed=6) != runs[0][0]


class _Result:
    def __init__(self, stats: np.ndarray, ids: tuple) -> None:
        self.stats, self.ids = stats, ids


def test_inputs_checked() -> None:
    good = np.ones((3, 2))
    with pytest.raises(ValueError, match="shape"):
        paired_bootstrap(good, np.ones((4, 2)))
    with pytest.raises(ValueError, match="item 1, statistic 0"):
        bootstrap_ci(np.array([[1.0, 1], [np.nan, 1]]))
    with pytest.raises(ValueError, match="no items"):
        bootstrap_ci(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci(good, confidence=1.5)
    with pytest.raises(ValueError, match="n_resamples"):
        approximate_randomization(good, good, n_resamples=0)
    with pytest.raises(ValueError, match="not feasible"):
        approximate_randomization(np.ones((25, 1)), np.ones((25, 1)), exact=True)
    with pytest.raises(ValueError, match="item 2: baseline id 'c'"):
        paired_bootstrap(_Result(good, ("a", "b", "c")), _Result(good, ("a", "b", "d")))
    with pytest.raises(ValueError, match="seed"):
        bootstrap_ci(good, seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="corpus_score"):
        bootstrap_ci(good, metric=3)  # type: ignore[arg-type]
