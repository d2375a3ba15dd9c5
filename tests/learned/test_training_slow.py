"""Slow: retraining NNEval from scratch reproduces the shipped model (needs ../shared data).

The recipe reads THumB and Flickr8K-Expert (dev) from ``../shared/data`` and the COCO captions
from the installed pycocoevalcap 1.2 (its SPICE jar). Features are computed from scratch (no
feature cache), so this also checks that the feature metrics still give the numbers the model
was trained on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from capeval.metrics.learned.nneval import load_model

pytestmark = pytest.mark.slow

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
THUMB = SHARED / "thumb"
FLICKR = SHARED / "flickr8k-expert-dev" / "flickr8k_expert_dev.tsv"


def _jar() -> Path:
    from capeval.metrics.learned.training import default_coco_source

    jar = default_coco_source()
    if jar is None:
        pytest.skip("pycocoevalcap 1.2 is not installed (its SPICE jar holds the COCO captions)")
    return jar


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Feature cache written by the from-scratch run and read by the CLI test."""
    return tmp_path_factory.mktemp("nneval-features")


@pytest.fixture(scope="module")
def retrained(cache_dir: Path):  # type: ignore[no-untyped-def]
    from capeval.metrics.learned.training import build_training_data, evaluate_model, train_nneval

    if not (THUMB.is_dir() and FLICKR.is_file()):
        pytest.skip("../shared/data (THumB, Flickr8K-Expert dev) not found")
    shipped = load_model()
    assert not any(cache_dir.iterdir())  # features are computed from scratch
    data = build_training_data(THUMB, _jar(), FLICKR, seed=shipped.seed, cache_dir=cache_dir)
    model = train_nneval(data, seed=shipped.seed, name=shipped.meta["name"])
    return shipped, model, evaluate_model(model, data)


def test_validation_figure_reproduces_to_three_decimals(retrained) -> None:  # type: ignore[no-untyped-def]
    shipped, model, _ = retrained
    key = "kendall_tau_c_flickr8k_expert_dev_validation_half"
    assert round(model.meta["validation"][key], 3) == round(shipped.meta["validation"][key], 3)
    # Same data; the feature configuration (feature metrics' signatures) is reported, not required.
    assert {k: v for k, v in model.meta["data"].items() if k != "feature_config"} == {
        k: v for k, v in shipped.meta["data"].items() if k != "feature_config"
    }


def test_parameters_reproduce(retrained) -> None:  # type: ignore[no-untyped-def]
    """Same data, seed and code give the shipped network: same ranges, same stopping epoch and
    parameters equal to 1e-12 (the last bits, and with them the model id, can differ between
    numpy/BLAS builds and machines)."""
    import numpy as np

    shipped, model, _ = retrained
    assert model.meta["best_epoch"] == shipped.meta["best_epoch"]
    assert model.meta["epochs_run"] == shipped.meta["epochs_run"]
    np.testing.assert_array_equal(model.lower, shipped.lower)
    np.testing.assert_array_equal(model.upper, shipped.upper)
    assert len(model.params) == len(shipped.params)
    for ours, theirs in zip(model.params, shipped.params, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_learned_metric_beats_every_feature_on_flickr8k(retrained) -> None:  # type: ignore[no-untyped-def]
    _, _, figures = retrained
    for column in ("flickr_all", "flickr_test"):
        best_feature = max(row[column] for name, row in figures.items() if name != "nneval")
        assert figures["nneval"][column] > best_feature


def test_embeddings_reproduce(tmp_path: Path) -> None:
    from capeval.metrics.learned.embeddings import load_embeddings, read_coco_captions, train_embeddings
    from capeval.tokenizers.base import get_tokenizer

    captions = read_coco_captions(_jar(), "train2014")
    tokens = get_tokenizer("ptb").tokenize([c for caps in captions.values() for c in caps])
    emb = train_embeddings([t.split() for t in tokens])
    assert emb.digest == load_embeddings().digest


def test_evaluate_cli_prints_the_shipped_figures(
    retrained, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    from capeval.cli.main import main

    shipped, _, _ = retrained
    args = ["learned", "evaluate", "--thumb", str(THUMB), "--flickr8k-dev", str(FLICKR), "--cache-dir", str(cache_dir)]
    assert main(args) == 0
    out = capsys.readouterr().out
    nneval_row = next(line for line in out.splitlines() if line.startswith("nneval"))
    expected = shipped.meta["figures"]["nneval"]["flickr_all"]
    assert f"{expected:.3f}" in nneval_row
