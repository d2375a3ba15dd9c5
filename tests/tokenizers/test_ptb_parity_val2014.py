"""PTB tokenizer parity with the official jar on every caption of COCO val2014 (slow, needs Java).

The official output is produced live, exactly as ``pycocoevalcap/tokenizer/ptbtokenizer.py`` does it:
captions joined with ``"\\n"`` (inner ``"\\n"`` replaced by spaces), written as UTF-8, run through
``java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase
FILE``, output lines filtered by the COCO punctuation list. The oracle directory is
``$CAPEVAL_ORACLE_DIR`` (default ``/tmp/capeval-oracle``), created by ``bash ../shared/oracle/setup.sh``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from capeval.tokenizers.ptb import COCO_PUNCTUATIONS, PTBTokenizer

pytestmark = pytest.mark.slow

ORACLE = Path(os.environ.get("CAPEVAL_ORACLE_DIR", "/tmp/capeval-oracle"))
JAR_GLOB = "venv/lib/python*/site-packages/pycocoevalcap/tokenizer/stanford-corenlp-3.4.1.jar"


def _jar() -> Path:
    if shutil.which("java") is None:
        pytest.skip("java not found (the official tokenizer is a Java program)")
    jars = sorted(ORACLE.glob(JAR_GLOB))
    if not jars:
        pytest.skip(f"no pycocoevalcap 1.2 oracle in {ORACLE}: run `bash ../shared/oracle/setup.sh {ORACLE}`")
    return jars[0]


def _official(captions: list[str], jar: Path, tmp_path: Path) -> list[str]:
    """The official tokenizer's output for one stream, run the way ptbtokenizer.py runs it."""
    path = tmp_path / "captions.txt"
    path.write_bytes("\n".join(c.replace("\n", " ") for c in captions).encode("utf-8"))
    result = subprocess.run(
        ["java", "-cp", str(jar), "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase", str(path)],
        capture_output=True,
        check=True,
    )
    lines = result.stdout.decode("utf-8").split("\n")
    return [" ".join(w for w in line.rstrip().split(" ") if w not in COCO_PUNCTUATIONS) for line in lines]


def _report(captions: list[str], ours: list[str], official: list[str]) -> str:
    bad = [i for i, (a, b) in enumerate(zip(ours, official, strict=False)) if a != b]
    examples = "\n".join(
        f"  [{i}] {captions[i]!r}\n    capeval : {ours[i]!r}\n    official: {official[i]!r}" for i in bad[:20]
    )
    return f"{len(bad)} of {len(captions)} captions differ (lengths {len(ours)} vs {len(official)}):\n{examples}"


def test_all_val2014_captions_in_file_order(tmp_path: Path) -> None:
    jar = _jar()
    annotations_path = ORACLE / "captions_val2014.json"
    if not annotations_path.exists():
        pytest.skip(f"{annotations_path} missing: run `bash ../shared/oracle/setup.sh {ORACLE}`")
    captions = [a["caption"] for a in json.loads(annotations_path.read_text(encoding="utf-8"))["annotations"]]
    assert len(captions) == 202_654
    official = _official(captions, jar, tmp_path)
    ours = PTBTokenizer().tokenize(captions)
    assert len(official) == len(captions)  # no line-break characters in val2014: official lines stay aligned
    assert ours == official, _report(captions, ours, official)


def _human_protocol() -> tuple[list[Any], list[str], dict[str, list[str]]]:
    human = ORACLE / "human"
    results_path, refs_path = human / "human_results.json", human / "human_refs.json"
    if not (results_path.exists() and refs_path.exists()):
        pytest.skip(f"val2014 human-agreement inputs missing in {human}")
    results = json.loads(results_path.read_text(encoding="utf-8"))
    refs = json.loads(refs_path.read_text(encoding="utf-8"))
    return [r["image_id"] for r in results], [r["caption"] for r in results], refs


def test_human_agreement_streams_live(tmp_path: Path) -> None:
    """Reference and candidate streams of the human-agreement protocol, as COCOEvalCap tokenizes them."""
    jar = _jar()
    ids, candidates, refs = _human_protocol()
    references = [r for i in ids for r in refs[str(i)]]
    for stream in (references, candidates):
        official = _official(stream, jar, tmp_path)
        ours = PTBTokenizer().tokenize(stream)
        assert ours == official, _report(stream, ours, official)


def test_human_agreement_against_stored_official_output() -> None:
    """Against the tokenized text stored by the oracle run (official_scores_human.json), when present."""
    stored_path = ORACLE / "human" / "official_scores_human.json"
    if not stored_path.exists():
        pytest.skip(f"{stored_path} not present")
    stored = json.loads(stored_path.read_text(encoding="utf-8"))["tokenized"]
    ids, candidates, refs = _human_protocol()
    references = [r for i in ids for r in refs[str(i)]]
    ours_refs = iter(PTBTokenizer().tokenize(references))
    ours_cands = PTBTokenizer().tokenize(candidates)
    assert ours_cands == [stored["res"][str(i)] for i in ids]
    for i in ids:
        expected = stored["gts"][str(i)]
        assert [next(ours_refs) for _ in expected] == expected, i
