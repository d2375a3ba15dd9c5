"""Loaders: Flickr8K (Expert, CF, SPICE table), THumB, PASCAL-50S, COMPOSITE, COCO captions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from capeval.meta_eval import (
    load_coco_captions,
    load_composite,
    load_flickr8k,
    load_flickr8k_expert_tsv,
    load_pascal50s,
    load_thumb,
)

DATA = Path(__file__).parents[1] / "data" / "meta_eval"
F8K = DATA / "flickr8k"


def test_flickr8k_expert() -> None:
    j = load_flickr8k(F8K / "ExpertAnnotations.txt", F8K / "Flickr8k.token.txt")
    assert len(j) == 4 and j.ratings.shape == (4, 3)
    assert j.candidates[0] == "The dog plays outside ."
    # the candidate is one of the image's own captions: removed from its references
    assert len(j.references[0]) == 4 and "The dog plays outside ." not in j.references[0]
    assert len(j.references[1]) == 5
    kept = load_flickr8k(F8K / "ExpertAnnotations.txt", F8K / "Flickr8k.token.txt", exclude_candidate=False)
    assert len(kept.references[0]) == 5
    assert j.mean_ratings()[0] == pytest.approx(11 / 3)


def test_flickr8k_crowdflower() -> None:
    j = load_flickr8k(F8K / "CrowdFlowerAnnotations.txt", F8K / "Flickr8k.token.txt", kind="crowdflower")
    assert j.ratings[:, 0].tolist() == [1.0, 0.0, 0.75]
    assert j.columns["yes"].tolist() == [3, 0, 3]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1000_a.jpg\t1000_a.jpg#2\t4\t4\n", "expected 5 tab-separated fields"),
        ("1000_a.jpg\t1000_a.jpg#2\t4\t9\t3\n", "outside 1-4"),
        ("1000_a.jpg\t1000_a.jpg#2\t4\tx\t3\n", "'x' is not a number"),
        ("1000_a.jpg\t3000_c.jpg#1\t4\t4\t3\n", "not in"),
    ],
)
def test_flickr8k_malformed(tmp_path: Path, line: str, message: str) -> None:
    bad = tmp_path / "ExpertAnnotations.txt"
    bad.write_text("1000_a.jpg\t1000_a.jpg#2\t4\t4\t3\n" + line)
    with pytest.raises(ValueError, match=message) as info:
        load_flickr8k(bad, F8K / "Flickr8k.token.txt")
    assert ":2:" in str(info.value)


def test_flickr8k_expert_tsv() -> None:
    j = load_flickr8k_expert_tsv(DATA / "flickr8k_expert_dev_head300.tsv")
    assert len(j) == 300
    assert set(j.columns) == {"spice_f", "spice_pr", "spice_re", "tp", "fp", "fn"}
    assert all(len(r) == 5 for r in j.references)


def test_flickr8k_expert_tsv_reads_csv_quoted_fields(tmp_path: Path) -> None:
    """The table quotes a field holding '"' as CSV does (line 186 of the fixture): read unquoted."""
    j = load_flickr8k_expert_tsv(DATA / "flickr8k_expert_dev_head300.tsv")
    assert j.candidates[184] == (
        'Two men are talking on the street ; one is pointing at a sign that says " Jesus or Hell " beneath a '
        "red box , and the other is standing there listening ."
    )
    texts = [*j.candidates, *(r for refs in j.references for r in refs)]
    assert not [t for t in texts if t.startswith('"') or '""' in t]
    lines = (DATA / "flickr8k_expert_dev_head300.tsv").read_text().splitlines()
    quoted = lines[185].split("\t")
    quoted[6] = '"A dog says "" woof "" ||| a dog barks"'  # the references column quoted too
    unterminated = lines[2].split("\t")
    unterminated[2] = '"A dog runs'
    (tmp_path / "q.tsv").write_text("\n".join([lines[0], "\t".join(quoted)]) + "\n")
    assert load_flickr8k_expert_tsv(tmp_path / "q.tsv").references[0] == ('A dog says " woof "', "a dog barks")
    (tmp_path / "u.tsv").write_text("\n".join([lines[0], lines[1], "\t".join(unterminated)]) + "\n")
    with pytest.raises(ValueError, match=r"u.tsv:\d+: malformed CSV quoting"):
        load_flickr8k_expert_tsv(tmp_path / "u.tsv")


def test_flickr8k_expert_tsv_malformed(tmp_path: Path) -> None:
    lines = (DATA / "flickr8k_expert_dev_head300.tsv").read_text().splitlines()[:3]
    parts = lines[2].split("\t")
    parts[3] = "five"
    bad = tmp_path / "t.tsv"
    bad.write_text("\n".join([lines[0], lines[1], "\t".join(parts)]) + "\n")
    with pytest.raises(ValueError, match=r"t.tsv:3: expert1 'five' is not a number"):
        load_flickr8k_expert_tsv(bad)
    (tmp_path / "h.tsv").write_text("image_id\tcandidate\n")
    with pytest.raises(ValueError, match="missing column"):
        load_flickr8k_expert_tsv(tmp_path / "h.tsv")


def test_thumb() -> None:
    j = load_thumb(DATA / "thumb_head250.jsonl", DATA / "thumb_references_head.jsonl")
    assert len(j) == 250 and j.systems is not None
    assert len(set(j.systems)) == 5
    assert j.columns["P"].shape == (250,)
    assert all(len(r) == 4 for r in j.references)


def test_select_keeps_every_field_in_order() -> None:
    j = load_thumb(DATA / "thumb_head250.jsonl", DATA / "thumb_references_head.jsonl")
    keep = [7, 2, 100]
    sub = j.select(keep)
    assert sub.name == j.name
    assert sub.ids == tuple(j.ids[i] for i in keep)
    assert sub.image_ids == tuple(j.image_ids[i] for i in keep)
    assert sub.candidates == tuple(j.candidates[i] for i in keep)
    assert sub.references == tuple(j.references[i] for i in keep)
    assert sub.systems == tuple((j.systems or ())[i] for i in keep)
    np.testing.assert_array_equal(sub.ratings, j.ratings[keep])
    assert set(sub.columns) == set(j.columns)
    for name, values in sub.columns.items():
        np.testing.assert_array_equal(values, j.columns[name][keep])
    assert load_flickr8k_expert_tsv(DATA / "flickr8k_expert_dev_head300.tsv").select([0]).systems is None


def test_thumb_malformed(tmp_path: Path) -> None:
    record = json.loads((DATA / "thumb_head250.jsonl").read_text().splitlines()[0])
    del record["human_score"]
    bad = tmp_path / "j.jsonl"
    bad.write_text(json.dumps(record) + "\n")
    with pytest.raises(ValueError, match="j.jsonl:1: missing field 'human_score'"):
        load_thumb(bad, DATA / "thumb_references_head.jsonl")
    bad.write_text("{not json\n")
    with pytest.raises(ValueError, match="invalid JSON"):
        load_thumb(bad, DATA / "thumb_references_head.jsonl")


def _write_pascal(tmp: Path, n_pairs: int = 2, corrupt: bool = False) -> tuple[Path, Path]:
    scipy_io = pytest.importorskip("scipy.io")
    new_input = np.empty((1, n_pairs), dtype=object)
    pairs = []
    for i in range(n_pairs):
        cell = np.empty((1, 3), dtype=object)
        a, b = f"caption a of {i}", f"caption b of {i}"
        cell[0, :] = [f"img{i}.jpg", a, b]
        new_input[0, i] = cell
        pairs.append((a, b))
    dtype = [("ref", object), ("a", object), ("b", object), ("winner", object)]
    triplets = np.zeros((1, n_pairs * 48), dtype=dtype)
    for i, (a, b) in enumerate(pairs):
        for j in range(48):
            first, second = (a, b) if j % 2 == 0 else (b, a)  # the order varies within a pair
            wins_a = j < 30  # 30 votes for A, 18 for B
            winner = 1 if (first == a) == wins_a else -1
            triplets[0, i * 48 + j] = (f"reference {j} of {i}", first, second, np.array([[winner]]))
    if corrupt:
        triplets[0, 5] = ("r", "something else", "other", np.array([[1]]))
    category = np.array([[1, 3][:n_pairs]])
    scipy_io.savemat(tmp / "pair_pascal.mat", {"new_input": new_input, "category": category, "new_data": [[6, 6]]})
    scipy_io.savemat(tmp / "consensus_pascal.mat", {"triplets": triplets})
    return tmp / "pair_pascal.mat", tmp / "consensus_pascal.mat"


def test_pascal50s(tmp_path: Path) -> None:
    pairs, consensus = _write_pascal(tmp_path)
    p = load_pascal50s(pairs, consensus, n_references=5)
    assert len(p) == 2
    assert p.categories == ("HC", "HM")
    assert p.votes_a.tolist() == [30, 30] and p.votes_b.tolist() == [18, 18]
    assert p.references[0] == tuple(f"reference {j} of 0" for j in range(5))
    assert p.image_ids == ("img0.jpg", "img1.jpg")
    assert len(load_pascal50s(pairs, consensus).references[1]) == 48


def test_pascal50s_malformed(tmp_path: Path) -> None:
    pairs, consensus = _write_pascal(tmp_path, corrupt=True)
    with pytest.raises(ValueError, match="triplet 5 does not compare the captions of pair 0"):
        load_pascal50s(pairs, consensus)
    (tmp_path / "junk.mat").write_bytes(b"not a mat file at all")
    with pytest.raises(ValueError, match="junk.mat"):
        load_pascal50s(tmp_path / "junk.mat", consensus)


def test_composite(caplog: pytest.LogCaptureFixture) -> None:
    refs = {"1000_a": ["a dog on grass"], "2000_b": ["kids in a pool"]}
    j = load_composite(DATA / "composite" / "8k_correctness.csv", refs)
    assert len(j) == 6
    assert j.candidates[:3] == ("a dog runs on grass", "two kids swim", "a dog outside")
    assert j.ratings[:, 0].tolist() == [5, 1, 4, 5, 1, 4]
    assert "skipped 2 row(s)" in caplog.text
    with pytest.raises(ValueError, match="image '2000_b' has no references"):
        load_composite(DATA / "composite" / "8k_correctness.csv", {"1000_a": ["x"]})


def test_coco_captions(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps(
            {
                "images": [{"id": 2}, {"id": 1}],
                "annotations": [
                    {"image_id": 1, "caption": "one"},
                    {"image_id": 2, "caption": "two"},
                    {"image_id": 1, "caption": "uno"},
                ],
            }
        )
    )
    assert load_coco_captions(path) == {2: ["two"], 1: ["one", "uno"]}
    path.write_text(json.dumps({"annotations": [{"image_id": 1}]}))
    with pytest.raises(ValueError, match=r"annotations\[0\]: missing .caption."):
        load_coco_captions(path)
