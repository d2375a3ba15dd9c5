"""Caption files: every accepted shape, and one test per class of bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from capeval.io import CaptionFileError, align, load_corpus, read_candidates, read_references


def write(tmp_path: Path, name: str, data: Any, raw: bytes | None = None) -> Path:
    path = tmp_path / name
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text(json.dumps(data), encoding="utf-8")
    return path


COCO_REFS = {
    "images": [{"id": 3}, {"id": 1}, {"id": 2}],
    "annotations": [
        {"image_id": 1, "id": 10, "caption": "a dog"},
        {"image_id": 3, "id": 11, "caption": "a cat"},
        {"image_id": 1, "id": 12, "caption": "the dog"},
        {"image_id": 2, "id": 13, "caption": "a bird"},
    ],
}


def test_coco_results_and_annotations_use_official_order(tmp_path: Path) -> None:
    res = write(tmp_path, "r.json", [{"image_id": 1, "caption": "dog"}, {"image_id": 3, "caption": "cat"}])
    ann = write(tmp_path, "a.json", COCO_REFS)
    corpus = load_corpus(res, ann)
    assert corpus.ids == (3, 1)  # order of "images", filtered to the scored images
    assert corpus.candidates == ("cat", "dog")
    assert corpus.references == (("a cat",), ("a dog", "the dog"))
    with pytest.raises(CaptionFileError, match=r"no candidate for 1 image id\(s\).*2"):
        load_corpus(res, ann, require_all=True)


def test_plain_mappings_and_jsonl(tmp_path: Path) -> None:
    res = write(tmp_path, "r.json", {"7": "a dog", "8": ["a cat"]})
    refs = write(tmp_path, "f.json", {"7": ["x", "y"], "8": "z"})
    corpus = load_corpus(res, refs)
    assert corpus.ids == (7, 8) and corpus.references == (("x", "y"), ("z",))
    jl = tmp_path / "r.jsonl"
    jl.write_text('{"image_id": 7, "caption": "a dog"}\n\n{"image_id": "8", "caption": "a cat"}\n', encoding="utf-8")
    rl = tmp_path / "f.jsonl"
    rl.write_text(
        '{"image_id": 7, "caption": "x"}\n{"image_id": 7, "caption": "y"}\n{"image_id": 8, "captions": ["z", "w"]}\n',
        encoding="utf-8",
    )
    corpus = load_corpus(jl, rl)
    assert corpus.candidates == ("a dog", "a cat") and corpus.references == (("x", "y"), ("z", "w"))


def test_ids_match_across_int_and_string(tmp_path: Path) -> None:
    res = write(tmp_path, "r.json", [{"image_id": 391895, "caption": "a man"}])
    refs = write(tmp_path, "f.json", {"391895": ["a man riding"]})
    assert load_corpus(res, refs).ids == (391895,)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'[{"image_id": 1, "caption": "a"', "invalid JSON at line 1"),
        (b"", "file is empty"),
        (b"\xff\xfe[]", "not valid UTF-8 at byte 0"),
        (b'{"images": [], "annotations": []}', "COCO annotations"),
        (b"42", "expected a COCO results list"),
        (b'["a dog"]', "entry 0: expected an object"),
        (b'[{"image_id": 1}]', "entry 0: missing 'caption'"),
        (b'[{"image_id": 1, "caption": 5}]', "caption must be a string, got int"),
        (b'[{"image_id": 1.5, "caption": "a"}]', "image id must be an integer or a string"),
        (b'[{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}]', "duplicate result for image id 1"),
        (b'{"1": ["a", "b"]}', "expected exactly one candidate caption, got 2"),
        (b"[]", "no captions found"),
    ],
)
def test_bad_candidates(tmp_path: Path, raw: bytes, message: str) -> None:
    path = write(tmp_path, "bad.json", None, raw)
    with pytest.raises(CaptionFileError, match=message) as err:
        read_candidates(path)
    assert "bad.json" in str(err.value)


def test_empty_candidate_is_read(tmp_path: Path) -> None:
    """An empty candidate is scored (as the official code scores it, with a warning), not refused."""
    path = write(tmp_path, "r.json", [{"image_id": 1, "caption": "  "}, {"image_id": 2, "caption": ""}])
    assert read_candidates(path) == {1: "  ", 2: ""}


def test_bad_jsonl_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"image_id": 1, "caption": "a"}\n{"image_id": 2, "caption": \n', encoding="utf-8")
    with pytest.raises(CaptionFileError, match="line 2"):
        read_candidates(path)


def test_over_long_caption(tmp_path: Path) -> None:
    path = write(tmp_path, "r.json", [{"image_id": 1, "caption": "a " * 60_000}])
    with pytest.raises(CaptionFileError, match="characters long"):
        read_candidates(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"images": [{"id": 1}], "annotations": [{"image_id": 2, "caption": "a"}]}, "image id 2 is not in"),
        ({"annotations": [{"image_id": 1}]}, "annotations\\[0\\]: missing 'caption'"),
        ({"annotations": [{"image_id": 1, "caption": ""}]}, "caption is empty"),
        ({"annotations": "x"}, '"annotations" must be a list'),
        ({"1": 5}, "expected a list of reference captions"),
        ({"1": []}, "image id 1 has no reference captions"),
        ({"1": ["ok", None]}, "reference 1 must be a string"),
        ([1, 2], "expected a COCO captions file"),
    ],
)
def test_bad_references(tmp_path: Path, data: Any, message: str) -> None:
    with pytest.raises(CaptionFileError, match=message):
        read_references(write(tmp_path, "refs.json", data))


def test_candidate_without_references(tmp_path: Path) -> None:
    res = write(tmp_path, "r.json", [{"image_id": 1, "caption": "a"}, {"image_id": 9, "caption": "b"}])
    refs = write(tmp_path, "f.json", {"1": ["a"]})
    with pytest.raises(CaptionFileError, match=r"1 image id\(s\) have no references.*9"):
        load_corpus(res, refs)


def test_missing_file() -> None:
    with pytest.raises(CaptionFileError, match="cannot read file"):
        read_candidates("/nonexistent/results.json")


@pytest.mark.parametrize("char", ["\r", "\u2028", "\u2029", "\x0b", "\x0c", "\n", "\t", "\x85"])
def test_line_break_characters_keep_captions_aligned(tmp_path: Path, char: str) -> None:
    res = write(
        tmp_path,
        "r.json",
        [
            {"image_id": 1, "caption": f"a dog{char}running"},
            {"image_id": 2, "caption": "a cat"},
            {"image_id": 3, "caption": "last"},
        ],
    )
    refs = write(tmp_path, "f.json", {"1": [f"x{char}y"], "2": ["a cat"], "3": ["last one"]})
    corpus = load_corpus(res, refs)
    assert corpus.ids == (1, 2, 3)
    assert corpus.candidates[1:] == ("a cat", "last")
    assert corpus.references[1:] == (("a cat",), ("last one",))


def test_align_is_order_preserving_for_plain_mappings() -> None:
    corpus = align({"b": "x", "a": "y"}, {"a": ["1"], "b": ["2"]})
    assert corpus.ids == ("a", "b") and corpus.candidates == ("y", "x")
