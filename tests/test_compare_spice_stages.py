"""``bench/compare_spice_stages.py``: the held-out check of ``capeval spice parse`` against official stages."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "compare_spice_stages.py"
STAGES = ROOT / "tests" / "data" / "spice" / "coco_demo_stages.jsonl.gz"


def _run(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, files)], capture_output=True, text=True, timeout=120)


def test_identical_stages_pass_and_a_changed_field_is_named(tmp_path: Path) -> None:
    with gzip.open(STAGES, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh][:40]
    ours = tmp_path / "capeval.jsonl"
    ours.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    done = _run(STAGES, ours)
    assert done.returncode == 0, done.stderr
    assert "every stage identical: 40 / 40 (100.000%)" in done.stdout

    records[3]["sentences"][0]["tokens"][0][2] = "changed"
    ours.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    done = _run(STAGES, ours)
    assert done.returncode == 1
    assert "lemmas       identical       39 / 40" in done.stdout
    assert "every stage identical: 39 / 40" in done.stdout
    assert f"differs: {records[3]['caption']!r}" in done.stderr and "lemmas:" in done.stderr


def test_bad_lines_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"caption": "a dog", "sentences": []}\n{"sentences": []}\n', encoding="utf-8")
    done = _run(STAGES, bad)
    assert done.returncode != 0 and f"{bad}: line 2 has no caption field" in done.stderr
