"""Named protocols: each recipe on files built in the distributed layouts, checked against a direct computation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tests.meta_eval.protocol_files import write_foil, write_pascal50s

from capeval.cli.cmd_reproduce import EngineScorer
from capeval.meta_eval import correlate, load_flickr8k, load_flickr8k_tokens, pairwise_accuracy
from capeval.meta_eval.protocols import PROTOCOLS, get_protocol, reproduce
from capeval.meta_eval.protocols import data as pdata
from capeval.meta_eval.protocols.published import PUBLISHED

ss = pytest.importorskip("scipy.stats")

DATA = Path(__file__).parents[1] / "data" / "meta_eval"
METRICS = ["bleu-1", "cider-d"]


@pytest.fixture(scope="module")
def scorer() -> EngineScorer:
    return EngineScorer(METRICS, tokenizer="ws")


def test_every_protocol_has_files_recipe_and_published_entry() -> None:
    for name, protocol in PROTOCOLS.items():
        assert protocol.files and protocol.recipe and protocol.title
        assert name in PUBLISHED
    for tables in PUBLISHED.values():
        for table in tables:
            assert table.source and table.checked and all(isinstance(v, float) for v in table.values.values())
    with pytest.raises(ValueError, match="unknown protocol 'nope'; choose from"):
        get_protocol("nope")


def test_published_values_name_their_table_and_whether_they_were_checked() -> None:
    from capeval.meta_eval.protocols import _published

    # CLIPScore's Flickr8K-CF table (Table 2) has no BLEU-1 row: that value is PAC-S's.
    assert _published("flickr8k-cf", "bleu-1", "tau-b") == (
        17.9,
        "Sarto et al. 2023, PAC-S (CVPR), Table 1 (Flickr8K-CF, tau-b and tau-c)",
        True,
    )
    assert _published("flickr8k-cf", "cider-d", "tau-b")[:2] == (
        24.6,
        "Hessel et al. 2021, CLIPScore (EMNLP), Table 2 (Flickr8K-CF, tau-b)",
    )
    assert _published("composite", "meteor", "tau-c")[1].endswith("Table 3 (Composite, tau-c)")
    # SPICE rows of PAC-S Table 1 and the whole SPICE-paper PASCAL-50S table are not checked.
    assert _published("flickr8k-expert", "spice", "tau-b")[::2] == (51.7, False)
    assert _published("flickr8k-cf", "spice", "tau-c")[::2] == (12.0, False)
    assert all(not t.verified for t in PUBLISHED["pascal50s-spice"])
    # CLIPScore Table 4 has no BLEU-1 row.
    assert _published("pascal50s-clipscore", "bleu-1", "HC")[0] is None
    assert _published("pascal50s-clipscore", "cider-d", "mean")[::2] == (79.6, True)
    assert PUBLISHED["thumb"] == []


def test_flickr8k_expert_recipe_drops_own_captions(flickr_dir: Path, scorer: EngineScorer) -> None:
    j = pdata.flickr8k_expert(flickr_dir)
    raw = load_flickr8k(flickr_dir / "ExpertAnnotations.txt", flickr_dir / "Flickr8k.token.txt")
    assert len(raw) == 48 and len(j) == 36  # each image's own caption #1 is dropped
    assert all(len(r) == 5 for r in j.references)
    assert all(img not in item.split("/", 1)[1] for item, img in zip(j.ids, j.image_ids, strict=True))
    result = reproduce("flickr8k-expert", flickr_dir, scorer)
    scores = scorer.items(j.candidates, j.references)
    for row in result.rows:
        variant = row.statistic[-1]
        ref = ss.kendalltau(np.repeat(scores[row.metric], 3), j.ratings.ravel(), variant=variant)
        assert row.ours == pytest.approx(100 * ref.statistic, abs=1e-10)
        assert row.published is not None and row.difference == pytest.approx(row.ours - row.published)
    assert {(r.metric, r.statistic) for r in result.rows} == {(m, s) for m in METRICS for s in ("tau-b", "tau-c")}
    assert "36 items, 108 rating rows, 5 references per item" in result.notes[0]


def test_flickr8k_cf_recipe_excludes_every_judged_caption(flickr_dir: Path, scorer: EngineScorer) -> None:
    j = pdata.flickr8k_cf(flickr_dir)
    captions = load_flickr8k_tokens(flickr_dir / "Flickr8k.token.txt")
    assert len(j) == 48
    judged: dict[str, set[str]] = {}
    for item, img in zip(j.ids, j.image_ids, strict=True):
        judged.setdefault(img, set()).add(item.split("/", 1)[1])
    for img, refs in zip(j.image_ids, j.references, strict=True):
        expected = tuple(t for k, t in captions.items() if k.startswith(img + "#") and k not in judged[img])
        assert refs == expected and len(refs) == 4  # own caption #1 judged: 4 references left
    result = reproduce("flickr8k-cf", flickr_dir, scorer)
    scores = scorer.items(j.candidates, j.references)
    for row in result.rows:
        ref = ss.kendalltau(scores[row.metric], j.ratings.ravel(), variant=row.statistic[-1])
        assert row.ours == pytest.approx(100 * ref.statistic, abs=1e-10)


def test_missing_and_malformed_files_are_named(tmp_path: Path, flickr_dir: Path, scorer: EngineScorer) -> None:
    with pytest.raises(
        FileNotFoundError,
        match=r"missing file\(s\) for flickr8k-expert: ExpertAnnotations.txt \(from Flickr8K.*; Flickr8k.token.txt",
    ):
        reproduce("flickr8k-expert", tmp_path, scorer)
    with pytest.raises(FileNotFoundError, match="no such directory"):
        reproduce("flickr8k-expert", tmp_path / "absent", scorer)
    shutil.copy(flickr_dir / "Flickr8k.token.txt", tmp_path)
    (tmp_path / "ExpertAnnotations.txt").write_text("1000_00ab.jpg\t1001_01ab.jpg#0\t1\t2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"ExpertAnnotations.txt:1: expected 5 tab-separated fields"):
        reproduce("flickr8k-expert", tmp_path, scorer)
    with pytest.raises(FileNotFoundError, match="pair_pascal.mat"):
        reproduce("pascal50s-spice", tmp_path, scorer)
    with pytest.raises(ValueError, match="flickr8k-cf draws no references"):
        reproduce("flickr8k-cf", flickr_dir, scorer, draws=3)


def test_pascal50s_recipe(pascal_dir: Path, scorer: EngineScorer) -> None:
    pairs = pdata.load_pascal50s_distributed(pascal_dir)
    assert len(pairs) == 40 and set(pairs.categories) == {"HC", "HI", "HM", "MM"}
    assert all(v == 11 for v in pairs.votes_a + pairs.votes_b)
    assert all(
        a not in pool and b not in pool
        for a, b, pool in zip(pairs.candidates_a, pairs.candidates_b, pairs.pools, strict=True)
    )
    result = reproduce("pascal50s-spice", pascal_dir, scorer, draws=3)
    # Direct computation of draw 0..2: 5 references per pair, ties count as correct.
    per_draw = []
    for d in range(3):
        refs = pairs.draw(5, np.random.default_rng(d))
        assert all(len(r) == 5 for r in refs)
        s = scorer.items([*pairs.candidates_a, *pairs.candidates_b], [*refs, *refs])
        r = pairwise_accuracy(
            s["cider-d"][:40], s["cider-d"][40:], pairs.preference, categories=pairs.categories, metric_ties="right"
        )
        per_draw.append(100 * r.by_category["MM"][0])
    row = next(r for r in result.rows if r.metric == "cider-d" and r.statistic == "MM")
    assert row.ours == pytest.approx(np.mean(per_draw))
    assert row.spread == (min(per_draw), max(per_draw))
    assert row.published == 64.2 and "SPICE" in row.source and not row.verified  # no copy of Table 4 to check
    assert any("pair_pascal.mat 'result'" in n for n in result.notes)
    assert any("changed from the published recipe" in n for n in result.notes)
    again = reproduce("pascal50s-spice", pascal_dir, scorer, draws=3)
    assert [r.ours for r in again.rows] == [r.ours for r in result.rows]  # seeded


def test_pascal50s_malformed_votes(tmp_path: Path) -> None:
    from scipy.io import loadmat, savemat

    write_pascal50s(tmp_path, n_images=2)
    mat = loadmat(tmp_path / "pair_pascal.mat")
    mat["result"][0, 1] = (np.array([[1, 0, -1]], dtype=np.int16),)
    savemat(tmp_path / "pair_pascal.mat", {k: v for k, v in mat.items() if not k.startswith("__")})
    with pytest.raises(ValueError, match=r"pair_pascal.mat: result of pair 1: votes must be \+1"):
        pdata.load_pascal50s_distributed(tmp_path)
    savemat(tmp_path / "pair_pascal.mat", {k: v for k, v in mat.items() if k in ("new_input", "category")})
    with pytest.raises(ValueError, match="missing variable"):
        pdata.load_pascal50s_distributed(tmp_path)


def test_foil_recipe(tmp_path: Path, scorer: EngineScorer) -> None:
    write_foil(tmp_path)
    pairs = pdata.load_foil(tmp_path)
    assert len(pairs) == 8 and all(len(p) == 4 for p in pairs.pools)
    assert all(o not in p for o, p in zip(pairs.originals, pairs.pools, strict=True))
    result = reproduce("foil", tmp_path, scorer)
    for k in (1, 4):
        refs = [p[:k] for p in pairs.pools]
        s = scorer.items([*pairs.originals, *pairs.foils], [*refs, *refs])
        expected = 100 * pairwise_accuracy(s["bleu-1"][:8], s["bleu-1"][8:], np.ones(8)).accuracy
        row = next(r for r in result.rows if r.metric == "bleu-1" and r.statistic == f"{k}-ref")
        assert row.ours == pytest.approx(expected)
    cider = {r.statistic: r for r in result.rows if r.metric == "cider-d"}
    assert cider["4-ref"].published == 90.6 and cider["1-ref"].published == 82.5


def test_foil_malformed(tmp_path: Path) -> None:
    write_foil(tmp_path, n_images=2)
    path = tmp_path / "foilv1.0_test_2017.json"
    content = json.loads(path.read_text())
    content["annotations"] = [a for a in content["annotations"] if a["foil"]]
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match="id 0 has foil captions but no original"):
        pdata.load_foil(tmp_path)
    content["annotations"][0]["foil"] = "yes"
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match="annotation 0 needs 'id', 'image_id', a string 'caption' and a boolean"):
        pdata.load_foil(tmp_path)
    path.write_text("{")
    with pytest.raises(ValueError, match="invalid JSON"):
        pdata.load_foil(tmp_path)


def test_composite_and_thumb_recipes(tmp_path: Path, scorer: EngineScorer) -> None:
    shutil.copy(DATA / "composite" / "8k_correctness.csv", tmp_path)
    with pytest.raises(FileNotFoundError, match="Flickr8k.token.txt"):
        reproduce("composite", tmp_path, scorer)
    shutil.copy(DATA / "flickr8k" / "Flickr8k.token.txt", tmp_path)
    result = reproduce("composite", tmp_path, scorer)
    assert {r.statistic for r in result.rows} == {"tau-c"} and "6 items" in result.notes[0]
    shutil.copy(DATA / "thumb_head250.jsonl", tmp_path / "mscoco_THumB-1.0.jsonl")
    shutil.copy(DATA / "thumb_references_head.jsonl", tmp_path / "mscoco_references.json")
    result = reproduce("thumb", tmp_path, scorer)
    # No published value is stored for THumB: the notes say why every published cell is "-".
    assert all(r.published is None for r in result.rows)
    assert any(n.startswith("published '-' (and no difference): THumB 1.0 (Kasai et al. 2022)") for n in result.notes)
    stats = {(r.metric, r.statistic): r.ours for r in result.rows}
    kinds = ("caption pearson", "caption tau-b", "system pearson", "system pearson (models)")
    assert set(stats) == {(m, s) for m in METRICS for s in kinds}
    from capeval.meta_eval import load_thumb

    j = load_thumb(tmp_path / "mscoco_THumB-1.0.jsonl", tmp_path / "mscoco_references.json")
    s = scorer.items(j.candidates, j.references)
    assert stats[("bleu-1", "caption pearson")] == pytest.approx(
        100 * correlate(s["bleu-1"], j.ratings, method="pearson").coefficient
    )
    models = [i for i, name in enumerate(j.systems) if name != "Human"]
    corpus = {
        name: scorer.corpus(
            [j.candidates[i] for i in models if j.systems[i] == name],
            [j.references[i] for i in models if j.systems[i] == name],
        )["cider-d"]
        for name in dict.fromkeys(j.systems[i] for i in models)
    }
    human = {name: np.mean([j.ratings[i, 0] for i in models if j.systems[i] == name]) for name in corpus}
    expected = ss.pearsonr(list(corpus.values()), [human[n] for n in corpus]).statistic
    assert stats[("cider-d", "system pearson (models)")] == pytest.approx(100 * expected)


def _clipscore_json(flickr_dir: Path, path: Path) -> None:
    """The Expert protocol's items in the JSON layout of the CLIPScore code: one judgement per rating."""
    j = pdata.flickr8k_expert(flickr_dir)
    out: dict[str, dict[str, object]] = {}
    for image, cand, refs, ratings in zip(j.image_ids, j.candidates, j.references, j.ratings, strict=True):
        entry = out.setdefault(str(image), {"image_path": f"images/{image}", "ground_truth": list(refs)})
        entry.setdefault("human_judgement", [])
        for r in ratings:
            entry["human_judgement"].append({"caption": "  " + cand, "rating": float(r)})  # type: ignore[union-attr]
    path.write_text(json.dumps(out), encoding="utf-8")


def test_clipscore_json_gives_the_expert_protocol(flickr_dir: Path, tmp_path: Path, scorer: EngineScorer) -> None:
    path = tmp_path / "flickr8k.json"
    _clipscore_json(flickr_dir, path)
    j = pdata.load_clipscore_json(path)
    assert len(j) == 36 and j.ratings.shape == (36, 3) and np.isfinite(j.ratings).all()
    scores = scorer.items(j.candidates, j.references)
    ours = correlate(scores["cider-d"], j.ratings, method="kendall-c").coefficient
    published = reproduce("flickr8k-expert", flickr_dir, scorer)
    row = next(r for r in published.rows if r.metric == "cider-d" and r.statistic == "tau-c")
    assert 100 * ours == pytest.approx(row.ours, abs=1e-10)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "expected a non-empty JSON object"),
        ('{"a": {"ground_truth": [], "human_judgement": []}}', "entry 'a': 'ground_truth' must be a non-empty"),
        ('{"a": {"ground_truth": ["x"], "human_judgement": [{"caption": "y"}]}}', "rating that is not a number"),
        ('{"a": {"ground_truth": ["x"], "human_judgement": [{"caption": " ", "rating": 1}]}}', "empty caption"),
        ("{", "invalid JSON"),
    ],
)
def test_clipscore_json_malformed(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "f.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        pdata.load_clipscore_json(path)


def test_flickr8k_recipes_compare_caption_text(tmp_path: Path) -> None:
    """A caption of another image with the same text as one of the judged image's captions counts as its own."""
    tokens = [
        "1_a.jpg#0\ta dog runs .",
        "1_a.jpg#1\ta brown dog .",
        "1_a.jpg#2\ta dog on grass .",
        "2_b.jpg#0\ta dog runs .",  # same text as 1_a.jpg#0
        "2_b.jpg#1\tkids swim .",
        "2_b.jpg#2\ta pool .",
    ]
    (tmp_path / "Flickr8k.token.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    (tmp_path / "ExpertAnnotations.txt").write_text(
        "1_a.jpg\t2_b.jpg#0\t4\t4\t3\n1_a.jpg\t2_b.jpg#1\t1\t1\t1\n", encoding="utf-8"
    )
    (tmp_path / "CrowdFlowerAnnotations.txt").write_text(
        "1_a.jpg\t2_b.jpg#0\t1.0\t3\t0\n1_a.jpg\t2_b.jpg#1\t0.0\t0\t3\n1_a.jpg\t1_a.jpg#2\t1.0\t3\t0\n",
        encoding="utf-8",
    )
    expert = pdata.flickr8k_expert(tmp_path)
    assert expert.candidates == ("kids swim .",)
    assert expert.references == (("a dog runs .", "a brown dog .", "a dog on grass ."),)
    cf = pdata.flickr8k_cf(tmp_path)
    assert len(cf) == 3
    assert set(cf.references) == {("a brown dog .",)}  # "a dog runs ." (by text) and #2 are judged
