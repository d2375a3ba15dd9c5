"""The metric contract (order, shards, determinism, signatures, bad input) for wmd and nneval.

NNEval runs here with a small model over BLEU-1, CIDEr-D and WMD, which exercises the
corpus-level part (CIDEr-D document frequencies) without needing METEOR's data or SPICE's model.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from capeval.metrics.base import Metric
from capeval.metrics.learned.network import init_params
from capeval.metrics.learned.nneval import NNEval, NNEvalModel
from capeval.metrics.learned.wmd import WMDSimilarity
from capeval.signature import Signature


def _nneval() -> NNEval:
    features = ("bleu-1", "cider-d", "wmd")
    params = init_params(3, (72, 72), 2, np.random.default_rng(1))
    model = NNEvalModel(features, np.zeros(3), np.array([1.0, 3.0, 1.0]), params, {"seed": 1})
    return NNEval(model=model, tokenizer="none")


FACTORIES = {"wmd": lambda: WMDSimilarity(tokenizer="none"), "nneval": _nneval}


@pytest.fixture(scope="module")
def corpus(demo_tokenized: Any) -> tuple[list[str], list[list[str]]]:
    _, cands, refs = demo_tokenized
    return list(cands[:120]), [list(r) for r in refs[:120]]


def _metric(name: str) -> Metric:
    return FACTORIES[name]()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("name", FACTORIES)
def test_item_order_permutes_item_scores(name: str, corpus: Any) -> None:
    cands, refs = corpus
    metric = _metric(name)
    base = metric.score_tokenized(candidates=cands, references=refs)
    perm = np.random.default_rng(7).permutation(len(cands))
    shuffled = _metric(name).score_tokenized(candidates=[cands[i] for i in perm], references=[refs[i] for i in perm])
    np.testing.assert_allclose(shuffled.item_scores, base.item_scores[perm], rtol=0, atol=1e-12)
    assert shuffled.score == pytest.approx(base.score, rel=1e-12)


@pytest.mark.parametrize("name", FACTORIES)
def test_halves_merge_to_the_whole(name: str, corpus: Any) -> None:
    cands, refs = corpus
    metric = _metric(name)
    prepared = metric.prepare(refs)
    whole = metric.score_tokenized(candidates=cands, references=refs, prepared=prepared)
    half = len(cands) // 2
    first = metric.score_tokenized(candidates=cands[:half], references=refs[:half], prepared=prepared)
    second = metric.score_tokenized(candidates=cands[half:], references=refs[half:], prepared=prepared)
    merged = metric.result_from_stats(np.vstack([first.stats, second.stats]), prepared=prepared, references=refs)
    assert merged.score == pytest.approx(whole.score, rel=1e-12)
    np.testing.assert_allclose(merged.item_scores, whole.item_scores, rtol=0, atol=1e-12)
    # Without the shared prepare() a half is its own corpus (CIDEr-D document frequencies).
    plain = _metric(name).score_tokenized(candidates=cands, references=refs)
    np.testing.assert_allclose(plain.item_scores, whole.item_scores, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", FACTORIES)
def test_reference_order_does_not_matter(name: str, corpus: Any) -> None:
    cands, refs = corpus
    a = _metric(name).score_tokenized(candidates=cands[:30], references=refs[:30])
    b = _metric(name).score_tokenized(candidates=cands[:30], references=[r[::-1] for r in refs[:30]])
    np.testing.assert_allclose(a.item_scores, b.item_scores, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", FACTORIES)
def test_deterministic_and_signature_round_trips(name: str, corpus: Any) -> None:
    cands, refs = corpus
    a = _metric(name).score_tokenized(candidates=cands, references=refs)
    np.random.seed(3)
    b = _metric(name).score_tokenized(candidates=cands, references=refs)
    assert a.score == b.score and np.array_equal(a.item_scores, b.item_scores)
    assert Signature.parse(str(a.signature)) == a.signature
    assert str(a.signature).startswith(name + "|") and "|v:" in str(a.signature)
    assert a.stats.shape == (len(cands), 2) and a.metric == name
    assert ((a.item_scores >= 0) & (a.item_scores <= 1)).all()


@pytest.mark.parametrize("name", FACTORIES)
def test_misaligned_or_malformed_input_is_rejected(name: str) -> None:
    metric = _metric(name)
    with pytest.raises(ValueError, match="2 candidates but 1 reference lists"):
        metric.score(candidates=["a", "b"], references=[["a"]])
    with pytest.raises(ValueError, match="item 0: no reference captions"):
        metric.score(candidates=["a"], references=[[]])
    with pytest.raises(ValueError, match="item 0.*candidate must be a string"):
        metric.score(candidates=[None], references=[["a"]])  # type: ignore[list-item]


def test_registry_builds_both() -> None:
    from capeval.registry import get_metric

    assert isinstance(get_metric("wmd", tokenizer="none"), WMDSimilarity)
    assert isinstance(get_metric("nneval", tokenizer="none"), NNEval)
