"""Shared fixtures: golden values of the official COCO evaluation on the demo set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def demo_official() -> dict[str, Any]:
    """Official scores, BLEU counts and tokenized text of the 1,000-image demo."""
    with open(DATA / "coco_demo" / "official_scores.json", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


@pytest.fixture(scope="session")
def demo_tokenized(demo_official: dict[str, Any]) -> tuple[list[str], list[str], list[list[str]]]:
    """``(ids, candidates, references)`` as the official tokenizer produced them, official order."""
    res, gts = demo_official["tokenized"]["res"], demo_official["tokenized"]["gts"]
    ids = list(res)
    return ids, [res[i] for i in ids], [gts[i] for i in ids]
