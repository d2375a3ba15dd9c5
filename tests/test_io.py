"""Caption files: every accepted shape, and one test per class of bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from capeval.io import (
    DECODE_ERRORS,
    CaptionFileError,
    JsonLimits,
    align,
    load_corpus,
    parse_candidates,
    parse_jsonl,
    parse_references,
    read_candidates,
    read_jsonl,
    read_references,
)


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
        (b'{"image_id": "5", "caption": "a dog"}', "a single result object; candidates must be a list"),
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
        ({"images": [{"id": 1}]}, 'COCO captions file without "annotations"'),
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


def test_byte_order_mark_is_dropped_for_every_shape(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    coco = write(tmp_path, "a.json", None, bom + json.dumps(COCO_REFS).encode())
    assert read_references(coco) == {3: ["a cat"], 1: ["a dog", "the dog"], 2: ["a bird"]}
    res = write(tmp_path, "r.jsonl", None, bom + b'{"image_id": 1, "caption": "dog"}\n')
    assert read_candidates(res) == {1: "dog"}
    assert read_jsonl(res) == [(1, {"image_id": 1, "caption": "dog"})]
    assert parse_candidates(bom + b'{"1": "dog"}') == {1: "dog"}
    assert parse_references("\ufeff" + json.dumps(COCO_REFS)) == read_references(coco)


def test_parse_from_memory_follows_the_file_rules(tmp_path: Path) -> None:
    """Uploads (bytes) and files are read by the same code: same result, same message."""
    raw = b'[{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}]'
    with pytest.raises(CaptionFileError, match="upload.json: entry 1: duplicate result") as from_bytes:
        parse_candidates(raw, name="upload.json")
    with pytest.raises(CaptionFileError) as from_file:
        read_candidates(write(tmp_path, "upload.json", None, raw))
    assert str(from_file.value).endswith(str(from_bytes.value).removeprefix("upload.json"))
    assert from_bytes.value.code == from_file.value.code == "duplicate_image_id"
    assert parse_candidates('{"image_id": 5, "caption": "x"}\n{"image_id": 6, "caption": "y"}\n') == {5: "x", 6: "y"}
    assert parse_candidates(b'{"image_id": 5, "caption": "x"}', jsonl=True) == {5: "x"}


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"", "empty_file"),
        (b"\xff", "not_utf8"),
        (b"[1,", "bad_json"),
        (b"[" * 100_000 + b"]" * 100_000, "too_deep"),
        (b"42", "bad_shape"),
        (b'["a dog"]', "item_not_object"),
        (b'[{"image_id": 1}]', "missing_caption"),
        (b'[{"caption": "a"}]', "missing_image_id"),
        (b'[{"image_id": null, "caption": "a"}]', "bad_image_id"),
        (b'[{"image_id": 1, "caption": 3}]', "bad_caption_type"),
        (b'[{"image_id": 1, "caption": "a\\u0000b"}]', "bad_caption"),
        (b"[]", "no_items"),
    ],
)
def test_error_codes(raw: bytes, code: str) -> None:
    with pytest.raises(CaptionFileError) as err:
        parse_candidates(raw, name="up.json")
    assert err.value.code == code
    assert str(err.value).startswith("up.json: ")
    assert (code in DECODE_ERRORS) == (code in {"empty_file", "not_utf8", "bad_json", "too_deep"})


def test_empty_candidate_is_accepted_and_empty_reference_refused() -> None:
    # An empty generated caption is scored (0, as the official code scores it) with a warning at
    # scoring time; an empty reference caption is an error in the file.
    assert parse_candidates(b'[{"image_id": 1, "caption": " "}]', name="up.json") == {1: " "}
    refs = b'{"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": " "}]}'
    with pytest.raises(CaptionFileError) as err:
        parse_references(refs, name="refs.json")
    assert err.value.code == "empty_caption"


def test_caption_limit_is_configurable() -> None:
    assert parse_candidates(b'{"1": "abcd"}', max_caption_chars=4) == {1: "abcd"}
    with pytest.raises(CaptionFileError, match="5 characters long \\(limit 4\\)") as err:
        parse_candidates(b'{"1": "abcde"}', max_caption_chars=4)
    assert err.value.code == "caption_too_long"


@pytest.mark.parametrize("char", ["\r", "\u2028", "\u2029", "\x0b", "\x0c", "\x85"])
def test_jsonl_records_are_split_at_newlines_only(char: str) -> None:
    text = json.dumps({"caption": f"a{char}b"}, ensure_ascii=False) + "\r\n" + json.dumps({"caption": "c"}) + "\n"
    assert parse_jsonl(text, name="x.jsonl") == [(1, {"caption": f"a{char}b"}), (2, {"caption": "c"})]
    assert parse_candidates(
        text.replace('{"caption"', '{"image_id": 1, "caption"', 1).replace(
            '{"caption": "c"}', '{"image_id": 2, "caption": "c"}'
        )
    ) == {1: f"a{char}b", 2: "c"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1}\n{oops\n', "x.jsonl: line 2: invalid JSON at column 2"),
        ("[1]\n", "x.jsonl: line 1: expected a JSON object, got list"),
        ("\n \n", "x.jsonl: file is empty"),
    ],
)
def test_bad_jsonl(text: str, message: str) -> None:
    with pytest.raises(CaptionFileError, match=message):
        parse_jsonl(text, name="x.jsonl")


def test_error_survives_pickling() -> None:
    import pickle

    err = pickle.loads(pickle.dumps(CaptionFileError("f: bad", code="bad_json")))
    assert str(err) == "f: bad" and err.code == "bad_json"


def test_reference_order_by_images_or_by_annotations(tmp_path: Path) -> None:
    path = write(tmp_path, "a.json", COCO_REFS)
    assert list(read_references(path)) == [3, 1, 2]
    by_annotations = read_references(path, order="annotations")
    assert list(by_annotations) == [1, 3, 2] and by_annotations == read_references(path)
    with pytest.raises(ValueError, match="order must be"):
        read_references(path, order="random")


HUGE_INT = "9" * 5000


@pytest.mark.parametrize(
    ("raw", "code", "message"),
    [
        ('[{"image_id": ' + HUGE_INT + ', "caption": "a"}]', "number_too_large", "longer than Python's limit"),
        ('[{"image_id": -' + HUGE_INT + ', "caption": "a"}]', "number_too_large", "at most 30 digits allowed"),
        ('[{"image_id": 1e400, "caption": "a"}]', "number_too_large", "out of range"),
        ('[{"image_id": 1, "caption": "a", "n": ' + "9" * 40 + "}]", "number_too_large", "an integer has 40 digits"),
        ('[{"image_id": 1, "caption": "a", "n": -1.5e999}]', "number_too_large", "out of range"),
        ('[{"image_id": 1, "caption": NaN}]', "bad_number", "NaN is not a JSON number"),
        ('[{"image_id": 1, "caption": "a", "score": -Infinity}]', "bad_number", "-Infinity is not a JSON number"),
        ('[{"image_id": 1, "caption": "\\ud800 a"}]', "bad_string", "lone UTF-16 surrogate"),
        ('[{"image_id": 1, "caption": "a \\udc00"}]', "bad_string", "lone UTF-16 surrogate"),
        ("[" * 40 + "]" * 40, "too_deep", "nested more than 32 levels deep"),
    ],
)
def test_hostile_json_is_refused_with_a_caption_file_error(tmp_path: Path, raw: str, code: str, message: str) -> None:
    path = write(tmp_path, "r.json", None, raw=raw.encode())
    with pytest.raises(CaptionFileError, match=message) as err:
        read_candidates(path)
    assert err.value.code == code and code in DECODE_ERRORS
    assert str(err.value).startswith(f"{path}: ")
    with pytest.raises(CaptionFileError) as from_refs:
        read_references(path)
    assert from_refs.value.code == code
    with pytest.raises(CaptionFileError) as from_jsonl:
        parse_jsonl(raw.replace("[", "", 1)[:-1] if raw.startswith("[{") else raw, name="x.jsonl")
    assert from_jsonl.value.code == code


def test_valid_surrogate_pairs_and_long_numbers_within_limits_pass() -> None:
    assert parse_candidates('[{"image_id": 1, "caption": "a \\ud83d\\ude00"}]') == {1: "a \U0001f600"}
    assert parse_candidates('[{"image_id": ' + "9" * 30 + ', "caption": "a"}]') == {int("9" * 30): "a"}
    with pytest.raises(CaptionFileError) as err:
        parse_candidates("a \ud800", name="text")
    assert err.value.code == "bad_string"


def test_limits_are_parameters() -> None:
    strict = JsonLimits(max_depth=2, max_int_digits=3, max_string_chars=8)
    assert parse_candidates('[{"image_id": 123, "caption": "abcd"}]', limits=strict) == {123: "abcd"}
    for raw, code in [
        ('[{"image_id": 1234, "caption": "a"}]', "number_too_large"),
        ('[{"image_id": -1000, "caption": "a"}]', "number_too_large"),
        ('[{"image_id": 1, "caption": "abcdefghi"}]', "string_too_long"),
        ('[{"image_id": 1, "caption": "a", "x": []}]', "too_deep"),
    ]:
        with pytest.raises(CaptionFileError) as err:
            parse_candidates(raw, limits=strict)
        assert err.value.code == code, raw


@pytest.mark.parametrize("char", ["\r", "\u2028", "\u2029", "\x07", "\x85", "\x7f", "\x1b"])
def test_control_characters_are_spaces_by_default_and_refused_on_request(char: str) -> None:
    raw = json.dumps([{"image_id": 1, "caption": f"a{char}dog"}])
    assert parse_candidates(raw) == {1: f"a{char}dog"}
    with pytest.raises(CaptionFileError, match=f"control character U\\+{ord(char):04X} at position 1") as err:
        parse_candidates(raw, name="up.json", allow_control_chars=False)
    assert err.value.code == "bad_caption"
    assert parse_candidates(json.dumps([{"image_id": 1, "caption": "a\tdog"}]), allow_control_chars=False)


def test_empty_candidates_refused_on_request() -> None:
    with pytest.raises(CaptionFileError, match="entry 0 \\(image id 1\\): caption is empty") as err:
        parse_candidates(b'[{"image_id": 1, "caption": " "}]', name="up.json", allow_empty=False)
    assert err.value.code == "empty_caption"


@pytest.mark.parametrize(
    ("raw", "ok"),
    [
        ('[{"image_id": 7, "caption": "a"}]', True),
        ('{"7": "a"}', True),
        ('[{"image_id": "7", "caption": "a"}]', False),
        ('[{"image_id": 1.5, "caption": "a"}]', False),
        ('[{"image_id": true, "caption": "a"}]', False),
        ('{"x7": "a"}', False),
        ('{"07": "a"}', False),
    ],
)
def test_integer_ids_on_request(raw: str, ok: bool) -> None:
    if ok:
        assert parse_candidates(raw, integer_ids=True) == {7: "a"}
    else:
        with pytest.raises(CaptionFileError, match="image_id must be an integer, got") as err:
            parse_candidates(raw, integer_ids=True)
        assert err.value.code == "bad_image_id"


def test_write_columns_json_writes_what_write_json_writes(tmp_path: Path) -> None:
    import numpy as np

    from capeval.io import write_columns_json, write_json

    keys = ["1", "2", 'a "quoted" id', "\u00e9t\u00e9 {x}"]
    columns = {
        "Bleu_1": np.array([0.1, 1 / 3, 0.0, 1e-300]),
        'odd "name" {with} braces': [float("nan"), float("inf"), -float("inf"), 2.0],
        "CIDEr \u2713": np.array([5e-324, 1.0, 123456789.123, -0.0]),
    }
    table = {k: {name: float(columns[name][i]) for name in columns} for i, k in enumerate(keys)}
    write_json(tmp_path / "a.json", table)
    write_columns_json(tmp_path / "b.json", keys, columns)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    for empty_keys, empty_columns in (([], {"x": []}), (["1"], {})):
        write_json(tmp_path / "a.json", {k: {} for k in empty_keys})
        write_columns_json(tmp_path / "b.json", empty_keys, empty_columns)
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    with pytest.raises(ValueError, match="2 values for 4 rows"):
        write_columns_json(tmp_path / "b.json", keys, {"x": [1.0, 2.0]})
