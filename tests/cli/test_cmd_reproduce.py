"""``capeval reproduce NAME --data DIR`` on files built in the distributed layouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capeval.cli.main import main
from capeval.meta_eval.protocols.curves import reference_curve

pytest.importorskip("scipy")
pytest.importorskip("matplotlib")

FAST = ["--metrics", "bleu-1,cider-d", "--tokenizer", "ws"]


def test_json_rows(flickr_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "flickr8k-expert", "--data", str(flickr_dir), "--format", "json", *FAST]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["protocol"] == "flickr8k-expert"
    assert len(out["rows"]) == 4
    for row in out["rows"]:
        assert set(row) >= {"metric", "statistic", "ours", "published", "source", "verified"}
        assert row["statistic"] in ("tau-b", "tau-c") and "Table 1" in row["source"] and row["verified"] is True
    bleu_c = next(r for r in out["rows"] if r["metric"] == "bleu-1" and r["statistic"] == "tau-c")
    assert bleu_c["published"] == 32.3


def test_text_and_latex_name_the_protocol(flickr_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "flickr8k-cf", "--data", str(flickr_dir), *FAST]) == 0
    captured = capsys.readouterr()
    assert "[protocol: flickr8k-cf]" in captured.out
    assert "published: Hessel et al. 2021, CLIPScore (EMNLP), Table 2 (Flickr8K-CF, tau-b)" in captured.out
    assert "published: Sarto et al. 2023, PAC-S (CVPR), Table 1 (Flickr8K-CF, tau-b and tau-c)" in captured.out
    assert "(unverified)" not in captured.out
    assert "references exclude every caption judged" in captured.out
    assert "took" in captured.err
    assert main(["reproduce", "flickr8k-cf", "--data", str(flickr_dir), "--format", "latex", *FAST]) == 0
    latex = capsys.readouterr().out
    assert "\\begin{tabular}" in latex and "% Flickr8K-CF" in latex and "17.90" in latex


def test_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "flickr8k-cf", "--data", str(tmp_path), *FAST]) == 2
    err = capsys.readouterr().err
    assert "missing file(s) for flickr8k-cf: CrowdFlowerAnnotations.txt (from Flickr8K" in err


def test_pascal_table_with_spread(pascal_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["reproduce", "pascal50s-clipscore", "--data", str(pascal_dir), "--draws", "2", *FAST]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "draws min" in out and "metric ties: half" in out and "pair_pascal.mat 'result'" in out


def test_unverified_published_values_are_marked(pascal_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["reproduce", "pascal50s-spice", "--data", str(pascal_dir), "--draws", "2", *FAST]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "64.20 (unverified)" in out  # CIDEr-D MM
    assert "published (unverified): Anderson et al. 2016, SPICE (ECCV), Table 4" in out
    assert "not checked against a copy of the cited table" in out
    assert main([*args, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows and all(r["verified"] is False and r["published"] is not None for r in rows)
    assert main([*args, "--format", "latex"]) == 0
    assert "64.20 (unverified)" in capsys.readouterr().out
    # The CLIPScore table was checked: no marker, and it has no BLEU-1 row.
    assert main(["reproduce", "pascal50s-clipscore", "--data", str(pascal_dir), "--draws", "2", *FAST]) == 0
    out = capsys.readouterr().out
    assert "(unverified)" not in out and "79.60" in out
    bleu = [line for line in out.splitlines() if line.startswith("bleu-1")]
    assert bleu and all(line.split()[-2:] == ["-", "-"] for line in bleu)


def test_reference_curve_table_and_figure(pascal_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "curve.png"
    args = ["reproduce", "pascal50s-spice", "--data", str(pascal_dir), "--curve", "1,3,12", "--draws", "2"]
    assert main([*args, *FAST, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "vs number of references [protocol: pascal50s-spice]" in out
    assert plot.stat().st_size > 10_000
    assert main([*args, *FAST, "--format", "json"]) == 0
    curve = json.loads(capsys.readouterr().out)["curve"]
    counts = {p["n_references"] for p in curve}
    assert counts == {1, 3, 12}
    # all 12 references of the synthetic pool: every draw is the same set
    full = [p for p in curve if p["n_references"] == 12]
    assert all(p["std"] == 0.0 and len(p["draws"]) == 2 for p in full)


def test_flickr_curve_and_bad_counts(flickr_dir: Path) -> None:
    from capeval.cli.cmd_reproduce import EngineScorer

    scorer = EngineScorer(["bleu-1"], tokenizer="ws")
    curve = reference_curve("flickr8k-expert", flickr_dir, scorer, [1, 5], draws=2)
    assert {(p.statistic, p.n_references) for p in curve.points} == {("tau-c", 1), ("tau-c", 5)}
    with pytest.raises(ValueError, match="at least 1"):
        reference_curve("flickr8k-expert", flickr_dir, scorer, [0], draws=2)
    with pytest.raises(ValueError, match="no reference-count curve for 'thumb'"):
        reference_curve("thumb", flickr_dir, scorer, [1])
