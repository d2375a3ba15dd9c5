"""Captions with line-break characters, tabs or very long text never shift or drop other captions.

The official pipeline writes one caption per line and only replaces ``\\n``; capeval keeps
every caption on its own image whatever it contains.
"""

from __future__ import annotations

import numpy as np
import pytest

from capeval.engines.local import evaluate
from capeval.metrics.base import Metric
from capeval.registry import get_metric

BREAKS = ["\r", "\r\n", "\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\t"]


@pytest.mark.parametrize("char", BREAKS)
def test_line_breaks_keep_items_aligned(char: str) -> None:
    candidates = [f"A dog{char}running on grass.", "A cat sleeping.", "A red bus on a street."]
    references = [["A dog runs on the grass."], ["A cat is sleeping on a sofa."], ["A red bus parked on a street."]]
    together = evaluate(candidates=candidates, references=references, metrics=["bleu", "rouge-l"])
    for i in range(3):
        alone = evaluate(candidates=[candidates[i]], references=[references[i]], metrics=["bleu", "rouge-l"])
        for key in ("bleu", "rouge-l"):
            np.testing.assert_array_equal(together.results[key].stats[i], alone.results[key].stats[0])
    # The caption after the odd one is intact: a perfect match scores 1.
    same = evaluate(
        candidates=candidates, references=[references[0], ["a cat sleeping"], references[2]], metrics=["rouge-l"]
    )
    assert same.results["rouge-l"].item_scores[1] == pytest.approx(1.0)


def test_tokenizer_output_is_one_string_per_caption() -> None:
    metric: Metric = get_metric("bleu")
    captions = [f"a{c}b" for c in BREAKS] + ["x " * 20_000, "", "  ", "last caption."]
    tokens = metric.tokenizer.tokenize(captions)
    assert len(tokens) == len(captions)
    assert tokens[-1] == "last caption"
    assert all("\n" not in t and "\r" not in t for t in tokens)


def test_very_long_caption_is_scored() -> None:
    long = "a man riding a horse " * 2_000
    result = evaluate(
        candidates=[long, "a dog"],
        references=[["a man riding a horse"], ["a dog"]],
        metrics=["bleu", "rouge-l", "cider-d"],
    )
    for res in result.results.values():
        assert np.isfinite(res.item_scores).all()
    assert result.results["rouge-l"].item_scores[1] == pytest.approx(1.0)
