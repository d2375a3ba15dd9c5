"""Pairwise accuracy, distractor accuracy, Cohen's kappa and cumulative distributions."""

from __future__ import annotations

import numpy as np
import pytest

from capeval.meta_eval import (
    cohen_kappa,
    cumulative_by_system,
    cumulative_distribution,
    distractor_accuracy,
    kappa_grid,
    pairwise_accuracy,
)


def test_pairwise_tie_rules_hand_computed() -> None:
    a = [0.9, 0.2, 0.5, 0.4, 0.7]
    b = [0.1, 0.4, 0.5, 0.3, 0.1]
    human = [3, -1, 2, 0, -4]  # agree, agree, metric tie, human tie, disagree
    cats = ["HC", "HI", "HM", "MM", "HC"]
    r = pairwise_accuracy(a, b, human, categories=cats)
    assert (r.n, r.metric_ties, r.human_ties) == (4, 1, 1)
    assert r.accuracy == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert r.by_category == {"HC": (0.5, 2), "HI": (1.0, 1), "HM": (0.5, 1)}
    assert pairwise_accuracy(a, b, human, metric_ties="wrong").accuracy == pytest.approx(2 / 4)
    assert pairwise_accuracy(a, b, human, metric_ties="right").accuracy == pytest.approx(3 / 4)
    assert pairwise_accuracy(a, b, human, metric_ties="drop").accuracy == pytest.approx(2 / 3)
    assert pairwise_accuracy(a, b, human, human_ties="half").accuracy == pytest.approx(3 / 5)
    r1 = pairwise_accuracy(a, b, human, human_ties="random", seed=1)
    r2 = pairwise_accuracy(a, b, human, human_ties="random", seed=1)
    assert r1 == r2 and r1.n == 5


def test_pairwise_errors() -> None:
    with pytest.raises(ValueError, match="metric_ties"):
        pairwise_accuracy([1], [0], [1], metric_ties="coin")
    with pytest.raises(ValueError, match="scores_b has 2 entries"):
        pairwise_accuracy([1], [0, 1], [1])
    with pytest.raises(ValueError, match="no pair left"):
        pairwise_accuracy([1], [1], [1], metric_ties="drop")


def test_distractor_accuracy() -> None:
    assert distractor_accuracy([0.9, 0.4, 0.3, 0.2], [0.1, 0.4, 0.5, 0.1]) == pytest.approx(2.5 / 4)
    assert distractor_accuracy([0.9, 0.4], [0.1, 0.4], ties="drop") == 1.0


def test_kappa_matches_statsmodels_and_hand_value() -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 200)
    b = np.where(rng.random(200) < 0.6, a, rng.integers(0, 3, 200))
    table = np.zeros((3, 3))
    np.add.at(table, (a, b), 1)
    assert cohen_kappa(a, b) == pytest.approx(inter_rater.cohens_kappa(table).kappa, rel=1e-12)
    # p_o = 0.8, p_e = 0.6*0.4 + 0.4*0.6 = 0.48 -> (0.8 - 0.48) / 0.52
    assert cohen_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]) == pytest.approx(0.32 / 0.52)
    assert np.isnan(cohen_kappa([1, 1], [1, 1]))


def test_kappa_grid() -> None:
    metric = [0.1, 0.5, 0.9, 0.7]
    human = [1, 2, 4, 3]
    grid = kappa_grid(metric, human, metric_thresholds=[0.3, 0.6], human_thresholds=[3])
    assert grid.kappa.shape == (2, 1)
    assert grid.kappa[1, 0] == pytest.approx(1.0)  # >= 0.6 <=> human >= 3
    assert grid.best(3) == (0.6, 1.0)
    with pytest.raises(ValueError, match="item 1 is not finite"):
        kappa_grid([0.1, np.nan], [1, 2])


def test_cumulative() -> None:
    assert cumulative_distribution([1, 2, 2, 4], levels=[1, 2, 3, 4]) == {1.0: 1.0, 2.0: 0.75, 3.0: 0.25, 4.0: 0.25}
    by = cumulative_by_system([1, 4, 2, 2], ["a", "a", "b", "b"])
    assert by == {"a": {1.0: 1.0, 2.0: 0.5, 4.0: 0.5}, "b": {1.0: 1.0, 2.0: 1.0, 4.0: 0.0}}
    with pytest.raises(ValueError, match="no scores"):
        cumulative_distribution([])
