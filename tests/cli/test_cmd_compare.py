"""``capeval compare``: two results files on the same references."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from capeval import get_metric
from capeval.cli.main import main
from capeval.stats import paired_bootstrap

REFS = {
    str(i): [f"a dog number {i} runs on the grass", f"the dog {i} is running", f"a brown dog {i} outside"]
    for i in range(30)
}


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps(REFS))
    base = tmp_path / "base.json"
    base.write_text(json.dumps([{"image_id": int(i), "caption": f"a dog {i} runs"} for i in REFS]))
    system = tmp_path / "system.json"
    system.write_text(
        json.dumps([{"image_id": int(i), "caption": f"a dog number {i} runs on the grass"} for i in REFS])
    )
    return refs, base, system


def _compare(refs: Path, base: Path, system: Path, *options: str) -> list[str]:
    """``capeval compare`` arguments for the files of :func:`_files`, then ``options``."""
    return ["compare", "--references", str(refs), "--baseline", str(base), "--system", str(system), *options]


def test_compare_table_matches_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, system = _files(tmp_path)
    args = _compare(
        refs,
        base,
        system,
        "--metrics",
        "bleu,cider-d",
        "--tokenizer",
        "ws",
        "--n-resamples",
        "200",
        "--n-ar-resamples",
        "500",
        "--seed",
        "7",
        "--format",
        "csv",
        "--quiet",
    )
    assert main(args) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["metric"] for r in rows] == ["bleu-1", "bleu-2", "bleu-3", "bleu-4", "cider-d"]
    cider = get_metric("cider-d", tokenizer="ws")
    ids = list(REFS)
    b = cider.score(candidates=[f"a dog {i} runs" for i in ids], references=[REFS[i] for i in ids])
    s = cider.score(candidates=[f"a dog number {i} runs on the grass" for i in ids], references=[REFS[i] for i in ids])
    expected = paired_bootstrap(b, s, metric=cider, n_resamples=200, seed=7)
    row = rows[-1]
    assert float(row["baseline"]) == pytest.approx(b.score)
    assert float(row["system"]) == pytest.approx(s.score)
    assert float(row["p (bootstrap)"]) == pytest.approx(expected.p_value)
    assert float(row["p (AR)"]) < 0.01
    assert main(args) == 0
    assert list(csv.DictReader(io.StringIO(capsys.readouterr().out))) == rows  # deterministic


def test_compare_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, system = _files(tmp_path)
    assert (
        main(
            _compare(
                refs,
                base,
                system,
                "--metrics",
                "rouge-l",
                "--tokenizer",
                "ws",
                "--n-resamples",
                "50",
                "--n-ar-resamples",
                "50",
                "--methods",
                "bootstrap",
                "--quiet",
            )
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "95% CI" in out and "p (AR)" not in out and "seed:12345" in out


def test_compare_mismatched_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, system = _files(tmp_path)
    system.write_text(json.dumps([{"image_id": 0, "caption": "a dog"}]))
    assert main(_compare(refs, base, system, "--metrics", "rouge-l", "--tokenizer", "ws")) == 2
    assert "must cover the same images" in capsys.readouterr().err
