"""Penn tree -> UD v1 basic and CCprocessed dependencies, against CoreNLP 3.6.0's own output.

Two fixtures (provenance in ``tests/data/spice/README.md``):

* ``corenlp_ud_constructions.json``: hand-written trees, one per construction the converter has
  to get right (copula, passive, relative clauses, coordination and what propagates over it,
  multi-word prepositions, copies of coordinated prepositions, NP-TMP, possessives, ``dep``
  fallbacks, the root moving in "X next to Y", the cases CoreNLP decides by hash order), with
  CoreNLP's output for each;
* ``corenlp_ud_dev_sample.jsonl.gz``: 3,000 sentences of the official SPICE pipeline's stage
  files (COCO val2014 captions), chosen to cover every relation label, tree category and
  CC-processing effect seen in 40,005 sentences, with the official trees and dependencies.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from capeval.metrics.spice.corenlp.ccprocessed import ccprocessed
from capeval.metrics.spice.corenlp.dependencies import analyze, basic
from capeval.metrics.spice.corenlp.trees import Tree, TreeSyntaxError, read_tree

DATA = Path(__file__).resolve().parents[1] / "data" / "spice"
CONSTRUCTIONS: list[dict[str, Any]] = json.loads((DATA / "corenlp_ud_constructions.json").read_text(encoding="utf-8"))


def _dev_sample() -> list[dict[str, Any]]:
    with gzip.open(DATA / "corenlp_ud_dev_sample.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


DEV_SAMPLE = _dev_sample()


def _as_lists(edges: list[tuple[str, int, int]]) -> list[list[Any]]:
    return [list(e) for e in edges]


@pytest.mark.parametrize("case", CONSTRUCTIONS, ids=[c["name"] for c in CONSTRUCTIONS])
def test_construction(case: dict[str, Any]) -> None:
    s = case["sentence_index"]
    assert _as_lists(basic(case["tree"], sentence_index=s)) == case["basic"], case["what"]
    assert _as_lists(ccprocessed(case["tree"], sentence_index=s)) == case["ccprocessed"], case["what"]


def _cc(name: str) -> list[tuple[str, int, int]]:
    case = next(c for c in CONSTRUCTIONS if c["name"] == name)
    return ccprocessed(case["tree"], sentence_index=case["sentence_index"])


def test_multiword_prepositions_become_one_marker() -> None:
    cc = _cc("in_front_of")  # a(1) dog(2) in(3) front(4) of(5) a(6) house(7)
    assert ("nmod:in_front_of", 2, 7) in cc
    assert ("case", 7, 3) in cc and ("mwe", 3, 4) in cc and ("mwe", 3, 5) in cc
    assert not any(rel.startswith("nmod:") and dep == 4 for rel, _, dep in cc)


def test_next_to_under_a_copula_moves_the_root() -> None:
    case = next(c for c in CONSTRUCTIONS if c["name"] == "next_to_moves_root")
    assert basic(case["tree"])[-1] == ("root", 0, 5)  # "next"
    cc = ccprocessed(case["tree"])
    assert cc[-1] == ("root", 0, 9)  # "boxes"
    assert ("nsubj", 9, 3) in cc and ("cop", 9, 4) in cc and ("case", 9, 5) in cc and ("mwe", 5, 6) in cc


def test_coordinated_prepositions_make_a_copy_of_the_verb() -> None:
    cc = _cc("coordinated_prepositions_copy")  # elephants(1) are(2) standing(3) in(4) and(5) near(6) ... source(9)
    assert ("conj:and", 3, 3) in cc  # standing -> standing' (printed with the same position)
    assert ("nmod:in", 3, 9) in cc and ("nmod:near", 3, 9) in cc
    assert cc.count(("nsubj", 3, 1)) == 2  # the copy gets the subject too


def test_hash_order_decides_two_coordinators() -> None:
    low = _cc("two_coordinators_low_indices")
    high = _cc("two_coordinators_hash_order")
    assert ("conj:or", 5, 8) in low and ("conj:and", 5, 11) in low
    assert ("conj:or", 12, 15) in high and ("conj:or", 12, 18) in high


def test_sentence_index_changes_the_hash_order() -> None:
    case = next(c for c in CONSTRUCTIONS if c["name"] == "wh_attachment_sentence_0")
    assert ("dep", 4, 3) in basic(case["tree"], sentence_index=0)
    assert ("dobj", 9, 3) in basic(case["tree"], sentence_index=1)


def test_dev_sample_is_identical() -> None:
    differ = []
    for s in DEV_SAMPLE:
        b = _as_lists(basic(s["tree"], sentence_index=s["sentence_index"]))
        c = _as_lists(ccprocessed(s["tree"], sentence_index=s["sentence_index"]))
        if b != s["basic"] or c != s["ccprocessed"]:
            differ.append(s["tree"])
    assert not differ, f"{len(differ)} of {len(DEV_SAMPLE)} sentences differ, e.g. {differ[:3]}"


def test_dev_sample_covers_the_relations() -> None:
    labels = {rel for s in DEV_SAMPLE for rel, _, _ in s["ccprocessed"]}
    for rel in ("nmod:agent", "nmod:tmod", "nmod:poss", "acl:relcl", "conj:and", "conj:or", "mwe", "dep", "expl"):
        assert rel in labels


# --- the input: Penn trees -----------------------------------------------------------------------
def test_tree_round_trips_exactly() -> None:
    for s in DEV_SAMPLE[:500]:
        assert str(read_tree(s["tree"])) == s["tree"]


def test_tree_leaves_are_numbered_from_one() -> None:
    tree = read_tree("(ROOT (NP (DT a) (NN dog)))")
    assert [(leaf.label, leaf.index) for leaf in tree.leaves()] == [("a", 1), ("dog", 2)]
    assert tree.words() == ["a", "dog"] and tree.tags() == ["DT", "NN"]
    assert read_tree(" (ROOT\n (NN dog) ) ") == read_tree("(ROOT (NN dog))")


def test_tree_keeps_function_tags_and_odd_words() -> None:
    text = "(ROOT (S (NP-TMP (NN today)) (`` ``) (-LRB- -LRB-) (CD 22\u00a03/4) ('' '') ($ $) (# #)))"
    tree = read_tree(text)
    assert str(tree) == text
    assert tree.words() == ["today", "``", "-LRB-", "22\u00a03/4", "''", "$", "#"]
    assert tree.children[0].children[0].label == "NP-TMP"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "dog",
        "(ROOT (NN dog)",
        "(ROOT (NN dog)))",
        "(ROOT (NN dog)) (ROOT (NN cat))",
        "(ROOT ((NN dog)))",
        "(ROOT)",
    ],
)
def test_malformed_trees_are_rejected(text: str) -> None:
    with pytest.raises(TreeSyntaxError):
        read_tree(text)
    with pytest.raises(TreeSyntaxError):
        ccprocessed(text)


def test_input_types() -> None:
    text = "(ROOT (NP (NP (DT a) (NN dog)) (PP (IN on) (NP (DT a) (NN bed)))))"
    assert basic(read_tree(text)) == basic(text)
    assert (
        ccprocessed(read_tree(text))
        == ccprocessed(text)
        == [
            ("det", 2, 1),
            ("case", 5, 3),
            ("det", 5, 4),
            ("nmod:on", 2, 5),
            ("root", 0, 2),
        ]
    )
    with pytest.raises(TypeError):
        basic(b"(ROOT (NN dog))")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        read_tree(None)  # type: ignore[arg-type]


def test_one_word_and_unknown_categories() -> None:
    assert basic("(ROOT (NN dog))") == [("root", 0, 1)]
    assert ccprocessed("(ROOT (NP (NN dog)))") == [("root", 0, 1)]
    with pytest.raises(ValueError, match="no head rule for category 'FOO'"):
        basic("(ROOT (FOO (NN dog) (NN cat)))")


def test_analysis_carries_words_and_tags() -> None:
    a = analyze("(ROOT (S (NP (PRP it)) (VP (VBZ is))))")
    assert a.words == ("it", "is") and a.tags == ("PRP", "VBZ") and a.root == 2
    assert a.edges == (("nsubj", 2, 1),)


def test_same_tree_twice_gives_the_same_graph() -> None:
    case = next(c for c in CONSTRUCTIONS if c["name"] == "coordinated_pps_copy")
    assert ccprocessed(case["tree"]) == ccprocessed(case["tree"])


def test_tree_equality_and_hash() -> None:
    a, b = read_tree("(ROOT (NN dog))"), read_tree("(ROOT (NN dog))")
    assert a == b and hash(a) == hash(b) and a != read_tree("(ROOT (NN cat))")
    assert isinstance(a, Tree) and a.is_preterminal() is False and a.children[0].is_preterminal()


def test_lemmas_decide_the_wh_attachment() -> None:
    # CoreNLP: dobj(kind, that), because the lemma of "fallen" ("fall") takes NP + infinitive.
    tree = "(ROOT (NP (DT A) (NN woman) (PRT (WDT that) (S (VP (VBZ has) (VP (VBN fallen) (ADJP (NN kind))))))))"
    assert ("dobj", 6, 3) in basic(tree)
    assert ("dobj", 6, 3) in basic(tree, lemmas=["a", "woman", "that", "have", "fall", "kind"])
    assert ("dep", 5, 3) in basic(tree, lemmas=["a", "woman", "that", "have", "fallen", "kind"])
    with pytest.raises(ValueError, match="2 lemmas for 6 words"):
        ccprocessed(tree, lemmas=["a", "woman"])
