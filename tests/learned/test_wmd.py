"""Word Mover's similarity: hand-computed cases, solver agreement, options and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from capeval.metrics.learned.embeddings import (
    WordEmbeddings,
    load_embeddings,
    read_coco_captions,
    save_embeddings,
    train_embeddings,
)
from capeval.metrics.learned.wmd import WMDSimilarity, _emd, _emd_linprog, word_movers_distance


def _toy() -> WordEmbeddings:
    words = ("dog", "puppy", "cat", "runs", "sits")
    vectors = np.array(
        [[1, 0, 0], [0.8, 0.6, 0], [0, 1, 0], [0, 0, 1], [0, 0.6, 0.8]],
        dtype=np.float32,
    )
    return WordEmbeddings(words, vectors, "toy", "0" * 12)


def test_identical_captions_have_similarity_one() -> None:
    wmd = WMDSimilarity(tokenizer="ws")
    result = wmd.score(candidates=["a dog runs on the grass"], references=[["a dog runs on the grass"]])
    assert result.score == 1.0


def test_single_words_move_by_their_distance() -> None:
    emb = _toy()
    # dog -> puppy: |(1,0,0) - (0.8,0.6,0)| = sqrt(0.04 + 0.36)
    assert word_movers_distance(["dog"], ["puppy"], emb) == pytest.approx(math.sqrt(0.4))
    # {dog, runs} -> {puppy, sits}: dog->puppy and runs->sits (both sqrt(0.4)), half mass each.
    assert word_movers_distance(["dog", "runs"], ["puppy", "sits"], emb) == pytest.approx(math.sqrt(0.4))


def test_mean_and_max_over_references() -> None:
    emb = _toy()
    d = math.sqrt(0.4)
    refs = [["dog runs", "puppy runs"]]
    mean = WMDSimilarity(embeddings=emb, tokenizer="ws", combine="mean", stopwords="keep")
    best = WMDSimilarity(embeddings=emb, tokenizer="ws", combine="max", stopwords="keep")
    assert mean.score(candidates=["dog runs"], references=refs).score == pytest.approx((1 + math.exp(-d / 2)) / 2)
    assert best.score(candidates=["dog runs"], references=refs).score == pytest.approx(1.0)


def test_stop_words_dropped_by_default() -> None:
    emb = _toy()
    assert word_movers_distance("the dog".split(), "a dog".split(), emb) == 0.0
    keep = word_movers_distance("the dog".split(), "a dog".split(), emb, stopwords="keep")
    assert keep == 0.0  # "the" and "a" are out of the toy vocabulary either way


def test_unknown_words_give_zero_similarity() -> None:
    wmd = WMDSimilarity(embeddings=_toy(), tokenizer="ws")
    result = wmd.score(candidates=["zebra", "dog"], references=[["dog"], ["okapi"]])
    assert result.item_scores.tolist() == [0.0, 0.0]
    assert word_movers_distance(["zebra"], ["dog"], _toy()) == math.inf


def test_pot_and_linear_programme_agree() -> None:
    pytest.importorskip("ot")
    rng = np.random.default_rng(3)
    for _ in range(5):
        a = rng.random(4)
        b = rng.random(6)
        cost = rng.random((4, 6))
        a, b = a / a.sum(), b / b.sum()
        assert _emd(a, b, cost) == pytest.approx(_emd_linprog(a, b, cost), abs=1e-9)


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="combine"):
        WMDSimilarity(combine="median")
    with pytest.raises(ValueError, match="stopwords"):
        WMDSimilarity(stopwords="some")


def test_signature_names_embeddings_and_rules() -> None:
    wmd = WMDSimilarity(tokenizer="ws")
    emb = load_embeddings()
    sig = str(wmd.score(candidates=["a dog"], references=[["a dog", "a cat"]]).signature)
    assert sig.startswith(f"wmd|emb:{emb.name}-{emb.digest}|stop:drop|refs:mean|tok:ws|nrefs:2|v:")


def test_shipped_embeddings_are_small_and_sensible() -> None:
    emb = load_embeddings()
    assert emb.name == "coco-ppmi-svd-100"
    assert emb.vectors.shape == (len(emb.words), 100)
    assert np.allclose(np.linalg.norm(emb.vectors, axis=1), 1.0, atol=1e-2)
    index = emb.index()
    sims = emb.vectors @ emb.vectors[index["dog"]]
    assert sims[index["puppy"]] > sims[index["kitchen"]]


def test_training_is_deterministic(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(40)]
    sentences = [[vocab[j] for j in rng.integers(0, 40, 8)] for _ in range(400)]
    first = train_embeddings(sentences, dim=8, min_count=2, seed=1)
    np.random.seed(123)  # global state must not matter
    second = train_embeddings(sentences, dim=8, min_count=2, seed=1)
    assert first.digest == second.digest
    save_embeddings(first, tmp_path / "e.npz", provenance="test")
    loaded = load_embeddings(str(tmp_path / "e.npz"))
    assert loaded.digest == first.digest and loaded.words == first.words


def test_bad_inputs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="only 1 words"):
        train_embeddings([["a", "a"]], dim=4, min_count=1)
    with pytest.raises(ValueError, match="cannot read word embeddings"):
        load_embeddings(str(tmp_path / "missing.npz"))
    with pytest.raises(ValueError, match="no such file"):
        read_coco_captions(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"images": []}', encoding="utf-8")
    with pytest.raises(ValueError, match="annotations"):
        read_coco_captions(bad)
    good = tmp_path / "good.json"
    good.write_text('{"annotations": [{"image_id": 1, "caption": "A dog."}]}', encoding="utf-8")
    assert read_coco_captions(good) == {1: ["A dog."]}


def test_empty_candidate_scores_zero() -> None:
    wmd = WMDSimilarity(tokenizer="ws")
    result = wmd.score(candidates=["", "the a of"], references=[["a dog"], ["a dog"]])
    assert result.item_scores.tolist() == [0.0, 0.0]  # nothing left after stop-word removal either
