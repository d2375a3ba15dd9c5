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


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_flickr8k_spice_column_equals_scipy(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "correlate",
            "--dataset",
            "flickr8k-expert-tsv",
            "--judgments",
            F8K,
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
            "correlate",
            "--dataset",
            "flickr8k-expert-tsv",
            "--judgments",
            F8K,
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
            "correlate",
            "--dataset",
            "flickr8k-expert-tsv",
            "--judgments",
            F8K,
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
            "correlate",
            "--dataset",
            "thumb",
            "--judgments",
            str(DATA / "thumb_head250.jsonl"),
            "--references",
            str(DATA / "thumb_references_head.jsonl"),
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
            "correlate",
            "--dataset",
            "thumb",
            "--judgments",
            str(DATA / "thumb_head250.jsonl"),
            "--references",
            str(DATA / "thumb_references_head.jsonl"),
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
    code = main(["correlate", "--dataset", "flickr8k-expert-tsv", "--judgments", F8K, "--tokenizer", "ws", *extra])
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
