"""``capeval correlate`` on the Flickr8K-Expert and THumB fixtures."""

from __future__ import annotations

import csv
import io
import json
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
    first, second = latex.read_text().splitlines()[:2]
    assert first == "% protocol: flickr8k-expert-tsv: the file's items and references as given"
    assert second.startswith("\\begin{tabular}")
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
    assert set(rows[0]) == {"metric", "HC", "MM", "all", "metric ties"}
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


def test_pascal50s_votes_from_pair_file_and_seeded_reference_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.meta_eval.protocol_files import write_pascal50s

    write_pascal50s(tmp_path)
    base = [
        "correlate",
        "--dataset",
        "pascal50s",
        "--judgments",
        str(tmp_path / "pair_pascal.mat"),
        "--references",
        str(tmp_path / "pascal50S.mat"),
        "--metrics",
        "bleu-1,cider-d",
        "--tokenizer",
        "ws",
    ]
    assert main(base) == 0
    captured = capsys.readouterr()
    assert "protocol: pascal50s (the SPICE paper's Table 4 recipe): 5 random references per pair (seed 0)" in (
        captured.out
    )
    assert "pair_pascal.mat 'result' votes; metric ties: right" in captured.out
    assert "metric ties count as correct" in captured.err

    def table(*extra: str) -> list[dict[str, str]]:
        assert main([*base, "--format", "csv", *extra]) == 0
        return _csv(capsys.readouterr().out)

    # The CLI's default equals the first draw of ``capeval reproduce pascal50s-spice``.
    from capeval.cli.cmd_reproduce import EngineScorer
    from capeval.meta_eval.protocols import reproduce

    ours = reproduce("pascal50s-spice", tmp_path, EngineScorer(["bleu-1", "cider-d"], "ws"), draws=1)
    cli = table()
    for row in ours.rows:
        if row.statistic in ("HC", "MM"):
            line = next(r for r in cli if r["metric"] == row.metric)
            assert float(line[row.statistic]) == pytest.approx(row.ours)
    assert table("--seed", "0") == cli
    assert table("--n-references", "1", "--seed", "1") != table("--n-references", "1", "--seed", "2")


def test_flickr8k_defaults_are_the_published_protocol(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.meta_eval.protocol_files import write_flickr8k

    write_flickr8k(tmp_path)
    args = [
        "correlate",
        "--dataset",
        "flickr8k-expert",
        "--judgments",
        str(tmp_path / "ExpertAnnotations.txt"),
        "--tokens",
        str(tmp_path / "Flickr8k.token.txt"),
        "--metrics",
        "bleu-1",
        "--tokenizer",
        "ws",
        "--coefficients",
        "kendall-c,kendall-b",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "36 items" in out and "protocol: flickr8k-expert, published (CLIPScore/PAC-S Table 1)" in out
    from capeval.cli.cmd_reproduce import EngineScorer
    from capeval.meta_eval.protocols import reproduce

    published = reproduce("flickr8k-expert", tmp_path, EngineScorer(["bleu-1"], "ws"))
    assert main([*args, "--format", "csv"]) == 0
    row = _csv(capsys.readouterr().out)[0]
    tau_c = next(r.ours for r in published.rows if r.statistic == "tau-c")
    assert 100 * float(row["item kendall-c"]) == pytest.approx(tau_c, abs=1e-10)
    assert main([*args, "--protocol", "loader"]) == 0
    out = capsys.readouterr().out
    assert "48 items" in out and "protocol: flickr8k-expert, loader" in out


def test_clipscore_json_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "crowdflower_flickr8k.json"
    path.write_text(
        json.dumps(
            {
                "1": {
                    "image_path": "a.jpg",
                    "ground_truth": ["a dog runs on the grass", "a brown dog running"],
                    "human_judgement": [
                        {"caption": "a dog runs", "rating": 1.0},
                        {"caption": "two kids swim", "rating": 0.0},
                        {"caption": "a cat", "rating": float("nan")},
                    ],
                },
                "2": {
                    "image_path": "b.jpg",
                    "ground_truth": ["kids swim in a pool"],
                    "human_judgement": [
                        {"caption": "kids swim", "rating": 0.67},
                        {"caption": "a dog runs", "rating": 0.33},
                    ],
                },
            }
        ),
        encoding="utf-8",
    )
    args = ["correlate", "--dataset", "clipscore-json", "--judgments", str(path), "--metrics", "bleu-1"]
    assert main([*args, "--tokenizer", "ws", "--coefficients", "kendall-b"]) == 0
    out = capsys.readouterr().out
    assert "4 items" in out and "protocol: clipscore-json" in out
