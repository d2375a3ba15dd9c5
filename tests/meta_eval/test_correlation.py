"""Correlations against scipy.stats, on synthetic data and the Flickr8K-Expert fixture."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from capeval.meta_eval import correlate, expand_ratings, kendall_tau, load_flickr8k_expert_tsv, pearson, spearman

ss = pytest.importorskip("scipy.stats")

DATA = Path(__file__).parents[1] / "data" / "meta_eval"


def _data(seed: int, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.round(rng.random(n), 2)  # ties on the metric side
    y = np.clip(np.round(1 + 3 * x + rng.normal(0, 1, n)), 1, 4)  # a 1-4 scale, many ties
    return x, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_scipy(seed: int) -> None:
    x, y = _data(seed)
    r = pearson(x, y)
    ref = ss.pearsonr(x, y)
    assert r.coefficient == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-8)
    r = spearman(x, y)
    ref = ss.spearmanr(x, y)
    assert r.coefficient == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-8)
    for variant in ("b", "c"):
        r = kendall_tau(x, y, variant=variant)
        ref = ss.kendalltau(x, y, variant=variant, method="asymptotic")
        assert r.coefficient == pytest.approx(ref.statistic, rel=1e-12)
        assert r.p_value == pytest.approx(ref.pvalue, rel=1e-8)


def test_hand_computed_kendall() -> None:
    # x = 1,2,3,4 ; y = 1,3,2,4: 5 concordant, 1 discordant pair, no ties
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]).coefficient == pytest.approx(4 / 6)
    # tau-c with m = 2 distinct human scores: 2 (P - Q) / (n^2 (m - 1) / m)
    x, y = [0.1, 0.2, 0.3, 0.4], [1, 1, 2, 2]
    assert kendall_tau(x, y, variant="c").coefficient == pytest.approx(2 * 4 / (16 * 0.5))


def test_expand_ratings_one_row_per_rating() -> None:
    metric, human = expand_ratings([0.5, 0.1], [[4, 3, 4], [1, np.nan, 2]])
    assert metric.tolist() == [0.5, 0.5, 0.5, 0.1, 0.1]
    assert human.tolist() == [4, 3, 4, 1, 2]
    with pytest.raises(ValueError, match="item 1 has no human rating"):
        expand_ratings([0.5, 0.1], [[4.0], [np.nan]])


def test_flickr8k_fixture_spice_tau_c_equals_scipy() -> None:
    table = load_flickr8k_expert_tsv(DATA / "flickr8k_expert_dev_head300.tsv")
    ours = correlate(table.columns["spice_f"], table.ratings, method="kendall-c")
    rows_metric = np.repeat(table.columns["spice_f"], 3)
    rows_human = table.ratings.ravel()
    ref = ss.kendalltau(rows_metric, rows_human, variant="c")
    assert ours.n == 900
    assert ours.coefficient == pytest.approx(ref.statistic, rel=1e-12)


def test_system_level() -> None:
    systems = ["a", "a", "b", "b", "c", "c"]
    metric = [0.1, 0.3, 0.5, 0.7, 0.2, 0.2]
    human = [1.0, 2.0, 3.0, 4.0, 2.0, 1.0]
    r = correlate(metric, human, level="system", systems=systems, method="pearson")
    ref = ss.pearsonr([0.2, 0.6, 0.2], [1.5, 3.5, 1.5])
    assert (r.n, r.level) == (3, "system")
    assert r.coefficient == pytest.approx(ref.statistic)
    corpus = {"a": 0.25, "b": 0.55, "c": 0.15}
    r2 = correlate(corpus, human, level="system", systems=systems, method="pearson")
    assert r2.coefficient == pytest.approx(ss.pearsonr([0.25, 0.55, 0.15], [1.5, 3.5, 1.5]).statistic)
    with pytest.raises(ValueError, match="no metric score for system 'c'"):
        correlate({"a": 1.0, "b": 2.0}, human, level="system", systems=systems)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pearson([1, 2, 3], [1, 2]), "3 rows but human scores have 2"),
        (lambda: pearson([1, np.nan, 3], [1, 2, 3]), "row 1 is not finite"),
        (lambda: kendall_tau([1, 2], [1, 2], variant="a"), "variant"),
        (lambda: correlate([1, 2], [1, 2], method="tau"), "unknown correlation method"),
        (lambda: correlate([1, 2], [1, 2], level="corpus"), "level"),
        (lambda: correlate([1, 2], [1, 2], level="system"), "system label"),
        (lambda: pearson([1], [1]), "at least 2"),
    ],
)
def test_bad_input(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_constant_input_is_nan() -> None:
    assert np.isnan(pearson([1, 1, 1], [1, 2, 3]).coefficient)
    assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]).coefficient)


def _pairwise_s(x: np.ndarray, y: np.ndarray) -> float:
    """P - Q by comparing every pair (the definition; O(n^2))."""
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    return float(np.sum(sx * sy)) / 2.0


@pytest.mark.parametrize("seed", range(6))
def test_fast_kendall_equals_pairwise_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20):
        n = int(rng.integers(2, 300))
        x = np.round(rng.random(n), int(rng.integers(0, 3)))  # from all-tied to few ties
        y = rng.integers(1, int(rng.integers(2, 6)), n).astype(float)
        from capeval.meta_eval.correlation import _concordance

        assert _concordance(x, y) == _pairwise_s(x, y)
        for variant in ("b", "c"):
            ours = kendall_tau(x, y, variant=variant)
            ref = ss.kendalltau(x, y, variant=variant, method="asymptotic")
            if np.isnan(ref.statistic):
                assert np.isnan(ours.coefficient)
                continue
            assert abs(ours.coefficient - ref.statistic) <= 1e-12
            assert abs(ours.p_value - ref.pvalue) <= 1e-12


def test_kendall_large_n_is_fast_and_exact() -> None:
    rng = np.random.default_rng(7)
    x = np.round(rng.random(50_000), 3)
    y = np.round(rng.random(50_000) + x, 1)
    ours = kendall_tau(x, y, variant="b")
    ref = ss.kendalltau(x, y)
    assert abs(ours.coefficient - ref.statistic) <= 1e-12
    assert ours.n == 50_000


def test_correlation_interval_resamples_items() -> None:
    from capeval.meta_eval import correlation_interval

    x, y = _data(3, n=120)
    ci = correlation_interval(x, y, method="kendall-b", n_resamples=300, seed=1)
    assert ci.coefficient == kendall_tau(x, y).coefficient
    assert ci.low < ci.coefficient < ci.high
    assert correlation_interval(x, y, method="kendall-b", n_resamples=300, seed=1) == ci
    # items keep all their ratings: a resample of (n, 2) ratings has twice as many rows, the same items
    ratings = np.column_stack([y, np.clip(y + 1, 1, 4)])
    two = correlation_interval(x, ratings, method="kendall-c", n_resamples=50, seed=2)
    assert two.coefficient == correlate(x, ratings, method="kendall-c").coefficient
    assert two.low <= two.coefficient <= two.high
    with pytest.raises(ValueError, match="n_resamples"):
        correlation_interval(x, y, n_resamples=1)
    with pytest.raises(ValueError, match="confidence"):
        correlation_interval(x, y, confidence=1.5)
