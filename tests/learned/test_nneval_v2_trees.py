"""nneval-v2 with boosted trees: the tree fit, the blended model, its file format and checks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from tests.learned.toy import graded_corpus

from capeval.metrics.learned.features_v2 import FEATURES
from capeval.metrics.learned.nneval_v2 import ScorerModel, forward, load_model_v2
from capeval.metrics.learned.training_v2 import Corpus, FitConfig, fit
from capeval.metrics.learned.trees import TreeConfig, TreeEnsemble, fit_trees


def _pairs_by(score: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    a = rng.integers(len(score), size=n)
    b = rng.integers(len(score), size=n)
    keep = score[a] != score[b]
    a, b = a[keep], b[keep]
    return np.column_stack([np.where(score[a] > score[b], a, b), np.where(score[a] > score[b], b, a)])


def test_trees_learn_a_ranking_and_are_deterministic() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 4))
    truth = np.where(x[:, 0] > 0.3, 2.0, 0.0) + x[:, 1]
    pairs = _pairs_by(truth, rng, 3000)
    terms = [(pairs, np.ones(len(pairs)), 1.0)]
    train = np.ones(300, dtype=bool)
    cfg = TreeConfig(n_trees=30, depth=2)
    first = fit_trees(x, train, terms, cfg)
    second = fit_trees(x, train, terms, cfg)
    assert np.array_equal(first.feature, second.feature)
    assert np.array_equal(first.threshold, second.threshold)
    assert np.array_equal(first.leaf, second.leaf)
    s = first.predict(x)
    assert np.corrcoef(s, truth)[0, 1] > 0.8
    assert set(first.feature[:, 0].tolist()) <= {0, 1}  # root splits use the informative features


def test_tree_prediction_follows_thresholds() -> None:
    trees = TreeEnsemble(
        feature=np.array([[0, 1, 0]]),
        threshold=np.array([[0.5, 2.0, np.inf]]),
        leaf=np.array([[1.0, 2.0, 3.0, 4.0]]),
    )
    x = np.array([[0.0, 1.0], [0.0, 2.0], [0.5, 9.0], [1.0, -1.0]])
    # root: x0 >= 0.5 goes right; left child tests x1 >= 2; right child never splits (inf)
    np.testing.assert_array_equal(trees.predict(x), [1.0, 2.0, 3.0, 3.0])
    trees.check(2)
    with pytest.raises(ValueError, match="feature index"):
        trees.check(1)


def _toy(rng: np.random.Generator) -> tuple[dict[str, Corpus], dict[str, np.ndarray]]:
    n = 90
    x = rng.standard_normal((n, len(FEATURES)))
    target = 1 / (1 + np.exp(-(np.sign(x[:, 0]) + 0.5 * x[:, 1])))
    return {"expert": graded_corpus(target)}, {"expert": x}


def test_fit_with_trees_blends_networks_and_trees(tmp_path: Path) -> None:
    corpora, mats = _toy(np.random.default_rng(1))
    base = FitConfig(hidden=2, max_iter=20, pairs_per_corpus=800, members=2, trees=0, blend="mean")
    net = fit(mats, corpora, None, base)
    assert net.trees is None
    both = fit(mats, corpora, None, dataclasses.replace(base, trees=20, tree_depth=2))
    again = fit(mats, corpora, None, dataclasses.replace(base, trees=20, tree_depth=2))
    assert both.trees is not None and both.trees.leaf.shape == (20, 4)
    assert both.digest == again.digest != net.digest
    x = mats["expert"]
    np.testing.assert_allclose(both.logits(x), (net.logits(x) + both.trees.predict(x)) / 2, rtol=0, atol=1e-12)
    std = fit(mats, corpora, None, dataclasses.replace(base, trees=20, tree_depth=2, blend="standardised"))
    assert std.blend is not None
    z = (x - std.mean) / std.scale
    assert np.std(std.blend[0] * forward(std.params, z)) == pytest.approx(0.5)
    assert np.std(std.blend[1] * std.trees.predict(x)) == pytest.approx(0.5)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown blend"):
        fit(mats, corpora, None, dataclasses.replace(base, trees=2, blend="max"))
    path = tmp_path / "m.npz"
    both.save(path)
    loaded = ScorerModel.load(path)
    assert loaded.digest == both.digest
    np.testing.assert_array_equal(loaded.logits(x), both.logits(x))


def test_network_only_files_still_load_with_their_digest(tmp_path: Path) -> None:
    """A model without trees keeps the earlier file format and digest."""
    shipped = load_model_v2()
    plain = dataclasses.replace(shipped, trees=None, blend=None)
    path = tmp_path / "plain.npz"
    plain.save(path)
    with np.load(path) as data:
        assert not any(k.startswith("tree") or k == "blend" for k in data.files)
    again = ScorerModel.load(path)
    assert again.trees is None
    assert again.digest == plain.digest
    x = np.tile(shipped.mean, (2, 1))
    np.testing.assert_allclose(again.logits(x), forward(shipped.params, np.zeros_like(x)), rtol=0, atol=0)


def test_malformed_tree_arrays_are_rejected(tmp_path: Path) -> None:
    corpora, mats = _toy(np.random.default_rng(2))
    model = fit(mats, corpora, None, FitConfig(hidden=2, max_iter=5, pairs_per_corpus=300, members=1, trees=3))
    good = tmp_path / "good.npz"
    model.save(good)
    with np.load(good) as data:
        arrays = {k: data[k] for k in data.files}

    def write(name: str, **change: np.ndarray | None) -> Path:
        out = dict(arrays)
        for k, v in change.items():
            if v is None:
                del out[k]
            else:
                out[k] = v
        path = tmp_path / name
        np.savez(path, **out)
        return path

    with pytest.raises(ValueError, match="incomplete"):
        ScorerModel.load(write("a.npz", tree_leaf=None))
    with pytest.raises(ValueError, match="feature index"):
        ScorerModel.load(write("b.npz", tree_feature=arrays["tree_feature"] + len(FEATURES)))
    with pytest.raises(ValueError, match="not integers"):
        ScorerModel.load(write("c.npz", tree_feature=arrays["tree_feature"] + 0.5))
    with pytest.raises(ValueError, match="do not match"):
        ScorerModel.load(write("d.npz", tree_leaf=arrays["tree_leaf"][:, :3]))
    with pytest.raises(ValueError, match="blend"):
        ScorerModel.load(write("e.npz", blend=np.array([0.5, np.nan])))
