"""COCO val2014 human-agreement protocol (40,504 images): capeval vs the official code, run live.

Each image's first caption is scored against its next four. The official package
(pycocoevalcap 1.2, with Java) is installed from PyPI into the oracle directory on first use.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from bench.oracle import OracleUnavailable, human_agreement_protocol, run_official

pytestmark = pytest.mark.slow

#: Acceptance bound on |capeval - official|, per image and corpus.
TOLERANCE = 1e-9
SCORERS = {"bleu": ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"], "rouge-l": ["ROUGE_L"], "cider-d": ["CIDEr"]}


@pytest.fixture(scope="module")
def protocol() -> dict[str, Any]:
    try:
        return human_agreement_protocol()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def official(protocol: dict[str, Any]) -> dict[str, Any]:
    try:
        return run_official(protocol["ids"], protocol["candidates"], protocol["references"])
    except OracleUnavailable as exc:
        pytest.skip(str(exc))


def _compare(result_tables: dict[str, Any], official: dict[str, Any], keys: list[str]) -> None:
    for capeval_name, official_name in result_tables["names"].items():
        column = result_tables["items"][capeval_name]
        expected = np.array([official["per_item"][k][official_name] for k in keys])
        diff = np.abs(column - expected)
        assert diff.max() <= TOLERANCE, f"{official_name}: {int((diff > TOLERANCE).sum())} images differ"
        assert abs(result_tables["corpus"][capeval_name] - official["corpus"][official_name]) <= TOLERANCE


def test_scorers_on_official_tokens(protocol: dict[str, Any], official: dict[str, Any]) -> None:
    """BLEU, ROUGE-L and CIDEr-D fed the official tokenizer's output."""
    from capeval.engines.local import evaluate

    keys = [str(i) for i in range(len(protocol["ids"]))]
    cands = [official["tokenized"]["candidates"][k] for k in keys]
    refs = [official["tokenized"]["references"][k] for k in keys]
    ev = evaluate(candidates=cands, references=refs, metrics=list(SCORERS), tokenizer="none")
    names = ev.official_names()
    tables = {
        "names": {k: v for k, v in names.items() if v in sum(SCORERS.values(), [])},
        "items": {k: r.item_table[k] for res in [ev.results] for r in res.values() for k in r.item_table},
        "corpus": ev.scores(),
    }
    _compare(tables, official, keys)
    bleu = ev.results["bleu"].stats.sum(axis=0)
    assert list(bleu[2:6]) == official["bleu_stats"]["guess"] and list(bleu[6:10]) == official["bleu_stats"]["correct"]


def test_end_to_end_with_capeval_tokenizer(protocol: dict[str, Any], official: dict[str, Any]) -> None:
    """Raw captions through capeval's PTB tokenizer and scorers vs the whole official pipeline."""
    from capeval.engines.local import evaluate

    ev = evaluate(
        candidates=protocol["candidates"], references=protocol["references"], metrics=list(SCORERS), tokenizer="ptb"
    )
    keys = [str(i) for i in range(len(protocol["ids"]))]
    names = ev.official_names()
    tables = {
        "names": {k: v for k, v in names.items() if v in sum(SCORERS.values(), [])},
        "items": {k: r.item_table[k] for r in ev.results.values() for k in r.item_table},
        "corpus": ev.scores(),
    }
    _compare(tables, official, keys)
