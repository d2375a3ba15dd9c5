"""``score_batch`` tokenizes like ``score`` (it used to score raw text silently)."""

from __future__ import annotations

import numpy as np

from capeval.metrics.cider import CIDEr, CIDErD

CANDS = ["A dog runs on the grass.", "A Cat sleeping."]
REFS = [["A dog running in a field.", "The dog is on the grass!"], ["A cat is sleeping.", "Cats, sleeping."]]


def test_score_batch_applies_the_tokenizer() -> None:
    for metric in (CIDErD(), CIDEr()):
        expected = metric.score(candidates=CANDS, references=REFS).item_scores
        np.testing.assert_array_equal(metric.score_batch(CANDS, [0, 1], REFS), expected)


def test_score_batch_tokenized_flag_skips_the_tokenizer() -> None:
    metric = CIDErD()
    cand_tok, ref_tok = metric.tokenize(CANDS, REFS)
    np.testing.assert_array_equal(
        metric.score_batch(cand_tok, [0, 1], ref_tok, tokenized=True), metric.score_batch(CANDS, [0, 1], REFS)
    )
    raw = metric.score_batch(CANDS, [0, 1], REFS, tokenized=True)
    assert not np.allclose(raw, metric.score_batch(CANDS, [0, 1], REFS))
