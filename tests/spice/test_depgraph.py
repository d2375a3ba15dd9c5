"""Reading the official pipeline's stage sentences, copy nodes included, and the graph's Java order."""

from __future__ import annotations

import pytest

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.semgraph import JavaHashMap, NodeData, SemanticGraph


def _tagged(text: str) -> list[tuple[str, str]]:
    return [(item.split("/")[0], item.split("/")[1]) for item in text.split()]


def _edges(sentence: dict[str, object]) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    sg = DepGraph.from_stage(sentence).to_semgraph()
    return sorted((rel, gov, dep) for gov, dep, rel in sg.edges())


def test_coordinated_prepositions_make_a_copy() -> None:
    """ "elephants are standing in and near a water source" as the stages list it, and the graph
    the jar builds (copy counts from CoreNLP's own graph)."""
    tokens = "elephants/NNS are/VBP standing/VBG in/IN and/CC near/IN a/DT water/NN source/NN".split()
    sentence = {
        "tokens": [[t.split("/")[0], t.split("/")[1], t.split("/")[0]] for t in tokens],
        "ccprocessed": [
            ["nsubj", 3, 1],
            ["nsubj", 3, 1],
            ["aux", 3, 2],
            ["conj:and", 3, 3],
            ["case", 9, 4],
            ["cc", 4, 5],
            ["conj:and", 4, 6],
            ["det", 9, 7],
            ["compound", 9, 8],
            ["nmod:in", 3, 9],
            ["nmod:near", 3, 9],
            ["root", 0, 3],
        ],
    }
    assert _edges(sentence) == sorted(
        [
            ("nsubj", (3, 0), (1, 0)),
            ("nsubj", (3, 1), (1, 0)),
            ("aux", (3, 0), (2, 0)),
            ("conj:and", (3, 0), (3, 1)),
            ("case", (9, 0), (4, 0)),
            ("cc", (4, 0), (5, 0)),
            ("conj:and", (4, 0), (6, 0)),
            ("det", (9, 0), (7, 0)),
            ("compound", (9, 0), (8, 0)),
            ("nmod:in", (3, 0), (9, 0)),
            ("nmod:near", (3, 1), (9, 0)),
        ]
    )


def test_coordinated_pp_copy_with_and_without_the_basic_graph() -> None:
    """ "a harbor with boats and on racks": the copy takes the second PP (read from the basic
    graph, or found after the moved "cc" without it)."""
    sentence = {
        "tokens": [[w, t, w] for w, t in _tagged("a/DT harbor/NN with/IN boats/NNS and/CC on/IN racks/NNS")],
        "basic": [["det", 2, 1], ["nmod", 2, 4], ["case", 4, 3], ["cc", 4, 5], ["conj", 4, 7], ["case", 7, 6]],
        "ccprocessed": [
            ["det", 2, 1],
            ["conj:and", 2, 2],
            ["case", 4, 3],
            ["nmod:with", 2, 4],
            ["cc", 2, 5],
            ["case", 7, 6],
            ["nmod:on", 2, 7],
            ["root", 0, 2],
        ],
    }
    expected = sorted(
        [
            ("det", (2, 0), (1, 0)),
            ("conj:and", (2, 0), (2, 1)),
            ("case", (4, 0), (3, 0)),
            ("nmod:with", (2, 0), (4, 0)),
            ("cc", (2, 0), (5, 0)),
            ("case", (7, 0), (6, 0)),
            ("nmod:on", (2, 1), (7, 0)),
        ]
    )
    assert _edges(sentence) == expected
    assert _edges({k: v for k, v in sentence.items() if k != "basic"}) == expected


@pytest.mark.parametrize(
    ("sentence", "message"),
    [
        ({"tokens": [["a", "DT", "a"]]}, "'tokens' and 'ccprocessed'"),
        ({"tokens": [["a", "DT"]], "ccprocessed": []}, r"token 1 must be \[word, tag, lemma\]"),
        ({"tokens": [["a", "DT", "a"]], "ccprocessed": [["det", 1, 2]]}, "outside 1..1"),
        ({"tokens": [["a", "DT", "a"]], "ccprocessed": [["det", 0, 1]]}, "only 'root' may have governor 0"),
        ({"tokens": [["a", "DT", "a"]], "ccprocessed": [["det", 1]]}, r"must be \[relation, governor, dependent\]"),
    ],
)
def test_malformed_stage_sentences_are_named(sentence: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DepGraph.from_stage(sentence)


def test_java_hash_order() -> None:
    """Buckets by ``hash & (capacity - 1)``, capacity doubling past three quarters, insertion
    order within a bucket: the order CoreNLP's graph hands out children (node hash: index plus
    29 times the sentence index)."""
    first = SemanticGraph(sentence_index=0)
    for index in (1, 5, 17, 3):
        first.declare((index, 0), NodeData(f"w{index}", "NN", f"w{index}"))
    for index in (5, 17, 3):
        first.add_edge((1, 0), (index, 0), "dep")
    assert first.children((1, 0)) == [(17, 0), (3, 0), (5, 0)]  # 17 is in bucket 1
    second = SemanticGraph(sentence_index=1)
    for index in (2, 3, 9):
        second.declare((index, 0), NodeData(f"w{index}", "IN", f"w{index}"))
    second.add_edge((9, 0), (2, 0), "case")
    second.add_edge((9, 0), (3, 0), "case")
    assert second.children((9, 0)) == [(3, 0), (2, 0)]  # hashes 32 and 31: buckets 0 and 15
    table: JavaHashMap[int, None] = JavaHashMap({k: k for k in range(40)})
    for key in range(14):
        table.put(key, None)
    table.put(33, None)  # 15 entries: 32 slots, 33 in bucket 1
    assert table.keys()[:3] == [0, 1, 33]
