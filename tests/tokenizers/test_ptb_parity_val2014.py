"""PTB tokenizer parity with the official jar on every caption of COCO val2014 (slow, needs Java).

The official output is produced live, exactly as ``pycocoevalcap/tokenizer/ptbtokenizer.py`` does it:
captions joined with ``"\\n"`` (inner ``"\\n"`` replaced by spaces), written as UTF-8, run through
``java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase
FILE``, output lines filtered by the COCO punctuation list. The official package is installed from PyPI
into ``$CAPEVAL_ORACLE_DIR`` (default ``/tmp/capeval-oracle``) on first use (``bench/oracle``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bench.oracle import (
    OracleUnavailable,
    human_agreement_protocol,
    oracle_dir,
    oracle_python,
    run_official,
    val2014_captions,
)

from capeval.tokenizers.ptb import COCO_PUNCTUATIONS, PTBTokenizer

pytestmark = pytest.mark.slow

JAR_GLOB = "venv/lib/python*/site-packages/pycocoevalcap/tokenizer/stanford-corenlp-3.4.1.jar"


def _jar() -> Path:
    """The official tokenizer jar, installing the oracle (pycocoevalcap 1.2 from PyPI) if needed."""
    try:
        oracle_python(need_java=True)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    return sorted(oracle_dir().glob(JAR_GLOB))[0]


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
    annotations = json.loads(val2014_captions().read_text(encoding="utf-8"))["annotations"]
    captions = [a["caption"] for a in annotations]
    assert len(captions) == 202_654
    official = _official(captions, jar, tmp_path)
    ours = PTBTokenizer().tokenize(captions)
    assert len(official) == len(captions)  # no line-break characters in val2014: official lines stay aligned
    assert ours == official, _report(captions, ours, official)


def test_human_agreement_streams_live(tmp_path: Path) -> None:
    """Reference and candidate streams of the human-agreement protocol, as COCOEvalCap tokenizes them."""
    jar = _jar()
    protocol = human_agreement_protocol()
    references = [r for refs in protocol["references"] for r in refs]
    for stream in (references, protocol["candidates"]):
        official = _official(stream, jar, tmp_path)
        ours = PTBTokenizer().tokenize(stream)
        assert ours == official, _report(stream, ours, official)


def test_human_agreement_through_the_official_python_wrapper() -> None:
    """Against pycocoevalcap's own PTBTokenizer class (its temp file, its line splitting), via the oracle."""
    _jar()
    protocol = human_agreement_protocol()
    stored = run_official(protocol["ids"], protocol["candidates"], protocol["references"], metrics=())["tokenized"]
    keys = [str(i) for i in range(len(protocol["ids"]))]
    flat = [r for refs in protocol["references"] for r in refs]
    ours_refs = iter(PTBTokenizer().tokenize(flat))
    assert PTBTokenizer().tokenize(protocol["candidates"]) == [stored["candidates"][k] for k in keys]
    for k in keys:
        expected = stored["references"][k]
        assert [next(ours_refs) for _ in expected] == expected, k


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_tricky_captions_live(seed: int, tmp_path: Path) -> None:
    """Captions glued from tricky pieces (entities, quotes in words, dots, URLs, non-ASCII; see
    ``corenlp_stress.py``) as one stream, with the official lexer's line breaks made spaces."""
    from tests.tokenizers.corenlp_stress import random_captions

    jar = _jar()
    breaks = str.maketrans(dict.fromkeys("\n\r\u2028\u2029\x0b\x0c\x85", " "))
    stream = [caption.translate(breaks) for caption in random_captions(seed, 20_000)]
    official = _official(stream, jar, tmp_path)
    ours = PTBTokenizer().tokenize(stream)
    assert ours == official, _report(stream, ours, official)
