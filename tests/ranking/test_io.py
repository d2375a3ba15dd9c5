"""Score matrices, ranked lists and gold mappings from files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from capeval.ranking import evaluate_ranking, read_gold, read_ranked_lists, read_score_matrix

MATRIX = np.array([[0.8, 0.9, 0.1, 0.2], [0.9, 0.1, 0.5, 0.6]])


def test_npy_csv_json_agree(tmp_path: Path) -> None:
    np.save(tmp_path / "s.npy", MATRIX)
    (tmp_path / "s.csv").write_text("\n".join(",".join(str(v) for v in row) for row in MATRIX) + "\n")
    (tmp_path / "l.csv").write_text("image,c0,c1,c2,c3\nimg0,0.8,0.9,0.1,0.2\nimg1,0.9,0.1,0.5,0.6\n")
    (tmp_path / "s.json").write_text(json.dumps(MATRIX.tolist()))
    (tmp_path / "d.json").write_text(
        json.dumps({"scores": MATRIX.tolist(), "queries": ["img0", "img1"], "pool": ["c0", "c1", "c2", "c3"]})
    )
    for name in ("s.npy", "s.csv", "l.csv", "s.json", "d.json"):
        assert np.array_equal(read_score_matrix(tmp_path / name).scores, MATRIX), name
    labelled = read_score_matrix(tmp_path / "l.csv")
    assert labelled.queries == ("img0", "img1") and labelled.pool == ("c0", "c1", "c2", "c3")


def test_gold_forms(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_text("[0, 0, 1, 1]")
    assert read_gold(tmp_path / "g.json") == [0, 0, 1, 1]
    (tmp_path / "d.json").write_text(
        json.dumps({"scores": MATRIX.tolist(), "queries": ["img0", "img1"], "pool": ["c0", "c1", "c2", "c3"]})
    )
    (tmp_path / "m.json").write_text(json.dumps({"c0": "img0", "c1": "img0", "c2": "img1", "c3": "img1"}))
    assert read_gold(tmp_path / "m.json", read_score_matrix(tmp_path / "d.json")) == [0, 0, 1, 1]
    (tmp_path / "bad.json").write_text(json.dumps({"c0": "img0"}))
    with pytest.raises(ValueError, match="pool item 'c1' has no gold query"):
        read_gold(tmp_path / "bad.json", read_score_matrix(tmp_path / "d.json"))


def test_ranked_lists(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(
        json.dumps({"pool": ["c0", "c1", "c2", "c3"], "rankings": {"img0": ["c1", "c0", "c3"], "img1": ["c0", "c3"]}})
    )
    m = read_ranked_lists(tmp_path / "r.json")
    result = evaluate_ranking(m.scores, [0, 0, 1, 1], ks=(1, 2))
    # img1: c0 (wrong), c3 (gold) -> rank 2
    assert result.ranks.tolist() == [1, 2]
    (tmp_path / "bad.json").write_text(json.dumps({"pool": ["c0"], "rankings": {"q": ["c0", "c0"]}}))
    with pytest.raises(ValueError, match="ranks 'c0' twice"):
        read_ranked_lists(tmp_path / "bad.json")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("x.csv", "0.1,0.2\n0.3,abc\n", "data row 2, column 2"),
        ("x.json", "[[0.1, 0.2], [0.3]]", "rows of different lengths"),
        ("x.json", '{"score": []}', "'scores' field"),
        ("x.txt", "0.1", "unknown score-matrix format"),
        ("x.json", "{oops", "invalid JSON"),
    ],
)
def test_malformed(tmp_path: Path, name: str, content: str, message: str) -> None:
    (tmp_path / name).write_text(content)
    with pytest.raises(ValueError, match=message):
        read_score_matrix(tmp_path / name)
