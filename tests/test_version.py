"""The version is a PEP 440 development version, carried by every signature and listed in the CHANGELOG."""

from __future__ import annotations

import re
from pathlib import Path

import capeval
from capeval.registry import get_metric

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_a_development_version_with_a_changelog_heading() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", capeval.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {capeval.__version__}\n" in changelog, "add a CHANGELOG heading for the new version"


def test_signatures_carry_the_version() -> None:
    result = get_metric("bleu", tokenizer="ws").score(candidates=["a dog"], references=[["a dog"]])
    assert str(result.signature).endswith(f"|v:{capeval.__version__}")
