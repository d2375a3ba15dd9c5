"""``SPICE()`` with its defaults on the whole COCO demo against the unmodified jar, run live.

capeval scores the demo files as ``capeval score --metrics spice`` does (raw captions, its PTB
tokenizer, the exact CoreNLP 3.6.0 pipeline, the default parser); the jar
(``bench.oracle.run_spice``, ``-subset -detailed``) gets the input ``COCOEvalCap`` builds for
it. Every image must agree in every tuple, truth value and category value (within 1e-9), except
where the jar's scene-graph merge meets a tie that Java breaks by identity-hash order (image
191381 of this demo; see :mod:`capeval.metrics.spice.graph`): there one way of breaking the tie
must give the jar's record.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from tests.spice.grammar_fixture import default_grammar
from tests.spice.official import check_item, differences

from capeval.data import demo_paths
from capeval.engines.local import evaluate
from capeval.io import load_corpus
from capeval.metrics.spice import SPICE
from capeval.metrics.spice.score import CATEGORIES
from capeval.tokenizers.base import get_tokenizer

pytestmark = pytest.mark.slow

#: The demo's image whose references tie in the jar's scene-graph merge.
TIED_IMAGE = 191381


def _official(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import bench.oracle as oracle

    try:
        oracle.spice_full_dir()
    except oracle.OracleUnavailable as exc:
        pytest.skip(str(exc))
    return oracle.run_spice(items)


def test_coco_demo_default_spice_equals_the_jar() -> None:
    default_grammar()
    corpus = load_corpus(*demo_paths())
    ptb = get_tokenizer("ptb")
    cands = ptb.tokenize(list(corpus.candidates))
    flat = iter(ptb.tokenize([r for refs in corpus.references for r in refs]))
    refs = [[next(flat) for _ in item] for item in corpus.references]
    items = [{"image_id": i, "test": c, "refs": r} for i, c, r in zip(corpus.ids, cands, refs, strict=True)]
    official = {o["image_id"]: o for o in _official(sorted(items, key=lambda item: item["image_id"]))}

    metric = SPICE(cache=False)
    evaluation = evaluate(corpus, metrics=[metric], workers=1)
    result = evaluation.results["spice"]
    assert result.details is not None and evaluation.ids == corpus.ids
    assert any(
        field == "parser" and value.startswith("corenlp-3.6.0+pcfg-") for field, value in result.signature.fields
    )

    wrong = {}
    for item, detail in zip(items, result.details, strict=True):
        jar = official[item["image_id"]]
        diff = differences(detail, jar)
        if diff and item["image_id"] == TIED_IMAGE:
            parsed = metric.parse([item["test"], *item["refs"]])
            diff, tied = check_item(parsed[item["test"]], [parsed[r] for r in item["refs"]], jar)
            assert tied, "image 191381 differs without a tie"
        if diff:
            wrong[item["image_id"]] = diff[:3]
    assert not wrong, f"{len(wrong)} of {len(items)} images differ: {dict(list(wrong.items())[:3])}"

    # Per-image values of every category, and the corpus values over the images without the tie.
    table = result.item_table
    keep = np.array([i["image_id"] != TIED_IMAGE for i in items])
    for category in CATEGORIES:
        key = "spice" if category == "All" else f"spice-{category.lower()}-f"
        jar_values = np.array(
            [math.nan if official[i["image_id"]]["scores"][category]["f"] is None else
             official[i["image_id"]]["scores"][category]["f"] for i in items],
            dtype=float,
        )  # fmt: skip
        mine = np.asarray(table[key], dtype=float)
        np.testing.assert_allclose(mine[keep], jar_values[keep], rtol=0, atol=1e-9, equal_nan=True, err_msg=key)
        assert np.nanmean(mine[keep]) == pytest.approx(np.nanmean(jar_values[keep]), abs=1e-12)
    # The corpus value: equal but for the tied image's share (0 when the jar broke the tie as capeval).
    mine_all = np.asarray(result.item_scores, dtype=float)
    jar_all = np.array([official[i["image_id"]]["scores"]["All"]["f"] for i in items], dtype=float)
    tie_share = float(np.abs(mine_all - jar_all)[~keep].sum()) / len(items)
    assert abs(result.score - float(jar_all.mean())) <= tie_share + 1e-12
