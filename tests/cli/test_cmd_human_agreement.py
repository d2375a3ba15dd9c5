"""``capeval human-agreement`` on a small COCO-format file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capeval import get_metric
from capeval.cli.main import main

CAPTIONS = {
    1: [
        "a dog runs on the grass",
        "a brown dog running",
        "the dog plays outside",
        "a dog in a field",
        "a puppy running on grass",
        "a sixth caption is ignored",
    ],
    2: [
        "two kids swim in a pool",
        "kids are swimming",
        "children playing in the water",
        "two kids in a swimming pool",
        "a boy and a girl swim",
    ],
    3: [
        "a red car on a street",
        "a car parked by the road",
        "a red vehicle on the road",
        "a small red car",
        "a car on a city street",
    ],
}


def _write(tmp_path: Path, captions: dict[int, list[str]]) -> Path:
    anns = [{"image_id": i, "id": 10 * i + j, "caption": c} for i, caps in captions.items() for j, c in enumerate(caps)]
    path = tmp_path / "captions.json"
    path.write_text(json.dumps({"images": [{"id": i} for i in captions], "annotations": anns}))
    return path


def _agreement(path: Path, *options: str) -> list[str]:
    """``capeval human-agreement`` arguments for the captions file ``path``, then ``options``."""
    return ["human-agreement", "--annotations", str(path), *options]


def test_table_and_fold_one_matches_direct_scoring(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, CAPTIONS)
    code = main(
        _agreement(
            path,
            "--metrics",
            "bleu,rouge-l,cider-d",
            "--tokenizer",
            "ws",
            "--format",
            "csv",
            "--quiet",
        )
    )
    assert code == 0
    lines = capsys.readouterr().out.strip().splitlines()
    header = lines[0].split(",")
    assert header[:5] == ["held out", "bleu-1", "bleu-2", "bleu-3", "bleu-4"]
    assert [line.split(",")[0] for line in lines[1:]] == [*(f"caption {i}" for i in range(1, 6)), "mean", "std"]
    fold1 = dict(zip(header[1:], map(float, lines[1].split(",")[1:]), strict=True))
    cider = get_metric("cider-d", tokenizer="ws").score(
        candidates=[c[0] for c in CAPTIONS.values()], references=[c[1:5] for c in CAPTIONS.values()]
    )
    assert fold1["cider-d"] == pytest.approx(cider.score, rel=1e-12)


def test_words_and_pk_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    path = _write(tmp_path, CAPTIONS)
    code = main(
        _agreement(
            path,
            "--metrics",
            "rouge-l",
            "--tokenizer",
            "ws",
            "--words",
            str(tmp_path / "w.csv"),
            "--pk-plot",
            str(tmp_path / "pk.png"),
            "--min-word-count",
            "1",
            "--folds",
            "1,3",
            "--quiet",
        )
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "caption 3" in out and "caption 2" not in out and " s in total" in out
    assert (tmp_path / "w.csv").read_text().startswith("word,precision,recall")
    assert (tmp_path / "pk.png").exists()


def test_short_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    captions = dict(CAPTIONS)
    captions[4] = ["only", "three", "captions"]
    path = _write(tmp_path, captions)
    assert main(_agreement(path, "--metrics", "rouge-l", "--tokenizer", "ws")) == 2
    assert "1 image(s) have fewer than 5 captions (first: 4)" in capsys.readouterr().err
    code = main(_agreement(path, "--metrics", "rouge-l", "--tokenizer", "ws", "--skip-short", "--quiet"))
    assert code == 0 and "3 images" in capsys.readouterr().out
