"""``capeval correlate`` on the Flickr8K-Expert and THumB fixtures."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest

from capeval.cli.main import main

ss = pytest.importorskip("scipy.stats")
pytest.importorskip("matplotlib")

DATA = Path(__file__).parents[1] / "data" / "meta_eval"
F8K = str(DATA / "flickr8k_expert_dev_head300.tsv")
#: ``capeval correlate`` on the Flickr8K-Expert fixture; tests append their options.
F8K_ARGS = ["correlate", "--dataset", "flickr8k-expert-tsv", "--judgments", F8K]
#: ``capeval correlate`` on the THumB fixture.
THUMB_ARGS = [
    "correlate",
    "--dataset",
    "thumb",
    "--judgments",
    str(DATA / "thumb_head250.jsonl"),
    "--references",
    str(DATA / "thumb_references_head.jsonl"),
]


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_flickr8k_spice_column_equals_scipy(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            *F8K_ARGS,
            "--metrics",
            "",
            "--columns",
            "spice_f",
            "--format",
            "csv",
        ]
    )
    assert code == 0
    rows = _csv(capsys.readouterr().out)
    ours = float(rows[0]["item kendall-c"])
    lines = Path(F8K).read_text().splitlines()[1:]
    head = lines[0]
    assert head  # non-empty fixture
    spice, experts = [], []
    for line in lines:
        parts = line.split("\t")
        for e in parts[3:6]:  # one row per individual expert score
            spice.append(float(parts[7]))
            experts.append(float(e))
    assert ours == pytest.approx(ss.kendalltau(spice, experts, variant="c").statistic, rel=1e-12)


def test_flickr8k_metric_table_text_latex_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "scatter.png"
    code = main(
        [
            *F8K_ARGS,
            "--tokenizer",
            "ws",
            "--metrics",
            "bleu-1,bleu-4,rouge-l,cider-d",
            "--columns",
            "spice_f",
            "--coefficients",
            "kendall-c,kendall-b,pearson,spearman",
            "--plot",
            str(plot),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    for name in ("bleu-1", "bleu-4", "rouge-l", "cider-d", "spice_f"):
        assert name in out
    assert "n=900" in out and "bleu|" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    latex = tmp_path / "t.tex"
    main(
        [
            *F8K_ARGS,
            "--tokenizer",
            "ws",
            "--metrics",
            "cider-d",
            "--format",
            "latex",
            "--output",
            str(latex),
        ]
    )
    assert latex.read_text().startswith("\\begin{tabular}")
    assert "cider-d" in latex.read_text()


def test_thumb_system_and_item_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "thumb.svg"
    code = main(
        [
            *THUMB_ARGS,
            "--tokenizer",
            "ws",
            "--metrics",
            "bleu-4,cider-d",
            "--level",
            "both",
            "--coefficients",
            "pearson,kendall-b",
            "--format",
            "csv",
            "--plot",
            str(plot),
        ]
    )
    assert code == 0
    rows = _csv(capsys.readouterr().out)
    assert [r["metric"] for r in rows] == ["bleu-4", "cider-d"]
    assert all(-1 <= float(r["system pearson"]) <= 1 for r in rows)
    assert plot.exists() and (tmp_path / "thumb-items.svg").exists()
    assert "<svg" in plot.read_text()


def test_system_level_matches_corpus_scores(capsys: pytest.CaptureFixture[str]) -> None:
    from capeval import get_metric
    from capeval.meta_eval import load_thumb

    j = load_thumb(DATA / "thumb_head250.jsonl", DATA / "thumb_references_head.jsonl")
    metric = get_metric("cider-d", tokenizer="ws")
    systems = list(dict.fromkeys(j.systems or ()))
    corpus, human = [], []
    for s in systems:
        idx = [i for i, x in enumerate(j.systems or ()) if x == s]
        r = metric.score(candidates=[j.candidates[i] for i in idx], references=[j.references[i] for i in idx])
        corpus.append(r.score)
        human.append(float(np.mean(j.ratings[idx, 0])))
    main(
        [
            *THUMB_ARGS,
            "--tokenizer",
            "ws",
            "--metrics",
            "cider-d",
            "--level",
            "system",
            "--coefficients",
            "pearson",
            "--format",
            "csv",
        ]
    )
    rows = _csv(capsys.readouterr().out)
    assert float(rows[0]["system pearson"]) == pytest.approx(ss.pearsonr(corpus, human).statistic, rel=1e-9)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--columns", "nope"], "has no column 'nope'"),
        (["--coefficients", "tau"], "unknown coefficient"),
        (["--metrics", "blue"], "unknown metric"),
        (["--level", "system"], "has no systems"),
        (["--metrics", "", "--columns", ""], "nothing to correlate"),
    ],
)
def test_errors(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*F8K_ARGS, "--tokenizer", "ws", *extra])
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_full_flickr8k_expert_dev(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).parents[2] / ".." / "shared" / "data" / "flickr8k-expert-dev" / "flickr8k_expert_dev.tsv"
    if not path.exists():
        pytest.skip("../shared is not available")
    main(
        [
            "correlate",
            "--dataset",
            "flickr8k-expert-tsv",
            "--judgments",
            str(path),
            "--metrics",
            "",
            "--columns",
            "spice_f",
            "--format",
            "csv",
        ]
    )
    ours = float(_csv(capsys.readouterr().out)[0]["item kendall-c"])
    from capeval.meta_eval import load_flickr8k_expert_tsv

    j = load_flickr8k_expert_tsv(path)
    ref = ss.kendalltau(np.repeat(j.columns["spice_f"], 3), j.ratings.ravel(), variant="c").statistic
    assert ours == pytest.approx(ref, rel=1e-12)
    assert ours == pytest.approx(0.4487, abs=1e-4)


def _pascal_files(tmp_path: Path) -> tuple[Path, Path]:
    scipy_io = pytest.importorskip("scipy.io")
    pairs = [
        ("a dog runs on the grass", "a cat sleeps", 40),  # humans prefer A (40 of 48 votes)
        ("a red car", "a red car parked on the street", 10),  # humans prefer B
    ]
    new_input = np.empty((1, len(pairs)), dtype=object)
    dtype = [("ref", object), ("a", object), ("b", object), ("winner", object)]
    triplets = np.zeros((1, 48 * len(pairs)), dtype=dtype)
    refs = [["a dog runs on the grass outside", "the dog is running on grass"], ["a red car parked on a street"]]
    for i, (a, b, votes_a) in enumerate(pairs):
        cell = np.empty((1, 3), dtype=object)
        cell[0, :] = [f"img{i}.jpg", a, b]
        new_input[0, i] = cell
        for j in range(48):
            triplets[0, 48 * i + j] = (refs[i][j % len(refs[i])], a, b, np.array([[1 if j < votes_a else -1]]))
    scipy_io.savemat(tmp_path / "pair.mat", {"new_input": new_input, "category": np.array([[1, 4]])})
    scipy_io.savemat(tmp_path / "consensus.mat", {"triplets": triplets})
    return tmp_path / "pair.mat", tmp_path / "consensus.mat"


def test_pascal50s_pairwise_accuracy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pair, consensus = _pascal_files(tmp_path)
    code = main(
        [
            "correlate",
            "--dataset",
            "pascal50s",
            "--judgments",
            str(pair),
            "--consensus",
            str(consensus),
            "--metrics",
            "bleu-1,cider-d",
            "--tokenizer",
            "ws",
            "--format",
            "csv",
        ]
    )
    assert code == 0
    rows = _csv(capsys.readouterr().out)
    assert [r["metric"] for r in rows] == ["bleu-1", "cider-d"]
    assert set(rows[0]) == {"metric", "HC", "MM", "all"}
    assert float(rows[1]["all"]) == 100.0  # CIDEr-D picks the human choice in both pairs
    assert main(["correlate", "--dataset", "pascal50s", "--judgments", str(pair), "--metrics", "cider-d"]) == 2
    assert "--consensus" in capsys.readouterr().err


def test_kappa_columns_and_cumulative_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capeval.meta_eval import cohen_kappa, load_flickr8k_expert_tsv

    assert (
        main(
            [
                *F8K_ARGS,
                "--metrics",
                "",
                "--columns",
                "spice_f",
                "--kappa",
                "3",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    row = _csv(capsys.readouterr().out)[0]
    j = load_flickr8k_expert_tsv(F8K)
    threshold = float(row["at metric>="])
    expected = cohen_kappa(np.repeat(j.columns["spice_f"], 3) >= threshold, j.ratings.ravel() >= 3)
    assert float(row["kappa (human>=3)"]) == pytest.approx(expected)
    plot = tmp_path / "cum.png"
    assert (
        main(
            [
                *THUMB_ARGS,
                "--tokenizer",
                "ws",
                "--metrics",
                "bleu-4",
                "--cumulative",
                str(plot),
            ]
        )
        == 0
    )
    assert plot.exists()
