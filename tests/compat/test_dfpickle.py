"""Document-frequency pickles: the restricted unpickler, conversion, lookup and ``capeval cider-df``."""

from __future__ import annotations

import json
import os
import pickle
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from capeval.cli.main import main
from capeval.compat.dfpickle import (
    DfPickleError,
    frequencies_from_mapping,
    load_df_pickle,
    read_df,
    resolve_df_path,
)
from capeval.compat.pyciderevalcap.ciderD.ciderD import CiderD
from capeval.metrics.cider import CIDErD, DocumentFrequencies

REFS = [["a dog runs on grass", "the dog is running"], ["a cat sleeps", "a cat is sleeping on a bed"], ["two men"]]


def _df_pickle(path: Path, table: object = None, ref_len: object = 3, protocol: int = 2) -> Path:
    if table is None:
        table = defaultdict(float)
        for refs in REFS:
            for ngram in {
                tuple(w[i : i + k])
                for r in refs
                for w in [r.split()]
                for k in range(1, 5)
                for i in range(len(w) - k + 1)
            }:
                table[ngram] += 1
    with open(path, "wb") as fh:
        pickle.dump({"document_frequency": table, "ref_len": ref_len}, fh, protocol=protocol)
    return path


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_pickle_matches_counted_frequencies(tmp_path: Path, protocol: int) -> None:
    path = _df_pickle(tmp_path / "df.p", protocol=protocol)
    table, ref_len = load_df_pickle(path)
    assert ref_len == 3.0 and table[("a", "cat")] == 1.0 and table[("a",)] == 2.0
    from_pickle = frequencies_from_mapping(table, ref_len)
    counted = DocumentFrequencies.from_references(REFS)
    for ngram in ("a", "a cat", "dog is running", "a cat is sleeping", "unseen", "a dog runs on"):
        assert from_pickle.get(ngram) == counted.get(ngram), ngram
    cands, items = ["a dog is on grass", "a cat", "two men sleeping"], [0, 1, 2]
    np.testing.assert_allclose(
        CIDErD(tokenizer="none", df=from_pickle).score_batch(cands, items, REFS),
        CIDErD(tokenizer="none", df=counted).score_batch(cands, items, REFS),
        rtol=0,
        atol=1e-15,
    )


class _Evil:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("echo pwned > /dev/null",))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"document_frequency": {("a",): _Evil()}, "ref_len": 3}, "refused: the pickle asks to import"),
        (_Evil(), "refused: the pickle asks to import"),
        ({"document_frequency": {("a",): np.float64(1.0)}, "ref_len": 3}, "refused: the pickle asks to import numpy"),
        ([1, 2, 3], "expected a dict"),
        ({"document_frequency": {}}, "missing ref_len"),
        ({"document_frequency": {}, "ref_len": 3, "extra": 1}, "unexpected 'extra'"),
        ({"document_frequency": {("a",): 1.0}, "ref_len": "3"}, "'ref_len' must be a positive number"),
        ({"document_frequency": {("a",): 1.0}, "ref_len": 0}, "'ref_len' must be a positive number"),
        ({"document_frequency": [("a", 1.0)], "ref_len": 3}, "must be a dict of n-gram tuples"),
        ({"document_frequency": {"a": 1.0}, "ref_len": 3}, "is not a tuple of 1 to 4 words"),
        ({"document_frequency": {("a",) * 5: 1.0}, "ref_len": 3}, "is not a tuple of 1 to 4 words"),
        ({"document_frequency": {("a",): -1.0}, "ref_len": 3}, "must be a non-negative number"),
        ({"document_frequency": {("a",): "1"}, "ref_len": 3}, "must be a non-negative number"),
        ({"document_frequency": {("a", 1.5): 1.0}, "ref_len": 3}, "other than strings and integers"),
        ({"document_frequency": defaultdict(list), "ref_len": 3}, "import __builtin__.list"),
    ],
)
def test_malicious_or_malformed_pickles_are_refused(tmp_path: Path, payload: object, message: str) -> None:
    path = tmp_path / "bad.p"
    path.write_bytes(pickle.dumps(payload, protocol=2))
    with pytest.raises(DfPickleError, match=message) as info:
        load_df_pickle(path)
    assert str(path) in str(info.value)


def test_reduce_payload_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    payload = pickle.dumps({"document_frequency": {}, "ref_len": 1, "x": _Touch(str(marker))})
    path = tmp_path / "evil.p"
    path.write_bytes(payload)
    with pytest.raises(DfPickleError, match="refused"):
        load_df_pickle(path)
    assert not marker.exists()
    with pytest.raises(DfPickleError, match="refused"):
        CiderD(df=str(path))


class _Touch:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


@pytest.mark.parametrize("cut", [1, 10, 0.5])
def test_truncated_pickle(tmp_path: Path, cut: float) -> None:
    data = _df_pickle(tmp_path / "df.p").read_bytes()
    keep = int(len(data) * cut) if isinstance(cut, float) else cut
    path = tmp_path / "cut.p"
    path.write_bytes(data[:keep])
    with pytest.raises(DfPickleError, match="truncated or corrupt"):
        load_df_pickle(path)


def test_integer_ngrams_are_dropped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _df_pickle(tmp_path / "df.p", table={("a",): 2.0, (1, 2): 1.0})
    table, _ = load_df_pickle(path)
    assert table == {("a",): 2.0}
    assert "1 n-grams of integers dropped" in caplog.text


def test_df_lookup_like_self_critical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").mkdir()
    _df_pickle(tmp_path / "data" / "coco-train-idxs.p")
    monkeypatch.chdir(tmp_path)
    assert resolve_df_path("coco-train-idxs") == Path("data/coco-train-idxs.p")
    assert resolve_df_path(str(tmp_path / "data" / "coco-train-idxs.p")).is_file()
    with pytest.raises(FileNotFoundError, match=r"data/coco-val\.p"):
        resolve_df_path("coco-val")
    gts = {0: REFS[0], 1: REFS[1]}
    res = [{"image_id": 0, "caption": ["a dog runs"]}, {"image_id": 1, "caption": ["a cat"]}]
    mean, scores = CiderD(df="coco-train-idxs").compute_score(gts, res)
    assert isinstance(mean, np.float64) and scores.shape == (2,)
    assert read_df("coco-train-idxs").n_documents == 3
    assert main(["cider-df", "convert", "data/coco-train-idxs.p", "data/coco-train-idxs.npz"]) == 0
    assert resolve_df_path("coco-train-idxs") == Path("data/coco-train-idxs.npz")
    np.testing.assert_array_equal(CiderD(df="coco-train-idxs").compute_score(gts, res)[1], scores)
    os.utime("data/coco-train-idxs.p")  # a newer pickle wins over a stale conversion
    os.utime("data/coco-train-idxs.npz", (1, 1))
    assert resolve_df_path("coco-train-idxs") == Path("data/coco-train-idxs.p")


def test_cli_convert_and_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkl = _df_pickle(tmp_path / "df.p")
    npz = tmp_path / "df.npz"
    assert main(["cider-df", "convert", str(pkl), str(npz)]) == 0
    converted = DocumentFrequencies.load(npz)
    assert converted.get("a cat") == 1 and converted.n_documents == 3
    (tmp_path / "bad.p").write_bytes(pickle.dumps(_Evil()))
    assert main(["cider-df", "convert", str(tmp_path / "bad.p"), str(tmp_path / "bad.npz")]) == 2
    assert not (tmp_path / "bad.npz").exists()
    karpathy = {
        "images": [
            {"split": "train", "sentences": [{"tokens": r.split()} for r in REFS[0]]},
            {"split": "restval", "sentences": [{"tokens": r.split()} for r in REFS[1]]},
            {"split": "val", "sentences": [{"tokens": r.split()} for r in REFS[2]]},
        ]
    }
    (tmp_path / "dataset.json").write_text(json.dumps(karpathy))
    out = tmp_path / "train.p"
    assert main(["cider-df", "build", "--captions", str(tmp_path / "dataset.json"), "--output", str(out)]) == 0
    table, ref_len = load_df_pickle(out)
    assert ref_len == 2 and table[("a",)] == 2.0 and ("two", "men") not in table
    coco = {
        "images": [{"id": 1}, {"id": 2}],
        "annotations": [
            {"id": 1, "image_id": 1, "caption": "A dog, running."},
            {"id": 2, "image_id": 2, "caption": "A cat."},
        ],
    }
    (tmp_path / "coco.json").write_text(json.dumps(coco))
    out_npz = tmp_path / "coco.npz"
    assert main(["cider-df", "build", "--captions", str(tmp_path / "coco.json"), "--output", str(out_npz)]) == 0
    built = DocumentFrequencies.load(out_npz)
    assert built.get("a") == 2 and built.get("dog running") == 1 and built.n_documents == 2


def test_build_refuses_a_malformed_coco_file_by_the_readers_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coco = {"images": [{"id": 1}], "annotations": [{"id": 1, "image_id": 2, "caption": "A dog."}]}
    (tmp_path / "coco.json").write_text(json.dumps(coco))
    out = tmp_path / "coco.npz"
    assert main(["cider-df", "build", "--captions", str(tmp_path / "coco.json"), "--output", str(out)]) == 2
    assert "coco.json" in capsys.readouterr().err
    assert not out.exists()
