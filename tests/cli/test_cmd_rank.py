"""``capeval rank``: R@k tables, S@k with judgments, Borda and system comparison."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from capeval.cli.main import main
from capeval.ranking import evaluate_ranking


def _matrices(tmp_path: Path) -> tuple[Path, Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    images = rng.normal(size=(20, 8))
    caps = np.repeat(images, 5, axis=0)
    s1 = images @ (caps + rng.normal(scale=1.0, size=caps.shape)).T
    s2 = images @ (caps + rng.normal(scale=3.0, size=caps.shape)).T
    np.save(tmp_path / "s1.npy", s1)
    np.save(tmp_path / "s2.npy", s2)
    return tmp_path / "s1.npy", tmp_path / "s2.npy", s1, s2


def test_rank_table_matches_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p1, _, s1, _ = _matrices(tmp_path)
    assert main(["rank", "--scores", str(p1), "--captions-per-image", "5", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    gold = [c // 5 for c in range(100)]
    for row in rows:
        expected = evaluate_ranking(s1, gold, task=row["task"])
        assert float(row["R@5"]) == pytest.approx(100 * expected.recall[5])
        assert float(row["median rank"]) == expected.median_rank


def test_rank_borda_compare_and_judgments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p1, p2, s1, _ = _matrices(tmp_path)
    judgments = np.where(np.arange(100)[None, :] // 5 == np.arange(20)[:, None], 4.0, 1.0)
    np.save(tmp_path / "j.npy", judgments)
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([c // 5 for c in range(100)]))
    code = main(
        [
            "rank",
            "--scores",
            str(p1),
            str(p2),
            "--gold",
            str(gold),
            "--borda",
            "--compare",
            "--judgments",
            str(tmp_path / "j.npy"),
            "--task",
            "annotation",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "borda" in out and "McNemar R@1" in out and "S@1" in out and "R-precision" in out
    # with judgments equal to the gold, S@k equals R@k
    assert (
        main(
            [
                "rank",
                "--scores",
                str(p1),
                "--captions-per-image",
                "5",
                "--judgments",
                str(tmp_path / "j.npy"),
                "--task",
                "annotation",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["S@1"] == row["R@1"] and row["S@10"] == row["R@10"]


def test_ranked_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ranked = tmp_path / "r.json"
    ranked.write_text(json.dumps({"pool": ["a", "b", "c", "d"], "rankings": {"i0": ["b", "a"], "i1": ["a", "d"]}}))
    assert (
        main(
            [
                "rank",
                "--ranked",
                str(ranked),
                "--captions-per-image",
                "2",
                "--task",
                "annotation",
                "--k",
                "1",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert float(row["R@1"]) == 50.0 and float(row["median rank"]) == 1.5


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p1, _, _, _ = _matrices(tmp_path)
    assert main(["rank", "--scores", str(p1)]) == 2
    assert "--captions-per-image" in capsys.readouterr().err
    assert main(["rank", "--scores", str(p1), "--captions-per-image", "7"]) == 2
    assert "groups of 7" in capsys.readouterr().err
    assert main(["rank", "--scores", str(p1), "--captions-per-image", "5", "--compare"]) == 2
    assert "two systems" in capsys.readouterr().err


def test_rank_borda_aggregates_each_direction_on_its_own_axis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from capeval.ranking import borda_aggregate

    p1, p2, s1, s2 = _matrices(tmp_path)
    assert main(["rank", "--scores", str(p1), str(p2), "--captions-per-image", "5", "--borda", "--format", "csv"]) == 0
    rows = {(r["system"], r["task"]): r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    gold = [c // 5 for c in range(100)]
    _, by_image = borda_aggregate([s1, s2])
    _, by_caption = borda_aggregate([s1.T, s2.T])  # search ranks images within each caption
    annotation = evaluate_ranking(-by_image.astype(float), gold, task="annotation")
    search = evaluate_ranking(-by_caption.T.astype(float), gold, task="search")
    assert float(rows[("borda", "annotation")]["median rank"]) == annotation.median_rank
    assert float(rows[("borda", "search")]["median rank"]) == search.median_rank
    assert float(rows[("borda", "search")]["R@1"]) == pytest.approx(100 * search.recall[1])
