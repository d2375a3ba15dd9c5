"""englishPCFG as arrays: conversion, cache, and the unary closure Java builds at load time."""

from __future__ import annotations

import gzip
import hashlib
import struct
from pathlib import Path

import numpy as np
import pytest
from tests.spice.grammar_fixture import pcfg_grammar  # noqa: F401 - a fixture

from capeval.metrics.spice.corenlp.grammar import OFFICIAL_SHA256, Grammar, GrammarError, unary_closure

#: sha256 of CoreNLP 3.6.0's own listing of the loaded grammar's unary rules, printed by the jar:
#: per state ``s``, ``"P s child:bits ..."`` (``rulesByParent``, Java's order) and
#: ``"C s parent:bits ..."`` (``closedRulesByChild``), score bits as ``Float.floatToRawIntBits``,
#: lines joined by newlines.
JAVA_RULES_BY_PARENT = "38d84a045577bfbb4fe39854f0105d329c299b7205c57241837a5c5343769320"
JAVA_CLOSED_BY_CHILD = "a7f9dc5a29f6d07102e53b6a2003db00eeb63700b4fc278e4ed34505d982c780"


def _bits(scores: np.ndarray) -> list[int]:  # type: ignore[type-arg]
    return scores.astype(np.float32).view(np.int32).tolist()  # type: ignore[no-any-return]


def _listing(tag: str, keys: np.ndarray, values: np.ndarray, scores: np.ndarray, size: int) -> str:  # type: ignore[type-arg]
    rows: list[list[str]] = [[] for _ in range(size)]
    for key, value, bits in zip(keys.tolist(), values.tolist(), _bits(scores), strict=True):
        rows[key].append(f"{value}:{bits}")
    return "\n".join(" ".join([f"{tag} {s}", *row]) for s, row in enumerate(rows))


def test_sizes(pcfg_grammar: Grammar) -> None:  # noqa: F811
    g = pcfg_grammar
    assert (g.num_states, g.num_tags, g.num_words) == (12_977, 614, 48_050)
    assert len(g.binary_parent) == 46_091
    assert len(g.unary_parent) == 3_135
    assert len(g.closed_parent) == 12_905
    assert int((g.binary_score >= 0).sum()) == 24_822
    assert g.states[g.goal_state] == "ROOT"
    assert g.words[g.boundary_word] == ".$." and g.states[g.tag_state[g.boundary_tag]] == ".$$."
    assert (g.total, g.unseen_total) == (1_064_728.4999999742, 14_707.853068450902)
    assert (g.smooth_unknown, g.smooth_known, g.smooth_in_unknowns_threshold) == (1.0, 0.2, 100.0)
    assert int((g.unseen_tag_count > g.open_class_threshold).sum()) == 17
    assert g.sha256 == OFFICIAL_SHA256


def test_unary_rules_are_javas(pcfg_grammar: Grammar) -> None:  # noqa: F811
    g = pcfg_grammar
    by_parent = _listing("P", g.unary_parent, g.unary_child, g.unary_score, g.num_states)
    closed = _listing("C", g.closed_child, g.closed_parent, g.closed_score, g.num_states)
    assert hashlib.sha256(by_parent.encode()).hexdigest() == JAVA_RULES_BY_PARENT
    assert hashlib.sha256(closed.encode()).hexdigest() == JAVA_CLOSED_BY_CHILD


def test_save_and_load(pcfg_grammar: Grammar, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "sub" / "g.npz"
    pcfg_grammar.save(path)
    loaded = Grammar.load(path)
    assert loaded.sha256 == pcfg_grammar.sha256
    assert loaded.source_path == path.resolve()
    assert loaded.states == pcfg_grammar.states and loaded.words == pcfg_grammar.words
    for name, array in pcfg_grammar.to_arrays().items():
        assert np.array_equal(getattr(loaded, name) if name != "scalars" else loaded.to_arrays()[name], array), name
    assert [p.name for p in path.parent.iterdir()] == ["g.npz"]  # no temporary file left


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(GrammarError, match="gzip"):
        Grammar.from_ser_gz(b"not a grammar")
    with pytest.raises(GrammarError, match="Java object stream"):
        Grammar.from_ser_gz(gzip.compress(b"\x00\x01 not java"))
    with pytest.raises(GrammarError, match="LexicalizedParser"):
        # a serialized java.lang.Integer(7)
        Grammar.from_ser_gz(
            gzip.compress(
                bytes.fromhex(
                    "aced0005737200116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565"
                    "787200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b02000078700000000"
                    "7"
                )
            )
        )
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    with pytest.raises(GrammarError, match="not a converted grammar"):
        Grammar.load(bad)
    np.savez(tmp_path / "old.npz", format_version=np.array([0]))
    with pytest.raises(GrammarError, match="format"):
        Grammar.load(tmp_path / "old.npz")


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]  # type: ignore[no-any-return]


def test_unary_closure_relaxes_in_the_order_rules_are_added() -> None:
    # states 0..3; chain 3 -> 2 -> 1 -> 0 (parent -> child) plus a direct 3 -> 0
    third = _f32(1 / 3)
    rules = [(3, 0, -5.0), (1, 0, -third), (2, 1, -third), (3, 2, -third)]
    closed, by_parent = unary_closure(4, rules)
    found = {(p, c): s for p, c, s in closed}
    assert found[(3, 0)] == max(-5.0, _f32(_f32(-third + -third) + -third))
    assert found[(2, 0)] == _f32(-third + -third)
    assert by_parent == {3: [(0, -5.0), (2, -third)], 1: [(0, -third)], 2: [(1, -third)]}
    assert [(p, c) for p, c, _ in closed] == [(3, 0), (1, 0), (2, 1), (2, 0), (3, 2), (3, 1)]


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        ("binary_left", lambda a: a + 20_000, "outside"),
        ("binary_score", lambda a: a.astype(np.float64), "float32"),
        ("closed_parent", lambda a: a[:-1], "entries"),
        ("unary_score", lambda a: np.where(a == a.min(), np.nan, a).astype(np.float32), "NaN"),
        ("seen_tag", lambda a: -a - 1, "outside"),
        ("state_offsets", lambda a: a[::-1].copy(), "do not index"),
    ],
)
def test_inconsistent_arrays_are_refused(
    pcfg_grammar: Grammar,  # noqa: F811
    name: str,
    change: object,
    message: str,
) -> None:
    arrays = pcfg_grammar.to_arrays()
    arrays[name] = change(arrays[name])  # type: ignore[operator]
    with pytest.raises(GrammarError, match=message):
        Grammar(arrays, pcfg_grammar.sha256)
