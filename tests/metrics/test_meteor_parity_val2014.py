"""METEOR on the COCO val2014 human-agreement protocol (40,504 images) against the official jar.

Slow (``pytest -m slow``). The official per-image METEOR comes from
``$CAPEVAL_ORACLE_DIR/human/official_scores_human.json`` when that oracle output exists (it holds
the official tokenized text too); otherwise the official code is run live through the oracle
in ``$CAPEVAL_ORACLE_DIR`` (default ``/tmp/capeval-oracle``; pycocoevalcap 1.2 + Java), which
is installed on first use. Skips cleanly when neither is possible.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from capeval.metrics.meteor import METEOR, MeteorDataError
from capeval.metrics.meteor._resources import load_meteor_data

pytestmark = pytest.mark.slow

ORACLE = Path(os.environ.get("CAPEVAL_ORACLE_DIR", "/tmp/capeval-oracle"))
#: Official corpus METEOR of the protocol (specs/official-oracle.md §2).
OFFICIAL_CORPUS = 0.24341103897286887


def _stored() -> tuple[list[str], list[list[str]], list[float], float] | None:
    path = ORACLE / "human" / "official_scores_human.json"
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    res, gts = data["tokenized"]["res"], data["tokenized"]["gts"]
    ids = [str(i) for i in data["meta"]["image_ids"]]
    cands = [res[i] if isinstance(res[i], str) else res[i][0] for i in ids]
    return cands, [gts[i] for i in ids], [data["per_image"][i]["METEOR"] for i in ids], data["corpus"]["METEOR"]


def _live() -> tuple[list[str], list[list[str]], list[float], float]:
    try:
        from tests.oracle.oracle import OracleUnavailable, human_agreement_protocol, run_official
    except ImportError as exc:  # pragma: no cover - layout without the shared oracle helper
        pytest.skip(f"oracle helper unavailable: {exc}")
    try:
        protocol = human_agreement_protocol()
        official = run_official(protocol["ids"], protocol["candidates"], protocol["references"], metrics=("meteor",))
    except (OracleUnavailable, OSError) as exc:
        pytest.skip(f"official oracle unavailable: {exc}")
    keys = [str(k) for k in range(len(protocol["ids"]))]  # the oracle keys items by position
    tok = official["tokenized"]
    per_item = official["per_item"]
    return (
        [tok["candidates"][k] for k in keys],
        [tok["references"][k] for k in keys],
        [per_item[k]["METEOR"] for k in keys],
        official["corpus"]["METEOR"],
    )


@pytest.fixture(scope="module")
def official() -> tuple[list[str], list[list[str]], list[float], float]:
    try:
        load_meteor_data()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    stored = _stored()
    return stored if stored is not None else _live()


def test_every_image_matches_the_official_meteor(official: Any) -> None:
    cands, refs, expected, corpus = official
    assert len(cands) == 40504
    result = METEOR(tokenizer="none").score_tokenized(candidates=cands, references=refs)
    diff = np.abs(result.item_scores - np.asarray(expected))
    mismatches = int((diff > 1e-12).sum())
    assert mismatches == 0, f"{mismatches} of {len(cands)} images differ (max {diff.max()})"
    assert corpus == OFFICIAL_CORPUS
    assert result.score == pytest.approx(corpus, rel=1e-15, abs=0)
