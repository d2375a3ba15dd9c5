"""``capeval score`` and ``capeval demo`` through ``main(argv)``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from capeval.cli.main import main
from capeval.data import demo_paths

#: Agreement with the official code (the parity suites find 1e-15; printing keeps full precision).
TOLERANCE = 1e-12


def test_score_json_gives_the_official_demo_values(tmp_path: Path, capsys: Any, demo_official: dict[str, Any]) -> None:
    """``capeval score`` with its defaults prints the official COCO evaluation's numbers for the demo."""
    results, refs = demo_paths()
    per_image = tmp_path / "per_image.json"
    code = main(
        [
            "score",
            "--results",
            str(results),
            "--references",
            str(refs),
            "--format",
            "json",
            "--per-image",
            str(per_image),
            "--quiet",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    official = demo_official["corpus"]  # pycocoevalcap 1.2 on the same files (tests/data/coco_demo)
    assert set(official) == {"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"}
    for key, value in official.items():
        assert out[key] == pytest.approx(value, rel=0, abs=TOLERANCE), key
    # the rounded figures of the official demo notebook
    rounded = {k: round(out[k], 4) for k in official}
    assert rounded == {
        "Bleu_1": 0.5794,
        "Bleu_2": 0.4044,
        "Bleu_3": 0.2785,
        "Bleu_4": 0.1908,
        "METEOR": 0.1953,
        "ROUGE_L": 0.3963,
        "CIDEr": 0.5998,
    }
    assert out["capeval"]["scores"]["cider-d"] == out["CIDEr"]
    assert out["capeval"]["signatures"]["cider-d"].startswith("cider-d|n:4|sigma:6|df:refs|tok:ptb")
    table = json.loads(per_image.read_text())
    assert len(table) == 1000 and set(table["391895"]) == set(official)
    for key in official:
        assert table["391895"][key] == pytest.approx(demo_official["per_image"]["391895"][key], rel=0, abs=TOLERANCE)


def test_table_and_csv(capsys: Any) -> None:
    assert main(["demo", "--metrics", "bleu,cider-d", "--quiet", "--tokenizer", "ws"]) == 0
    out = capsys.readouterr().out
    assert "Bleu_4" in out and "CIDEr" in out and "cider-d|n:4|sigma:6" in out
    assert main(["demo", "--metrics", "rouge-l", "--format", "csv", "--quiet", "--tokenizer", "ws"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "metric,official,score,signature" and lines[1].startswith("rouge-l,ROUGE_L,")


def test_errors_exit_nonzero_with_message(tmp_path: Path, capsys: Any) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    _, refs = demo_paths()
    assert main(["score", "--results", str(bad), "--references", str(refs), "--quiet"]) == 2
    assert "bad.json: invalid JSON" in capsys.readouterr().err
    assert main(["score", "--results", str(bad), "--references", str(refs), "--metrics", "nosuch"]) == 2
    assert main(["score", "--results", str(refs), "--references", str(refs), "--quiet"]) == 2
    assert "COCO annotations" in capsys.readouterr().err


def test_unknown_metric(tmp_path: Path, capsys: Any) -> None:
    results, refs = demo_paths()
    assert main(["score", "--results", str(results), "--references", str(refs), "--metrics", "nosuch", "--quiet"]) == 2
    assert "unknown metric 'nosuch'" in capsys.readouterr().err


def test_a_misspelt_metric_fails_before_the_files_are_read(tmp_path: Path, capsys: Any) -> None:
    missing = tmp_path / "not-there.json"
    assert main(["score", "--results", str(missing), "--references", str(missing), "--metrics", "cider,blue"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("capeval: error: unknown metric 'blue' (did you mean 'bleu'?); choose from bleu, ")
    assert "scoring" not in err and "not-there" not in err
    assert main(["demo", "--metrics", "rogue-l"]) == 2
    assert "unknown metric 'rogue-l' (did you mean 'rouge-l'?)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        ('[{"image_id": 1, "caption": "a dog', "line 1, column 29", "a string starts here and is never closed"),
        ('[{"image_id": 1,\n "caption": "a\tdog"}]', "line 2, column 15", "a string holds a raw control character"),
        ('[{"image_id": 1, "caption": "a"},]', "line 1, column 34", "a value was expected here"),
        ("[{'image_id': 1}]", "line 1, column 3", "a name in double quotes was expected here"),
        ('[{"image_id": 1} {"image_id": 2}]', "line 1, column 18", "',' or a closing bracket was expected here"),
    ],
)
def test_invalid_json_is_a_whole_sentence_naming_file_line_and_column(
    tmp_path: Path, capsys: Any, text: str, where: str, problem: str
) -> None:
    bad = tmp_path / "results.json"
    bad.write_text(text, encoding="utf-8")
    _, refs = demo_paths()
    assert main(["score", "--results", str(bad), "--references", str(refs), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"capeval: error: {bad}: invalid JSON at {where}: {problem}"), err
    assert not err.endswith((" at", " starting at")), err


def test_strict_names_the_results_file(tmp_path: Path, capsys: Any) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps([{"image_id": 1, "caption": " "}, {"image_id": 2, "caption": "a cat"}]))
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps({"1": ["a dog"], "2": ["a cat"]}))
    args = ["score", "--results", str(results), "--references", str(refs), "--metrics", "bleu"]
    assert main([*args, "--strict"]) == 2
    assert f"capeval: error: {results}: 1 empty candidate caption(s) (image 1); --strict" in capsys.readouterr().err
    assert main(args) == 0
    assert f"capeval: warning: {results}: 1 empty candidate caption(s) (image 1)" in capsys.readouterr().err


def test_demo_prints_the_official_figures_of_the_metrics_it_scored(capsys: Any) -> None:
    assert main(["demo", "--metrics", "bleu,cider-d", "--tokenizer", "ws"]) == 0
    official = capsys.readouterr().err.strip().splitlines()[-1]
    assert official == (
        "Official COCO evaluation on the same data: Bleu_1 0.579  Bleu_2 0.404  Bleu_3 0.279  Bleu_4 0.191  CIDEr 0.600"
    )
    assert main(["demo", "--metrics", "rouge-n", "--tokenizer", "ws"]) == 0
    assert "Official COCO evaluation" not in capsys.readouterr().err


def test_demo_without_spices_grammar_scores_the_rest(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """A machine without CoreNLP's grammar (and no download): the demo leaves SPICE out, saying why."""
    from capeval.metrics.spice.corenlp import sources

    def missing(*args: Any, **kwargs: Any) -> Any:
        raise sources.GrammarNotFound("SPICE's exact parser needs the grammar ... set CAPEVAL_SPICE_GRAMMAR=PATH")

    monkeypatch.setattr(sources, "load_grammar", missing)
    assert main(["demo", "--metrics", "cider-d,spice", "--format", "json", "--tokenizer", "ws"]) == 0
    captured = capsys.readouterr()
    assert "capeval: spice not scored: SPICE's exact parser needs the grammar" in captured.err
    assert "CAPEVAL_SPICE_GRAMMAR" in captured.err
    scores = json.loads(captured.out)
    assert "CIDEr" in scores and "SPICE" not in scores
    assert main(["demo", "--metrics", "spice", "--quiet"]) == 2  # asked for alone: the error itself
    assert "capeval: error: SPICE's exact parser needs the grammar" in capsys.readouterr().err


def test_no_command_prints_help(capsys: Any) -> None:
    assert main([]) == 2
    with pytest.raises(SystemExit):
        main(["--version"])


def test_undefined_scores_are_written_as_null(tmp_path: Path) -> None:
    from capeval.io import write_json

    path = tmp_path / "out.json"
    write_json(path, {"1": {"SPICE": float("nan"), "CIDEr": 0.5, "x": [float("inf")]}})
    assert json.loads(path.read_text()) == {"1": {"SPICE": None, "CIDEr": 0.5, "x": [None]}}


def test_per_image_json_is_one_image_a_line(tmp_path: Path) -> None:
    from capeval.io import write_json

    path = tmp_path / "out.json"
    rows = {7: {"CIDEr": 0.1 + 0.2, "SPICE": float("nan")}, "x\u00e9": {"CIDEr": 1e-300}}
    write_json(path, rows)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == ["{", ' "7": {"CIDEr": 0.30000000000000004, "SPICE": null},', ' "x\u00e9": {"CIDEr": 1e-300}', "}"]
    write_json(path, [1.5, float("inf")])
    assert path.read_text() == "[1.5, null]\n"
