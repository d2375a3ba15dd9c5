"""Learned-metric invariants beyond the shared contract (``tests/metrics/test_contract.py``).

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
def test_reference_order_does_not_matter(name: str, corpus: Any) -> None:
    cands, refs = corpus
    a = _metric(name).score_tokenized(candidates=cands[:30], references=refs[:30])
    b = _metric(name).score_tokenized(candidates=cands[:30], references=[r[::-1] for r in refs[:30]])
    np.testing.assert_allclose(a.item_scores, b.item_scores, rtol=0, atol=1e-12)


def test_registry_builds_both() -> None:
    from capeval.registry import get_metric

    assert isinstance(get_metric("wmd", tokenizer="none"), WMDSimilarity)
    assert isinstance(get_metric("nneval", tokenizer="none"), NNEval)
