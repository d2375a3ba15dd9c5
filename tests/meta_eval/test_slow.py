"""Slow checks on the full data sets in ../shared and on COCO val2014 against the live official oracle.

Run with ``pytest -m slow``; each test skips cleanly when its data or the oracle is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from capeval import get_metric
from capeval.meta_eval import correlate, human_agreement, load_flickr8k_expert_tsv, load_thumb

pytestmark = pytest.mark.slow

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
OFFICIAL_NAMES = {
    "bleu-1": "Bleu_1",
    "bleu-2": "Bleu_2",
    "bleu-3": "Bleu_3",
    "bleu-4": "Bleu_4",
    "meteor": "METEOR",
    "rouge-l": "ROUGE_L",
    "cider-d": "CIDEr",
}


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def test_flickr8k_expert_dev_spice_tau_c() -> None:
    ss = pytest.importorskip("scipy.stats")
    j = load_flickr8k_expert_tsv(_need(SHARED / "flickr8k-expert-dev" / "flickr8k_expert_dev.tsv"))
    ours = correlate(j.columns["spice_f"], j.ratings, method="kendall-c")
    ref = ss.kendalltau(np.repeat(j.columns["spice_f"], 3), j.ratings.ravel(), variant="c")
    assert ours.n == 8133
    assert ours.coefficient == pytest.approx(ref.statistic, rel=1e-12)


def test_thumb_system_level_pearson() -> None:
    ss = pytest.importorskip("scipy.stats")
    j = load_thumb(_need(SHARED / "thumb" / "mscoco_THumB-1.0.jsonl"), SHARED / "thumb" / "mscoco_references.json")
    assert len(j) == 2500 and len(set(j.systems or ())) == 5
    metric = get_metric("bleu", tokenizer="ws")
    names = list(dict.fromkeys(j.systems or ()))
    corpus, human = {}, []
    for s in names:
        idx = [i for i, x in enumerate(j.systems or ()) if x == s]
        corpus[s] = metric.score(
            candidates=[j.candidates[i] for i in idx], references=[j.references[i] for i in idx]
        ).scores["bleu-4"]
        human.append(float(np.mean(j.ratings[idx, 0])))
    r = correlate(corpus, j.ratings, level="system", systems=j.systems, method="pearson")
    assert r.n == 5
    assert r.coefficient == pytest.approx(ss.pearsonr([corpus[s] for s in names], human).statistic, rel=1e-9)


def test_val2014_fold_one_equals_official_human_agreement() -> None:
    """Fold 1 of the leave-one-out table is the official protocol: same numbers as pycocoevalcap 1.2."""
    from bench.oracle import OracleUnavailable, human_agreement_protocol, oracle_dir, run_official

    try:
        protocol = human_agreement_protocol()
        official = run_official(protocol["ids"], protocol["candidates"], protocol["references"])
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    tok = official["tokenized"]
    captions = {k: [tok["candidates"][k], *tok["references"][k]] for k in tok["candidates"]}
    names = ["bleu", "rouge-l", "cider-d", "meteor"]
    meteor_dir = sorted((oracle_dir() / "venv" / "lib").glob("python3*/site-packages/pycocoevalcap"))
    if meteor_dir:
        os.environ.setdefault("CAPEVAL_PYCOCOEVALCAP_DIR", str(meteor_dir[0]))
    metrics = [get_metric(n, tokenizer="none") for n in names]
    table = human_agreement(captions, metrics, folds=[0])
    assert table.n_images == 40504 and table.n_references == 4
    for name, value in table.folds[0].items():
        assert value == pytest.approx(official["corpus"][OFFICIAL_NAMES[name]], rel=1e-9, abs=1e-12), name


def test_reproduce_flickr8k_expert_from_original_files_equals_official_dev_table() -> None:
    """The Flickr8K-Expert recipe on the original files cut to the dev images gives the official dev table's items."""
    from capeval.cli.cmd_reproduce import EngineScorer
    from capeval.meta_eval.protocols import data, reproduce

    raw = _need(SHARED / "flickr8k-raw-dev")
    table = load_flickr8k_expert_tsv(_need(SHARED / "flickr8k-expert-dev" / "flickr8k_expert_dev.tsv"))
    ours = data.flickr8k_expert(raw)
    assert len(ours) == len(table) == 2711

    def key(cands: tuple[str, ...], refs: tuple[tuple[str, ...], ...]) -> set[tuple[str, tuple[str, ...]]]:
        # The dev table was written with CSV quoting (quotes doubled, fields with quotes wrapped) and is read
        # unquoted, so 50 of its rows carry extra '"'; compare without quote characters.
        def bare(text: str) -> str:
            return " ".join(text.replace('"', " ").split())

        return {(bare(c), tuple(bare(x) for x in r)) for c, r in zip(cands, refs, strict=True)}

    assert key(ours.candidates, ours.references) == key(table.candidates, table.references)
    metrics = ["bleu-1", "bleu-4", "meteor", "rouge-l", "cider-d"]
    scorer = EngineScorer(metrics)
    result = reproduce("flickr8k-expert", raw, scorer)
    api = scorer.items(table.candidates, table.references)
    for row in result.rows:
        r = correlate(api[row.metric], table.ratings, method=f"kendall-{row.statistic[-1]}")
        assert row.ours == 100 * r.coefficient, (row.metric, row.statistic)


def test_reproduce_flickr8k_cf_recipe_counts() -> None:
    from capeval.meta_eval.protocols import data

    j = data.flickr8k_cf(_need(SHARED / "flickr8k-raw-dev"))
    assert len(j) == 23740
    assert {len(r) for r in j.references} == {3, 4, 5}


def test_reproduce_pascal50s_from_distributed_files() -> None:
    from capeval.cli.cmd_reproduce import EngineScorer
    from capeval.meta_eval.protocols import reproduce

    directory = _need(SHARED / "pascal50s")
    result = reproduce("pascal50s-clipscore", directory, EngineScorer(["bleu-4"]))
    mean = next(r for r in result.rows if r.statistic == "mean")
    # CLIPScore Table 4, BLEU-4 mean over the categories: 72.6
    assert mean.published == 72.6 and mean.verified
    assert mean.spread is not None and mean.spread[0] <= mean.published <= mean.spread[1]
    assert any("pair_pascal.mat 'result'" in n for n in result.notes)


def _clipscore_style_crowdflower(raw: Path, out: Path) -> None:
    """The CF judgments in the clipscore-style JSON layout, built the way that preprocessing describes it.

    Per image: ground truth = its captions; each judged caption, in file order, removes one equal
    text from the image's (shared) ground-truth list; one judgement per line, rating = fraction of yes.
    """
    import json

    captions: dict[str, str] = {}
    by_image: dict[str, list[str]] = {}
    for line in (raw / "Flickr8k.token.txt").read_text(encoding="utf-8").splitlines():
        key, text = line.strip().split("\t")
        captions[key] = text
        by_image.setdefault(key.split("#")[0], []).append(text)
    index: dict[str, dict[str, object]] = {}
    for line in (raw / "CrowdFlowerAnnotations.txt").read_text(encoding="utf-8").splitlines():
        image, caption_id, fraction, _, _ = line.strip().split("\t")
        entry = index.setdefault(
            image, {"image_path": image, "ground_truth": list(by_image[image]), "human_judgement": []}
        )
        truth = entry["ground_truth"]
        if captions[caption_id] in truth:  # type: ignore[operator]
            truth.remove(captions[caption_id])  # type: ignore[union-attr]
        entry["human_judgement"].append({"caption": captions[caption_id], "rating": float(fraction)})  # type: ignore[union-attr]
    out.write_text(json.dumps(index), encoding="utf-8")


def test_reproduce_flickr8k_cf_equals_api_on_clipscore_style_json(tmp_path: Path) -> None:
    from capeval.cli.cmd_reproduce import EngineScorer
    from capeval.meta_eval.protocols import data, reproduce

    raw = _need(SHARED / "flickr8k-raw-dev")
    path = tmp_path / "crowdflower_flickr8k.json"
    _clipscore_style_crowdflower(raw, path)
    table = data.load_clipscore_json(path)
    metrics = ["bleu-1", "bleu-4", "meteor", "rouge-l", "cider-d"]
    scorer = EngineScorer(metrics)
    api = scorer.items(table.candidates, table.references)
    result = reproduce("flickr8k-cf", raw, scorer)
    assert int(np.isfinite(table.ratings).sum()) == 23740
    for row in result.rows:
        r = correlate(api[row.metric], table.ratings, method=f"kendall-{row.statistic[-1]}")
        assert abs(row.ours - 100 * r.coefficient) < 1e-9, (row.metric, row.statistic)
