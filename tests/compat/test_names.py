"""Official metric names are accepted and mean what the official code reports."""

from __future__ import annotations

import pytest

from capeval.engines.local import resolve_metrics
from capeval.metrics.cider import CIDEr, CIDErD
from capeval.registry import canonical_name, get_metric, metric_class


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Bleu_1", "bleu"),
        ("Bleu_4", "bleu"),
        ("METEOR", "meteor"),
        ("ROUGE_L", "rouge-l"),
        ("CIDEr", "cider-d"),
        ("cider", "cider-d"),
        ("SPICE", "spice"),
        ("cider-original", "cider-original"),
        ("CIDEr-D", "cider-d"),
    ],
)
def test_official_names(name: str, key: str) -> None:
    assert canonical_name(name) == key


def test_cider_means_cider_d_and_the_original_has_its_own_name() -> None:
    assert metric_class("CIDEr") is CIDErD and metric_class("cider") is CIDErD
    assert metric_class("cider-original") is CIDEr and get_metric("cider-original").name == "cider-original"


def test_metrics_option_accepts_official_names() -> None:
    assert resolve_metrics(["Bleu_4", "bleu", "METEOR", "ROUGE_L", "CIDEr"]) == ["bleu", "meteor", "rouge-l", "cider-d"]
