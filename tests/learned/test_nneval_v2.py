"""nneval-v2: features, model file, the metric, deterministic training; slow: retraining."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from tests.learned.needs import needs_all_features
from tests.learned.toy import graded_corpus

from capeval.metrics.learned import features_v2
from capeval.metrics.learned.features_v2 import (
    BACKGROUND_FEATURES,
    FEATURES,
    TEXT_FEATURES,
    background,
    background_features,
    text_features,
)
from capeval.metrics.learned.nneval_v2 import NNEvalV2, ScorerModel, forward, load_model_v2
from capeval.metrics.learned.training_v2 import (
    Corpus,
    FitConfig,
    fit,
    image_folds,
    merge_networks,
    pascal_accuracy,
)

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def test_text_features_shape_and_simple_values() -> None:
    x = text_features(["a dog runs", ""], [["a dog runs", "a cat sleeps"], ["a dog"]])
    assert x.shape == (2, len(TEXT_FEATURES))
    col = {f: k for k, f in enumerate(TEXT_FEATURES)}
    assert x[0, col["p1"]] == 1.0
    assert x[0, col["best-f1"]] == 1.0
    assert x[0, col["r1"]] == pytest.approx((1.0 + 1 / 3) / 2)
    assert np.all(x[1, [col["p1"], col["r1"], col["emb-p"]]] == 0.0)  # empty candidate
    assert np.isfinite(x).all()


def test_content_features_simple_values() -> None:
    same = ["a dog runs on grass", "a dog sleeps"]
    cands = ["a dog runs on grass", "a dog runs on grass near a zebra", "a cat on a bed"]
    x = text_features(cands, [same, same, ["a cat on a bed", "a cat sleeps"]])
    col = {f: k for k, f in enumerate(TEXT_FEATURES)}
    assert x[0, col["exact-unsup"]] == 0.0  # every content word is in a reference
    assert x[1, col["exact-unsup"]] > 0.0  # "near", "zebra" are not
    assert x[0, col["cons-r-exact"]] == 1.0  # "dog", the only word of both references, is there
    assert x[0, col["cand-len"]] == pytest.approx(np.log(6.0))
    assert x[0, col["idf-emb-f-best"]] == pytest.approx(1.0, abs=1e-3)  # float16 unit vectors
    assert x[1, col["emb-min"]] < x[0, col["emb-min"]]
    assert x[0, col["ref-emb-consensus"]] == x[1, col["ref-emb-consensus"]]
    assert np.isfinite(x).all()


def test_unsupported_word_counts_and_specificity() -> None:
    same = ["a dog runs on grass", "a dog sleeps"]
    x = text_features(["a dog runs on grass", "a dog runs on grass near a pizza", ""], [same, same, same])
    col = {f: k for k, f in enumerate(TEXT_FEATURES)}
    exact = [col[f] for f in ("n-unsup-exact", "max-idf-unsup-exact", "idf-exact-unsup")]
    assert np.all(x[0, exact] == 0.0)  # every content word is in a reference
    assert np.all(x[1, exact] > 0.0)
    assert x[1, col["n-unsup-exact"]] == pytest.approx(np.log(1.0 + 1.0))  # "pizza" ("near" is a stop word)
    assert x[1, col["max-idf-unsup-exact"]] == pytest.approx(np.log(4.0))  # in no reference: df 0 of 3 items
    assert x[1, col["n-unsup-emb"]] >= np.log(2.0)  # "pizza": no reference word within cosine 0.5
    assert x[1, col["min-ref-support"]] < x[0, col["min-ref-support"]] <= 1.0
    # no content words: wholly unsupported; words in every item's references (IDF 0): the plain share
    assert x[2, col["n-unsup-exact"]] == 0.0 and x[2, col["idf-exact-unsup"]] == 1.0
    assert x[2, col["min-ref-support"]] == 0.0


_DOG = ("a dog runs on the grass", "a brown dog plays on a lawn")
_CAT = ("a cat sleeps on a bed", "a grey cat lies on a blanket")
_BUS = ("a red bus on a street", "a bus drives down a road")


def test_background_ranks_own_images_set_among_the_others() -> None:
    cands = ["a dog runs on a lawn", "a cat sleeps on a blanket", "a dog runs on the grass"]
    refs = [_DOG, _DOG, _CAT]
    x = background_features(cands, [list(r) for r in refs])
    col = {f: k for k, f in enumerate(BACKGROUND_FEATURES)}
    assert x.shape == (3, len(BACKGROUND_FEATURES))
    # The right caption beats the one other set; a caption of the other set loses to it.
    assert x[0, col["bg-pct-tfidf"]] == 1.0 and x[0, col["bg-pct-emb"]] == 1.0
    assert x[1, col["bg-pct-tfidf"]] == 0.0
    # The third candidate is verbatim a reference of the dog set: that set is left out of its
    # background, so no other set is left (0.5, 0).
    assert list(x[2, :4]) == [0.5, 0.0, 0.5, 0.0]
    # Genericness: the dog and cat sets share no content word.
    assert x[0, col["bg-generic"]] == 0.0


def test_background_percentile_counts_ties_half_and_z_score() -> None:
    refs = [_DOG, _CAT, _BUS]
    # No content word in any set: every similarity is 0, a tie with both other sets.
    x = background_features(["the of a", "a dog on the grass"], [list(_DOG), list(_DOG)], background(refs))
    assert x[0, 0] == 0.5 and x[0, 1] == 0.0
    # Both other sets share no word with it: no spread, so z is 0.
    assert x[1, 0] == 1.0 and x[1, 1] == 0.0
    # Against its own set 0, the cat set 0 (a tie, half), both bus sets above it.
    spread = background_features(["a street"], [list(_DOG)], background([_DOG, _CAT, _BUS, _BUS[:1]]))
    assert spread[0, 0] == pytest.approx(0.5 / 3) and spread[0, 1] < 0.0
    # A single image: no background (0.5, 0, 0.5, 0, 0).
    one = background_features(["a dog"], [list(_DOG)])
    assert list(one[0]) == [0.5, 0.0, 0.5, 0.0, 0.0]


def test_background_is_shard_and_order_independent(monkeypatch: pytest.MonkeyPatch) -> None:
    sets = [tuple(f"a {w} on a {p}" for p in ("street", "hill")) for w in ("dog", "cat", "bus", "man", "tree", "boat")]
    cands = [f"a {w} near a street" for w in ("dog", "cat", "bus", "man", "tree", "boat")]
    refs = [list(s) for s in sets]
    # A background smaller than the corpus: the subset is chosen by the sets' text, not their order.
    monkeypatch.setattr(features_v2, "MAX_BACKGROUND", 4)
    for limit in (4, 1000):
        monkeypatch.setattr(features_v2, "MAX_BACKGROUND", limit)
        whole = background_features(cands, refs)
        order = [5, 3, 1, 0, 2, 4]
        shuffled = background_features([cands[i] for i in order], [refs[i] for i in order])
        assert np.array_equal(shuffled, whole[order])
        bg = background(refs)
        assert bg.tfidf.shape[0] == min(limit, 6) and bg.n_sets == 6
        parts = [background_features(cands[a:b], refs[a:b], bg, chunk=2) for a, b in ((0, 3), (3, 6))]
        assert np.array_equal(np.vstack(parts), whole)
        assert np.array_equal(background_features(cands, refs, chunk=1), whole)


def test_background_of_an_empty_corpus() -> None:
    bg = background([])
    assert bg.n_sets == 0 and bg.tfidf.shape[0] == 0 and bg.mean_vectors.shape[0] == 0
    assert background_features([], [], bg).shape == (0, len(BACKGROUND_FEATURES))
    # Items scored against an empty background (a shard given no corpus data) get the defaults.
    assert list(background_features(["a dog"], [list(_DOG)], bg)[0, :4]) == [0.5, 0.0, 0.5, 0.0]


def test_background_same_text_ties_and_no_spread() -> None:
    col = {f: k for k, f in enumerate(BACKGROUND_FEATURES)}
    # Another image with the same references in another order: its similarities equal the own
    # set's up to rounding, so it is a tie (half) in both percentiles.
    x = background_features(["a brown dog on a lawn"], [list(_DOG)], background([_DOG, _DOG[::-1]]))
    assert x[0, col["bg-pct-tfidf"]] == 0.5 and x[0, col["bg-pct-emb"]] == 0.5
    assert x[0, col["bg-z-tfidf"]] == 0.0 and x[0, col["bg-z-emb"]] == 0.0
    # Seven other images with the same words: no spread, z 0 (not the bound).
    same = [tuple(f"{'a ' * k}cat on a bed" for _ in range(2)) for k in range(1, 8)]
    x = background_features(["a dog on a bed"], [list(_DOG)], background([_DOG, *same]))
    assert x[0, col["bg-z-tfidf"]] == 0.0 and x[0, col["bg-z-emb"]] == 0.0


def test_background_z_is_bounded() -> None:
    from capeval.metrics.learned.features_v2 import Z_LIMIT, _contrast

    sims = np.zeros((1, 1000))
    sims[0, 0] = 1e-3
    pct, z = _contrast(np.array([1.0]), sims, np.ones((1, 1000), dtype=bool))
    assert pct[0] == 1.0 and z[0] == Z_LIMIT


def test_background_verbatim_exclusion_leaves_genericness() -> None:
    col = {f: k for k, f in enumerate(BACKGROUND_FEATURES)}
    refs = [("a dog on grass",), ("a dog on a bed", "a cat"), ("a bird", "a cat")]
    # "a cat" is a reference of both other images: both are left out of its comparisons, but the
    # own image's genericness is about its references and still uses every other image.
    x = background_features(["a cat"], [list(refs[0])], background(refs))
    assert list(x[0, :4]) == [0.5, 0.0, 0.5, 0.0]
    assert x[0, col["bg-generic"]] > 0.0


@needs_all_features
def test_small_corpus_is_warned_and_empty_corpus_prepares(caplog: pytest.LogCaptureFixture) -> None:
    metric = NNEvalV2(tokenizer="none", feature_options={"spice": {"cache": False}})
    with caplog.at_level("WARNING", logger="capeval"):
        metric.prepare([])
    assert "nneval-v2" not in caplog.text
    with caplog.at_level("WARNING", logger="capeval"):
        metric.prepare([list(_DOG), list(_CAT), list(_DOG)])
    assert "the corpus has 2 image(s)" in caplog.text


def test_shipped_model_loads_and_matches_features() -> None:
    model = load_model_v2()
    assert model.features == FEATURES
    assert model.meta["name"] == "nneval-v2"
    assert model.seed == 0
    scores = model.predict(np.tile(model.mean, (3, 1)))
    assert np.all((scores > 0) & (scores < 1))


def test_model_round_trip_and_bad_input(tmp_path: Path) -> None:
    model = load_model_v2()
    path = tmp_path / "m.npz"
    model.save(path)
    again = ScorerModel.load(path)
    assert again.digest == model.digest
    with pytest.raises(ValueError, match="not an nneval-v2 model"):
        ScorerModel.load(tmp_path / "missing.npz")
    x = np.tile(model.mean, (2, 1))
    x[1, 3] = np.nan
    with pytest.raises(ValueError, match="item 1"):
        model.predict(x)
    with pytest.raises(ValueError, match="shape"):
        model.predict(np.zeros((2, 3)))


def _toy_corpora(rng: np.random.Generator) -> tuple[dict[str, Corpus], dict[str, np.ndarray]]:
    n = 60
    x = rng.standard_normal((n, len(FEATURES)))
    target = 1 / (1 + np.exp(-(x[:, 0] + 0.5 * x[:, 1])))
    graded = graded_corpus(target)
    xp = rng.standard_normal((40, len(FEATURES)))
    pairs = np.array([[2 * k, 2 * k + 1] if xp[2 * k, 0] > xp[2 * k + 1, 0] else [2 * k + 1, 2 * k] for k in range(20)])
    pref = Corpus(
        "pascal",
        tuple(f"p{i}" for i in range(40)),
        (("r",),) * 40,
        tuple(f"pimg{i // 2}" for i in range(40)),
        np.full(40, np.nan),
        np.zeros((20, 2)),
        pairs,
        np.ones(20),
    )
    return {"expert": graded, "pascal": pref}, {"expert": x, "pascal": xp}


def test_fit_is_deterministic_and_learns() -> None:
    corpora, mats = _toy_corpora(np.random.default_rng(0))
    cfg = FitConfig(hidden=3, max_iter=50, pairs_per_corpus=500, seed=3)
    np.random.seed(1)  # global state must not matter
    first = fit(mats, corpora, None, cfg)
    second = fit(mats, corpora, None, cfg)
    other = fit(mats, corpora, None, dataclasses.replace(cfg, seed=4))
    assert first.digest == second.digest
    assert first.digest != other.digest
    s = first.logits(mats["expert"])
    assert np.corrcoef(s, corpora["expert"].target)[0, 1] > 0.8


def test_merged_network_gives_mean_of_members() -> None:
    rng = np.random.default_rng(5)
    d = 6
    members = [
        [
            rng.standard_normal((d, h)),
            rng.standard_normal(h),
            rng.standard_normal(h + d),
            np.array(rng.standard_normal()),
        ]
        for h in (3, 2, 4)
    ]
    z = rng.standard_normal((10, d))
    merged = merge_networks(members)
    assert merged[0].shape == (d, 9) and merged[2].shape == (9 + d,)
    expected = np.mean([forward(m, z) for m in members], axis=0)
    np.testing.assert_allclose(forward(merged, z), expected, rtol=0, atol=1e-12)


def test_fit_members_are_merged() -> None:
    corpora, mats = _toy_corpora(np.random.default_rng(2))
    cfg = FitConfig(hidden=2, max_iter=20, pairs_per_corpus=300, members=3, trees=0)
    model = fit(mats, corpora, None, cfg)
    assert model.params[0].shape == (len(FEATURES), 6)
    assert len(model.meta["iterations"]) == 3
    single = [
        fit(mats, corpora, None, FitConfig(hidden=2, max_iter=20, pairs_per_corpus=300, members=1, seed=m, trees=0))
        for m in range(3)
    ]
    expected = np.mean([s.logits(mats["expert"]) for s in single], axis=0)
    np.testing.assert_allclose(model.logits(mats["expert"]), expected, rtol=0, atol=1e-9)


def test_fit_gradient_is_consistent() -> None:
    """The loss decreases from the initial point (the analytic gradient points downhill)."""
    corpora, mats = _toy_corpora(np.random.default_rng(1))
    short = fit(mats, corpora, None, FitConfig(hidden=2, max_iter=1, pairs_per_corpus=300))
    longer = fit(mats, corpora, None, FitConfig(hidden=2, max_iter=30, pairs_per_corpus=300))
    assert longer.meta["loss"] < short.meta["loss"]


def test_image_folds_are_disjoint_by_image() -> None:
    images = [f"img{i // 5}" for i in range(200)]
    folds = image_folds(images, 5, 0)
    for k in range(0, 200, 5):
        assert len(set(folds[k : k + 5].tolist())) == 1
    assert set(folds.tolist()) == set(range(5))
    assert np.array_equal(folds, image_folds(list(reversed(images)), 5, 0)[::-1])


def test_pascal_accuracy_counts_ties_half() -> None:
    corpus = Corpus(
        "pascal",
        ("a",) * 8,
        (("r",),) * 8,
        ("i",) * 8,
        np.full(8, np.nan),
        np.array([[5, 1], [1, 5], [5, 1], [5, 1]], dtype=float),
        extra={"categories": ("HC", "HI", "HM", "MM")},
    )
    scores = np.array([1.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0, 1.0])
    acc = pascal_accuracy(scores, corpus)
    assert acc == {"HC": 1.0, "HI": 0.0, "HM": 0.5, "MM": 0.0, "mean": 0.375}


def test_registered_and_signature_names_model() -> None:
    from capeval.registry import metric_class

    assert metric_class("nneval-v2") is NNEvalV2
    assert metric_class("nneval").__name__ == "NNEval"


@needs_all_features
def test_metric_scores_and_ranks_correct_caption_first() -> None:
    metric = NNEvalV2(tokenizer="ws", feature_options={"spice": {"cache": False}})
    refs = [
        "a brown dog runs on the grass",
        "a dog running across a lawn",
        "a dog plays in a green field",
    ]
    result = metric.score(
        candidates=["a dog runs across the grass", "a man rides a red bus down the street", ""],
        references=[refs, refs, refs],
    )
    values = result.item_table["nneval-v2"]
    assert values[0] > values[1] > 0.0
    assert values[2] < values[0]
    text = str(result.signature)
    assert "nneval-v2" in text and f"model:nneval-v2-{metric.model.digest}" in text


@needs_all_features
def test_features_reuse_gives_same_scores() -> None:
    from capeval.engines.local import evaluate

    cands = ["a dog runs across the grass", "two people walk on a beach"]
    refs = [["a brown dog runs on the grass", "a dog on a lawn"], ["people walking on the beach", "a beach"]]
    ev = evaluate(
        candidates=cands,
        references=refs,
        metrics=["bleu", "meteor", "rouge-l", "cider-d", "spice", "wmd"],
        tokenizer="ws",
    )
    fresh = NNEvalV2(tokenizer="ws").score_tokenized(candidates=cands, references=refs)
    reused = NNEvalV2(tokenizer="ws").score_tokenized(candidates=cands, references=refs, reuse=ev.results)
    assert reused.score == pytest.approx(fresh.score, abs=1e-12)


_RETRAIN = """
import sys
from pathlib import Path
from capeval.metrics.learned.nneval_v2 import load_model_v2
from capeval.metrics.learned.training import default_coco_source
from capeval.metrics.learned.training_v2 import FitConfig, build, train_nneval_v2
shared, out = Path(sys.argv[1]), Path(sys.argv[2])
shipped = load_model_v2()
cfg = FitConfig(**{k: (tuple(map(tuple, v)) if k == "weights" else v) for k, v in shipped.meta["config"].items()})
corpora, mats = build(shared, default_coco_source(), cache_dir=out.parent / "cache", seed=shipped.seed)
train_nneval_v2(corpora, mats, cfg).save(out)
"""


@pytest.mark.slow
def test_retraining_reproduces_shipped_model(tmp_path: Path) -> None:
    """Retrain from scratch (features recomputed) and compare with the shipped model.

    The networks stop at a fixed iteration count, so their last bits depend on the BLAS thread
    count; the recipe trains with one BLAS thread (``OPENBLAS_NUM_THREADS=1``, set here in a
    child process because it cannot change once numpy is loaded).
    """
    import os
    import subprocess
    import sys

    from capeval.metrics.learned.training import default_coco_source

    if not (SHARED / "flickr8k-raw-dev").is_dir():
        pytest.skip("../shared/data not found")
    if default_coco_source() is None:
        pytest.skip("pycocoevalcap 1.2 is not installed (its SPICE jar holds the COCO captions)")
    shipped = load_model_v2()
    out = tmp_path / "retrained.npz"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    subprocess.run([sys.executable, "-c", _RETRAIN, str(SHARED), str(out)], env=env, check=True)
    model = ScorerModel.load(out)
    assert model.meta["data"] == shipped.meta["data"]
    for a, b in zip(
        (model.mean, model.scale, *model.params), (shipped.mean, shipped.scale, *shipped.params), strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    assert (model.trees is None) == (shipped.trees is None)
    if model.trees is not None and shipped.trees is not None:
        assert np.array_equal(model.trees.feature, shipped.trees.feature)
        np.testing.assert_allclose(model.trees.threshold, shipped.trees.threshold, rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.trees.leaf, shipped.trees.leaf, rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.blend, shipped.blend, rtol=0, atol=1e-12)  # type: ignore[arg-type]


@needs_all_features
def test_shards_with_corpus_data_match_whole_corpus() -> None:
    """Scored in shards with the whole corpus' prepared data, items score as in one run."""
    metric = NNEvalV2(tokenizer="none", feature_options={"spice": {"cache": False}})
    cands = ["a dog runs on the grass", "a man rides a bike", "two cats sleep on a bed", "a red bus"]
    refs = [
        ["a dog running on grass", "a brown dog outside"],
        ["a man riding a bicycle", "a cyclist on a road"],
        ["two cats on a bed", "cats sleeping"],
        ["a red bus on a street", "a double decker bus"],
    ]
    whole = metric.score_tokenized(candidates=cands, references=refs).item_table["nneval-v2"]
    prepared = metric.prepare(refs)
    parts = [
        NNEvalV2(tokenizer="none", feature_options={"spice": {"cache": False}})
        .score_tokenized(candidates=cands[a:b], references=refs[a:b], prepared=prepared)
        .item_table["nneval-v2"]
        for a, b in ((0, 2), (2, 4))
    ]
    np.testing.assert_allclose(np.concatenate(parts), whole, rtol=0, atol=1e-12)


def test_cli_train_v2_names_missing_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capeval.cli.main import main

    code = main(["learned", "train-v2", "--data", str(tmp_path), "--output", str(tmp_path / "m.npz")])
    assert code == 2
    assert "missing flickr8k-raw-dev, thumb, pascal50s/" in capsys.readouterr().err
