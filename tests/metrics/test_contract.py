"""Invariants every registered metric must satisfy (order, sharding, determinism, signatures)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from capeval.registry import get_metric, list_metrics
from capeval.signature import Signature

#: Metrics checked here: cheap ones that need no optional model. Heavier metrics have their own suites.
CONTRACT_METRICS = [
    m for m in ("bleu", "rouge-l", "cider-d", "cider-original", "rouge-n", "rouge-s") if m in list_metrics()
]


@pytest.fixture(scope="module")
def corpus(demo_tokenized: Any) -> tuple[list[str], list[list[str]]]:
    _, cands, refs = demo_tokenized
    return list(cands[:300]), [list(r) for r in refs[:300]]


@pytest.mark.parametrize("name", CONTRACT_METRICS)
def test_item_order_permutes_item_scores(name: str, corpus: Any) -> None:
    cands, refs = corpus
    metric = get_metric(name, tokenizer="none")
    base = metric.score_tokenized(candidates=cands, references=refs)
    perm = np.random.default_rng(7).permutation(len(cands))
    shuffled = metric.score_tokenized(candidates=[cands[i] for i in perm], references=[refs[i] for i in perm])
    np.testing.assert_allclose(shuffled.item_scores, base.item_scores[perm], rtol=0, atol=1e-12)
    assert shuffled.score == pytest.approx(base.score, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", CONTRACT_METRICS)
def test_halves_merge_to_the_whole(name: str, corpus: Any) -> None:
    cands, refs = corpus
    metric = get_metric(name, tokenizer="none")
    prepared = metric.prepare(refs)
    whole = metric.score_tokenized(candidates=cands, references=refs, prepared=prepared)
    half = len(cands) // 2
    first = metric.score_tokenized(candidates=cands[:half], references=refs[:half], prepared=prepared)
    second = metric.score_tokenized(candidates=cands[half:], references=refs[half:], prepared=prepared)
    merged = metric.result_from_stats(np.vstack([first.stats, second.stats]), prepared=prepared, references=refs)
    assert merged.score == pytest.approx(whole.score, rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(merged.item_scores, whole.item_scores, rtol=0, atol=1e-12)
    assert metric.corpus_score(whole.stats.sum(axis=0)) == whole.score


@pytest.mark.parametrize("name", CONTRACT_METRICS)
def test_deterministic_and_signature_round_trips(name: str, corpus: Any) -> None:
    cands, refs = corpus
    metric = get_metric(name, tokenizer="none")
    a = metric.score_tokenized(candidates=cands, references=refs)
    b = metric.score_tokenized(candidates=cands, references=refs)
    assert a.score == b.score and np.array_equal(a.item_scores, b.item_scores)
    assert Signature.parse(str(a.signature)) == a.signature
    assert str(a.signature).startswith(name + "|") and "|v:" in str(a.signature)
    assert a.stats.shape == (len(cands), len(a.stat_names))
    assert a.metric == name and a.n_items == len(cands)


@pytest.mark.parametrize("name", CONTRACT_METRICS)
def test_misaligned_or_malformed_input_is_rejected(name: str) -> None:
    metric = get_metric(name, tokenizer="none")
    with pytest.raises(ValueError, match="2 candidates but 1 reference lists"):
        metric.score(candidates=["a", "b"], references=[["a"]])
    with pytest.raises(ValueError, match="item 0: no reference captions"):
        metric.score(candidates=["a"], references=[[]])
    with pytest.raises(ValueError, match="item 1.*must be a list of strings"):
        metric.score(candidates=["a", "b"], references=[["a"], "b"])
    with pytest.raises(ValueError, match="item 0.*candidate must be a string"):
        metric.score(candidates=[None], references=[["a"]])  # type: ignore[list-item]


@pytest.mark.parametrize("name", CONTRACT_METRICS)
def test_worker_processes_and_progress_chunks_give_the_same_statistics(
    name: str, corpus: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cands, refs = corpus
    metric = get_metric(name, tokenizer="none")
    single = metric.score_tokenized(candidates=cands, references=refs)
    monkeypatch.setattr(type(metric), "parallel_min_items", 10)  # fork even for this small corpus
    forked = metric.score_tokenized(candidates=cands, references=refs, workers=2)
    np.testing.assert_allclose(forked.stats, single.stats, rtol=0, atol=1e-12)
    monkeypatch.setattr("capeval.metrics.base._CHUNK", 64)  # progress bar: scored in chunks
    chunked = metric.score_tokenized(candidates=cands, references=refs, progress=True)
    np.testing.assert_allclose(chunked.stats, single.stats, rtol=0, atol=1e-12)
