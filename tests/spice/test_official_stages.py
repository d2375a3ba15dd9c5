"""SPICE from the official pipeline's stages equals the jar, on 150 images of the COCO demo.

The fixture (``tests/data/spice/``, see its README) holds every stage the official Stanford
CoreNLP 3.6.0 pipeline computes for the 894 captions of 150 COCO demo images, as SPICE 1.0
runs it, and the jar's ``-subset -detailed`` output for those images: capeval's graph
reading, enhancements, rules, scene graphs and scoring must reproduce every tuple, truth
value and category value, from the stages alone.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from tests.spice.official import check_item, differences, fixture_official, fixture_raw_tuples, fixture_stages

from capeval.metrics.spice import SPICE
from capeval.metrics.spice.stages import StagesParser, tuples_from_stage


@pytest.fixture(scope="module")
def stages() -> dict[str, dict[str, Any]]:
    return fixture_stages()


@pytest.fixture(scope="module")
def official() -> list[dict[str, Any]]:
    return fixture_official()


@pytest.fixture(scope="module")
def raw_tuples() -> dict[str, list[list[str]]]:
    return fixture_raw_tuples()


def test_raw_tuples_equal_the_jars_in_order(stages: dict[str, dict[str, Any]], raw_tuples: dict[str, Any]) -> None:
    """What the jar's parser emits per caption (its ``-cache`` content), order and repeats included."""
    assert set(stages) == set(raw_tuples)
    wrong = [c for c, stage in stages.items() if tuples_from_stage(stage) != raw_tuples[c]]
    assert not wrong, f"{len(wrong)} of {len(stages)} captions differ, e.g. {wrong[:3]}"


def test_every_image_equals_the_jar(stages: dict[str, dict[str, Any]], official: list[dict[str, Any]]) -> None:
    """Tuples, truth values and all seven categories per image; ties broken as the jar did."""
    tied, wrong = [], []
    for item in official:
        test = tuples_from_stage(stages[item["test"]])
        refs = [tuples_from_stage(stages[r]) for r in item["refs"]]
        diff, had_ties = check_item(test, refs, item)
        if diff:
            wrong.append((item["image_id"], diff[:3]))
        if had_ties:
            tied.append(item["image_id"])
    assert not wrong, f"{len(wrong)} of {len(official)} images differ: {wrong[:3]}"
    # Image 191381's references merge "toilet" into "bathroom" or "commode" (equal similarity).
    assert 191381 in tied


def test_metric_from_stages_equals_the_jar(stages: dict[str, dict[str, Any]], official: list[dict[str, Any]]) -> None:
    """The metric itself (``SPICE(parser=StagesParser(...))``): details, per-item and corpus values."""
    metric = SPICE(tokenizer="none", parser=StagesParser(stages), cache=False)
    result = metric.score(candidates=[i["test"] for i in official], references=[i["refs"] for i in official])
    assert result.details is not None
    differ = [i["image_id"] for i, d in zip(official, result.details, strict=True) if differences(d, i)]
    # Only the image whose references tie (the jar's own run merged the other way).
    assert differ == [191381]
    kept = [k for k, i in enumerate(official) if i["image_id"] != 191381]
    ours = [float(result.item_scores[k]) for k in kept]
    theirs = [official[k]["scores"]["All"]["f"] for k in kept]
    assert max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) < 1e-12
    assert math.isclose(sum(ours) / len(ours), sum(theirs) / len(theirs), rel_tol=0, abs_tol=1e-12)
