"""The compiled paraphrase-table parser against a plain-Python reading of the same file format."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from capeval.metrics.meteor import _resources
from capeval.metrics.meteor._resources import MeteorDataError

ENTRIES = [
    ("0.5", "a dog", "the dog"),
    ("0.25", "a dog", "a puppy"),
    ("0.125", "runs", "is running"),
    ("0.1", "the dog", "a dog"),
    ("0.1", "on the grass in a big green park", "x"),  # 8 tokens: too long, tested separately
    ("0.05", "café", "coffee shop"),
    ("0.05", "runs", "a dog"),
]


def _write(path: Path, entries: list[tuple[str, str, str]]) -> Path:
    with gzip.open(path, "wb") as fh:
        fh.write("".join(f"{p}\n{a}\n{b}\n" for p, a, b in entries).encode("utf-8"))
    return path


def _expected(entries: list[tuple[str, str, str]]) -> dict[str, object]:
    vocab: dict[str, int] = {}
    for phrase in [e[1] for e in entries] + [e[2] for e in entries]:  # phrases first, then paraphrases
        for tok in phrase.split(" "):
            vocab.setdefault(tok, len(vocab) + 1)
    keys = {p: tuple(vocab[t] for t in p.split(" ")) for e in entries for p in e[1:]}
    ordered = sorted(set(keys.values()), key=lambda k: k + (0,) * (7 - len(k)))
    pid = {k: i for i, k in enumerate(ordered)}
    groups: dict[int, list[int]] = {}
    for _, a, b in entries:
        groups.setdefault(pid[keys[a]], []).append(pid[keys[b]])
    return {"vocab": list(vocab), "lengths": [len(k) for k in ordered], "groups": groups}


def _assert_plain_reading(path: Path, entries: list[tuple[str, str, str]]) -> dict[str, Any]:
    """Convert ``entries`` written to ``path``; check the vocabulary, lengths and groups."""
    arrays = _resources._build_paraphrase_arrays(_write(path, entries))
    want = _expected(entries)
    assert str(arrays["vocab"]).split("\n") == want["vocab"]
    assert np.asarray(arrays["phrase_len"]).tolist() == want["lengths"]
    off, dst = np.asarray(arrays["group_offsets"]), np.asarray(arrays["group_dst"])
    got = {p: dst[off[p] : off[p + 1]].tolist() for p in range(off.size - 1) if off[p + 1] > off[p]}
    assert got == want["groups"]
    return arrays


def test_parser_matches_a_plain_reading(tmp_path: Path) -> None:
    arrays = _assert_plain_reading(tmp_path / "p.gz", [e for e in ENTRIES if len(e[1].split()) <= 7])
    hi = np.asarray(arrays["phrase_hi"])
    assert np.all(np.diff(hi.astype(np.float64)) >= 0)  # sorted: lookups are binary searches


def test_repeated_lines_are_the_same_phrase(tmp_path: Path) -> None:
    # the parser reuses the previous line's phrase when a line repeats it byte for byte: runs of
    # one phrase, neighbours of the same length that differ, and repeats on the paraphrase side
    entries = [
        ("0.5", "a dog", "a cat"),
        ("0.4", "a dog", "a cat"),
        ("0.3", "a dog", "the pup"),
        ("0.2", "a cat", "a dog"),
        ("0.2", "a cat", "a dog"),
        ("0.1", "a cot", "cats"),
        ("0.1", "a dog", "a cot"),
        ("0.1", "dogs", "a dog"),
    ]
    _assert_plain_reading(tmp_path / "r.gz", entries)


def test_parser_refuses_malformed_tables(tmp_path: Path) -> None:
    with pytest.raises(MeteorDataError, match="longer than 7"):
        _resources._build_paraphrase_arrays(_write(tmp_path / "long.gz", ENTRIES))
    bad = tmp_path / "bad.gz"
    with gzip.open(bad, "wb") as fh:
        fh.write(b"0.5\na dog\n")
    with pytest.raises(MeteorDataError, match="multiple of 3"):
        _resources._build_paraphrase_arrays(bad)


def _small_cache(target: Path) -> None:
    """A cache directory in the layout ``_build_cache`` writes, without the recorded file stats."""
    import json

    target.mkdir()
    np.save(target / "phrase_hi.npy", np.arange(5, dtype=np.uint64))
    (target / "vocab.txt").write_bytes(b"a\nb")
    files = {name: _resources._sha256_file(target / name) for name in ("phrase_hi.npy", "vocab.txt")}
    manifest = {"format": _resources.CACHE_FORMAT, "files": files}
    (target / "manifest.json").write_text(json.dumps(manifest))


def test_cache_read_records_stats_and_still_detects_changes(tmp_path: Path) -> None:
    import json
    import os

    target = tmp_path / "cache"
    _small_cache(target)
    first = _resources._read_cache(target)  # hashed in full, then the file stats are recorded
    assert list(first["phrase_hi"]) == [0, 1, 2, 3, 4] and first["vocab"] == "a\nb"
    stats = json.loads((target / "manifest.json").read_text())["stat"]
    assert stats == {name: _resources._stat_key(target / name) for name in ("phrase_hi.npy", "vocab.txt")}
    assert _resources._read_cache(target)["vocab"] == "a\nb"  # unchanged: read without hashing
    # same size, new content: the modification time differs from the recorded one, so it is hashed
    (target / "vocab.txt").write_bytes(b"a\nc")
    st = (target / "vocab.txt").stat()
    os.utime(target / "vocab.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with pytest.raises(MeteorDataError, match="corrupt"):
        _resources._read_cache(target)


def test_gunzip_inflates_one_member_and_refuses_the_rest(tmp_path: Path) -> None:
    text = "".join(f"{i}\nphrase {i}\nparaphrase {i}\n" for i in range(50_000)).encode("utf-8")
    good = tmp_path / "good.gz"
    good.write_bytes(gzip.compress(text))
    assert _resources._gunzip(good).tobytes() == text  # several 256 kB input pieces
    cases = {
        "two.gz": (gzip.compress(b"a\n") + gzip.compress(b"b\n"), "data after the end"),
        "cut.gz": (gzip.compress(text)[:-5000] + gzip.compress(text)[-4:], "cut short"),
        "long.gz": (gzip.compress(text)[:-4] + (10).to_bytes(4, "little"), "content size differs"),
        "text.gz": (b"not a gzip file at all", "not a valid gzip file"),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(MeteorDataError, match=message):
            _resources._gunzip(path)


def test_first_offsets_search_the_keys_as_they_are() -> None:
    shift = _resources.TOKEN_BITS * (_resources.TOKENS_PER_WORD - 1)
    hi = np.array([0, 1, (1 << shift) - 1, 1 << shift, (1 << shift) + 5, 2 << shift, 3 << shift], dtype=np.uint64)
    expected = np.searchsorted(hi >> np.uint64(shift), np.arange(5, dtype=np.uint64))
    assert _resources._first_offsets(hi, 3).tolist() == expected.tolist() == [0, 3, 5, 6, 7]
