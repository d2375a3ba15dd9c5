"""Per-image and corpus parity with the official pycocoevalcap 1.2 scorers on the COCO demo.

The scorers are fed the official tokenizer's output, so these tests check the scorers alone;
the tokenizer has its own parity tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from capeval.metrics.bleu import BLEU
from capeval.metrics.cider import CIDErD
from capeval.metrics.rouge import ROUGEL

#: Acceptance bound on |capeval - official| per image and per corpus.
TOLERANCE = 1e-9


def _official(demo_official: dict[str, Any], ids: list[str], name: str) -> np.ndarray:
    return np.array([demo_official["per_image"][i][name] for i in ids])


def test_bleu_matches_official(demo_official: dict[str, Any], demo_tokenized: Any) -> None:
    ids, cands, refs = demo_tokenized
    result = BLEU(tokenizer="none").score_tokenized(candidates=cands, references=refs, ids=ids)
    for k in range(1, 5):
        assert abs(result.scores[f"bleu-{k}"] - demo_official["corpus"][f"Bleu_{k}"]) <= TOLERANCE
        diff = np.abs(result.item_table[f"bleu-{k}"] - _official(demo_official, ids, f"Bleu_{k}"))
        assert diff.max() <= TOLERANCE
    totals = result.stats.sum(axis=0)
    official = demo_official["bleu_stats"]
    assert totals[0] == official["testlen"] and totals[1] == official["reflen"]
    assert list(totals[2:6]) == official["guess"] and list(totals[6:10]) == official["correct"]


def test_rouge_l_matches_official(demo_official: dict[str, Any], demo_tokenized: Any) -> None:
    ids, cands, refs = demo_tokenized
    result = ROUGEL(tokenizer="none").score_tokenized(candidates=cands, references=refs, ids=ids)
    assert abs(result.score - demo_official["corpus"]["ROUGE_L"]) <= TOLERANCE
    assert np.abs(result.item_scores - _official(demo_official, ids, "ROUGE_L")).max() <= TOLERANCE


def test_cider_d_matches_official(demo_official: dict[str, Any], demo_tokenized: Any) -> None:
    ids, cands, refs = demo_tokenized
    result = CIDErD(tokenizer="none").score_tokenized(candidates=cands, references=refs, ids=ids)
    assert abs(result.score - demo_official["corpus"]["CIDEr"]) <= TOLERANCE
    assert np.abs(result.item_scores - _official(demo_official, ids, "CIDEr")).max() <= TOLERANCE
    # The notebook's one printed example: image 184321, "CIDEr score 1.0" with %0.1f.
    assert f"{result.item_scores[ids.index('184321')]:0.1f}" == "1.0"


@pytest.mark.parametrize("metric_cls", [BLEU, ROUGEL, CIDErD])
def test_reference_order_does_not_matter(metric_cls: Any, demo_tokenized: Any) -> None:
    ids, cands, refs = demo_tokenized
    metric = metric_cls(tokenizer="none")
    base = metric.score_tokenized(candidates=cands, references=refs)
    flipped = metric.score_tokenized(candidates=cands, references=[list(reversed(r)) for r in refs])
    np.testing.assert_allclose(base.item_scores, flipped.item_scores, rtol=0, atol=1e-12)


def test_end_to_end_from_raw_files(demo_official: dict[str, Any]) -> None:
    """Raw demo files -> capeval's PTB tokenizer -> scorers: the official corpus and per-image numbers."""
    from capeval.data import demo_paths
    from capeval.engines.local import evaluate
    from capeval.io import load_corpus

    corpus = load_corpus(*demo_paths())
    assert [str(i) for i in corpus.ids] == list(demo_official["tokenized"]["res"])  # official image order
    evaluation = evaluate(corpus, metrics=["bleu", "rouge-l", "cider-d"])
    for name, value in evaluation.official_scores().items():
        assert abs(value - demo_official["corpus"][name]) <= TOLERANCE, name
    per_image = evaluation.per_image()
    for image_id, scores in per_image.items():
        for name, value in scores.items():
            assert abs(value - demo_official["per_image"][str(image_id)][name]) <= TOLERANCE, (image_id, name)
