"""NNEval: network, model files, the metric, feature reuse, deterministic training."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from tests.learned.needs import needs_all_features

from capeval.metrics.learned.network import (
    TrainingConfig,
    _gradients,
    init_params,
    train_classifier,
)
from capeval.metrics.learned.nneval import FEATURES, NNEval, NNEvalModel, load_model

DATA = Path(__file__).parent.parent / "data" / "learned"


def _small_model(features: tuple[str, ...] = ("bleu-1", "cider-d", "wmd"), seed: int = 0) -> NNEvalModel:
    rng = np.random.default_rng(seed)
    params = init_params(len(features), (72, 72), 2, rng)
    return NNEvalModel(
        features, np.zeros(len(features)), np.array([1.0, 3.0, 1.0][: len(features)]), params, {"seed": seed}
    )


def test_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(0)
    params = init_params(3, (5, 4), 2, rng)
    x = rng.standard_normal((7, 3))
    y = rng.integers(0, 2, 7)
    _, grads = _gradients(params, x, y, l2=0.01)
    eps = 1e-6
    for k in (0, 1, 4, 5):
        flat = params[k].reshape(-1)
        for j in range(min(3, flat.size)):
            old = flat[j]
            flat[j] = old + eps
            up = _gradients(params, x, y, 0.01)[0]
            flat[j] = old - eps
            down = _gradients(params, x, y, 0.01)[0]
            flat[j] = old
            assert grads[k].reshape(-1)[j] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)


def test_training_rejects_bad_input() -> None:
    x = np.zeros((4, 2))
    with pytest.raises(ValueError, match="labels"):
        train_classifier(x, [0, 1, 2, 0], lambda p: 0.0)
    with pytest.raises(ValueError, match="do not match"):
        train_classifier(x, [0, 1], lambda p: 0.0)
    x[2, 1] = np.nan
    with pytest.raises(ValueError, match="row 2"):
        train_classifier(x, [0, 1, 1, 0], lambda p: 0.0)


def _tiny_training(seed: int) -> NNEvalModel:
    """Train on the tiny fixture the way the recipe does (min-max ranges, tau-c early stopping)."""
    from capeval.metrics.learned.training import TrainingData, train_nneval

    with np.load(DATA / "tiny_training_features.npz") as z:
        arrays = {k: z[k] for k in z.files}
    empty = np.zeros((0, len(FEATURES)))
    data = TrainingData(
        x_train=arrays["x_train"],
        y_train=arrays["y_train"],
        x_val=arrays["x_val"],
        val_ratings=arrays["val_ratings"],
        x_flickr=empty,
        flickr_ratings=np.zeros((0, 3)),
        flickr_val_mask=np.zeros(0, bool),
        x_thumb=empty,
        thumb_ratings=np.zeros((0, 1)),
        thumb_systems=(),
        thumb_holdout_mask=np.zeros(0, bool),
        features=tuple(str(f) for f in arrays["features"]),
        description={"fixture": "tiny_training_features.npz"},
    )
    return train_nneval(data, seed=seed, name="tiny", config=TrainingConfig(seed=seed, max_epochs=30, patience=10))


def test_training_is_deterministic_for_a_seed() -> None:
    first = _tiny_training(seed=5)
    np.random.seed(99)  # global numpy state must not matter
    second = _tiny_training(seed=5)
    other = _tiny_training(seed=6)
    assert first.digest == second.digest
    assert first.meta["validation"] == second.meta["validation"]
    assert first.digest != other.digest
    assert first.meta["seed"] == 5 and first.meta["config"]["batch_size"] == 75
    assert first.meta["config"]["hidden"] == [72, 72] or first.meta["config"]["hidden"] == (72, 72)
    # Early stopping keeps the best validation epoch, which on this data beats chance.
    assert first.meta["validation"]["kendall_tau_c_flickr8k_expert_dev_validation_half"] > 0.2


def test_model_round_trip_and_bad_files(tmp_path: Path) -> None:
    model = _small_model()
    model.save(tmp_path / "m.npz")
    loaded = NNEvalModel.load(tmp_path / "m.npz")
    assert loaded.digest == model.digest and loaded.features == model.features and loaded.seed == 0
    with pytest.raises(ValueError, match="not an NNEval model"):
        NNEvalModel.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not an NNEval model"):
        NNEvalModel.load(tmp_path / "other.npz")


def test_predict_checks_features() -> None:
    model = _small_model()
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        model.predict(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="item 1: feature 'cider-d'"):
        model.predict(np.array([[0.1, 0.2, 0.3], [0.1, np.inf, 0.3]]))
    p = model.predict(np.array([[0.5, 1.5, 0.5], [5.0, 50.0, 5.0]]))
    assert ((p >= 0) & (p <= 1)).all()
    # Out-of-range features are clipped to the training range.
    assert model.predict(np.array([[1.0, 3.0, 1.0]]))[0] == pytest.approx(
        model.predict(np.array([[9.0, 99.0, 9.0]]))[0]
    )


def test_metric_with_a_feature_subset() -> None:
    model = _small_model()
    metric = NNEval(model=model, tokenizer="ws")
    cands = ["a dog runs on the grass", "a red bus on the street", "two cats sleep"]
    refs = [["a dog running on grass", "a brown dog runs"], ["a bus on a city street"], ["a cat asleep on a bed"]]
    result = metric.score(candidates=cands, references=refs, ids=["a", "b", "c"])
    assert result.stats.shape == (3, 2) and result.stats[:, 1].tolist() == [1.0, 1.0, 1.0]
    assert result.score == pytest.approx(result.item_scores.mean())
    sig = str(result.signature)
    assert sig.startswith(f"nneval|model:nneval-{model.digest}|seed:0|feat:3-")
    # Same as the model applied to the features computed by the metrics themselves.
    from capeval.engines import evaluate

    ev = evaluate(candidates=cands, references=refs, metrics=["bleu", "cider-d", "wmd"], tokenizer="ws")
    x = np.column_stack(
        [ev.results[k].item_table[f] for k, f in (("bleu", "bleu-1"), ("cider-d", "cider-d"), ("wmd", "wmd"))]
    )
    assert np.allclose(result.item_scores, model.predict(x))
    # Batched scoring through the template (item_stats per batch) agrees with whole-corpus scoring.
    cand_tok, ref_tok = metric.tokenize(cands, refs)
    prepared = metric.prepare(ref_tok)
    rows = np.vstack(
        [metric.item_stats(cand_tok[:1], ref_tok[:1], prepared), metric.item_stats(cand_tok[1:], ref_tok[1:], prepared)]
    )
    assert np.allclose(rows[:, 0], result.item_scores)


def test_feature_results_are_reused_only_when_they_match() -> None:
    model = _small_model()
    cands = ["a dog runs", "a bus"]
    refs = [["a dog running", "a dog"], ["a bus on a street"]]
    from capeval.engines import evaluate

    ev = evaluate(candidates=cands, references=refs, metrics=["bleu", "cider-d", "wmd"], tokenizer="ws")
    metric = NNEval(model=model, tokenizer="ws")
    plain = metric.score(candidates=cands, references=refs).item_scores
    # Reused results: tampered CIDEr-D values show that they were used...
    tampered = dict(ev.results)
    cider = ev.results["cider-d"]
    tampered["cider-d"] = dataclasses.replace(cider, item_table={"cider-d": cider.item_table["cider-d"] + 1.0})
    fresh = NNEval(model=model, tokenizer="ws")
    reused = fresh.score_tokenized(candidates=cands, references=refs, reuse=tampered).item_scores
    assert not np.allclose(reused, plain)
    # ...while a result with another configuration (sigma) is recomputed, not reused.
    other = evaluate(
        candidates=cands,
        references=refs,
        metrics=["cider-d"],
        tokenizer="ws",
        metric_options={"cider-d": {"sigma": 3.0}},
    )
    mixed = dict(ev.results, **{"cider-d": dataclasses.replace(other.results["cider-d"])})
    again = NNEval(model=model, tokenizer="ws").score_tokenized(candidates=cands, references=refs, reuse=mixed)
    assert np.allclose(again.item_scores, plain)


def test_changed_feature_configuration_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    model = dataclasses.replace(_small_model(), meta={"seed": 0, "data": {"feature_config": "deadbeef"}})
    metric = NNEval(model=model, tokenizer="ws")
    with caplog.at_level("WARNING", logger="capeval"):
        metric.score(candidates=["a dog"], references=[["a dog"]])
    assert "feature configuration deadbeef" in caplog.text


def test_bad_input_is_named() -> None:
    metric = NNEval(model=_small_model(), tokenizer="ws")
    with pytest.raises(ValueError, match="item 1"):
        metric.score(candidates=["a dog", "a cat"], references=[["a dog"], []])
    with pytest.raises(ValueError, match="unknown NNEval feature"):
        NNEval(model=_small_model(features=("bleu-1", "rouge-l", "wmd")))


def test_shipped_model_card_facts() -> None:
    model = load_model()
    assert model.features == FEATURES
    assert model.seed == 0
    assert [p.shape for p in model.params] == [(8, 72), (72,), (72, 72), (72,), (72, 2), (2,)]
    assert model.meta["validation"]["kendall_tau_c_flickr8k_expert_dev_validation_half"] == pytest.approx(
        0.488,
        abs=5e-4,  # the figure on the model card (docs/metrics/nneval.md), exact SPICE features
    )


@needs_all_features
def test_default_model_scores_and_reuses_an_evaluation() -> None:
    from capeval.engines import evaluate

    cands = ["a dog runs on the grass", "a man is cooking in a kitchen"]
    refs = [["a brown dog running on a lawn", "a dog runs across the grass"], ["a dog sleeps on a couch"]]
    ev = evaluate(
        candidates=cands, references=refs, metrics=["bleu", "meteor", "cider-d", "spice", "wmd"], tokenizer="ws"
    )
    metric = NNEval(tokenizer="ws")
    direct = metric.score(candidates=cands, references=refs)
    reused = NNEval(tokenizer="ws").score_tokenized(candidates=cands, references=refs, reuse=ev.results)
    assert np.allclose(direct.item_scores, reused.item_scores)
    assert direct.item_scores[0] > direct.item_scores[1]


def test_distractor_check_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capeval.cli.main import main
    from capeval.metrics.learned.training import distractor_check

    pairs = [json.loads(line) for line in (DATA / "distractor_pairs.jsonl").read_text().splitlines()]
    acc = distractor_check(
        ["bleu-4", "cider-d", "wmd"],
        [p["correct"] for p in pairs],
        [p["distracted"] for p in pairs],
        [p["references"] for p in pairs],
    )
    assert set(acc) == {"bleu-4", "cider-d", "wmd"}
    assert acc["cider-d"] > 0.8 and acc["wmd"] > 0.8
    assert main(["learned", "distractors", str(DATA / "distractor_pairs.jsonl"), "--metrics", "cider-d,wmd"]) == 0
    out = capsys.readouterr().out
    assert "cider-d" in out and "24 pairs" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"correct": "a dog", "distracted": "a cat"}\n', encoding="utf-8")
    assert main(["learned", "distractors", str(bad), "--metrics", "wmd"]) == 2
    assert "bad.jsonl:1: 'references'" in capsys.readouterr().err
    good = '{"correct": "a dog", "distracted": "a cat", "references": ["a dog"]}'
    bad.write_text(f"{good}\n{{oops\n", encoding="utf-8")
    assert main(["learned", "distractors", str(bad), "--metrics", "wmd"]) == 2
    assert "bad.jsonl: line 2: invalid JSON at column 2" in capsys.readouterr().err
    bad.write_text("[1]\n", encoding="utf-8")
    assert main(["learned", "distractors", str(bad), "--metrics", "wmd"]) == 2
    assert "bad.jsonl: line 1: expected a JSON object, got list" in capsys.readouterr().err
    bad.write_bytes(b"\xff\xfe\n")
    assert main(["learned", "distractors", str(bad), "--metrics", "wmd"]) == 2
    assert "bad.jsonl: not valid UTF-8 at byte 0" in capsys.readouterr().err


def test_train_embeddings_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capeval.cli.main import main

    rng = np.random.default_rng(0)
    vocab = [f"word{i}" for i in range(30)]
    annotations = [
        {"image_id": k // 5, "caption": " ".join(vocab[j] for j in rng.integers(0, 30, 9))} for k in range(300)
    ]
    source = tmp_path / "captions_train2014.json"
    source.write_text(json.dumps({"annotations": annotations}), encoding="utf-8")
    out = tmp_path / "vectors.npz"
    assert main(["learned", "train-embeddings", "--coco", str(source), "--output", str(out), "--dim", "8"]) == 0
    assert "30 words" in capsys.readouterr().out
    from capeval.metrics.learned.embeddings import load_embeddings

    assert load_embeddings(str(out)).vectors.shape == (30, 8)


@needs_all_features
def test_shipped_model_was_trained_with_the_current_feature_metrics() -> None:
    """A change to a feature metric (a SPICE converter version, METEOR data...) must come with a
    retrained model (`capeval learned train`), or the model card's figures no longer hold."""
    nneval = NNEval()
    assert nneval.model.meta["data"]["feature_config"] == nneval.feature_set.fingerprint()
