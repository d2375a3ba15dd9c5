"""SPICE's enhancements and rules on hand-written graphs, against the jar's own output.

Each case is one caption as the official pipeline's stages describe it (tokens with tag and
lemma, CCprocessed edges, roots as ``["root", 0, i]``); ``EXPECTED`` is what SPICE 1.0's
``SpiceParser.parseAnnotation`` returns for it, in order, as recorded from the jar with
``bench.oracle.run_graph_tuples`` (the slow test below records it again and compares). The
cases pin the rules and their quirks: suffixes, copulas (one match per ``cop`` edge), the
words of a multi-word preposition in hash order ("on of top"), a particle under "be" (a
predicate with a leading space), pronouns, counts and their first match in hash order,
quantifier rewrites (and the enhancer giving up on a word with no path to a root), compounds,
a copy node, and a sentence's index in the node hashes.
"""

from __future__ import annotations

from typing import Any

import pytest

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.stages import tuples_from_stage


def _stage(tokens: str, edges: list[tuple[str, int, int]], roots: list[int]) -> dict[str, Any]:
    """A stage sentence: ``tokens`` as ``word/TAG[/lemma] ...`` (lemma: the lower-cased word),
    ``edges`` as ``(rel, governor, dependent)``, ``roots`` as positions."""
    toks = []
    for item in tokens.split():
        parts = item.split("/")
        toks.append([parts[0], parts[1], parts[2] if len(parts) > 2 else parts[0].lower()])
    return {"tokens": toks, "ccprocessed": [[r, g, d] for r, g, d in edges] + [["root", 0, r] for r in roots]}


def _pad(n: int) -> str:
    """``n`` filler tokens, to move the words that follow to higher positions."""
    return " ".join(f"x{i}/SYM" for i in range(n))


CASES: dict[str, list[dict[str, Any]]] = {
    "svo_with_preposition_suffix": [
        _stage(
            "A/DT man/NN is/VBZ/be riding/VBG/ride a/DT horse/NN on/IN the/DT beach/NN",
            [
                ("det", 2, 1),
                ("nsubj", 4, 2),
                ("aux", 4, 3),
                ("dobj", 4, 6),
                ("det", 6, 5),
                ("nmod:on", 4, 9),
                ("case", 9, 7),
                ("det", 9, 8),
            ],
            [4],
        )
    ],
    "svo_two_subjects_two_objects_in_edge_order": [
        _stage(
            "men/NNS/man and/CC women/NNS/woman ride/VBP horses/NNS/horse and/CC camels/NNS/camel",
            [
                ("nsubj", 4, 1),
                ("cc", 1, 2),
                ("conj:and", 1, 3),
                ("nsubj", 4, 3),
                ("dobj", 4, 5),
                ("cc", 5, 6),
                ("conj:and", 5, 7),
                ("dobj", 4, 7),
            ],
            [4],
        )
    ],
    "reduced_relative_and_relcl": [
        _stage(
            "dog/NN chasing/VBG/chase a/DT ball/NN that/WDT rolls/VBZ/roll into/IN water/NN",
            [
                ("acl", 1, 2),
                ("dobj", 2, 4),
                ("det", 4, 3),
                ("acl:relcl", 4, 6),
                ("nsubj", 6, 5),
                ("nmod:into", 6, 8),
                ("case", 8, 7),
            ],
            [1],
        )
    ],
    "subject_predicate_attribute_and_be": [
        _stage(
            "a/DT woman/NN is/VBZ/be smiling/VBG/smile and/CC there/EX is/VBZ/be a/DT dog/NN",
            [
                ("det", 2, 1),
                ("nsubj", 4, 2),
                ("aux", 4, 3),
                ("cc", 4, 5),
                ("conj:and", 4, 7),
                ("expl", 7, 6),
                ("nsubj", 7, 9),
                ("det", 9, 8),
            ],
            [4],
        )
    ],
    "copula_attribute_nominal_and_pp": [
        _stage("the/DT man/NN is/VBZ/be tall/JJ", [("det", 2, 1), ("nsubj", 4, 2), ("cop", 4, 3)], [4]),
        _stage(
            "the/DT man/NN is/VBZ/be a/DT rider/NN", [("det", 2, 1), ("nsubj", 5, 2), ("cop", 5, 3), ("det", 5, 4)], [5]
        ),
        _stage(
            "the/DT cat/NN is/VBZ/be on/IN the/DT bed/NN",
            [("det", 2, 1), ("nsubj", 6, 2), ("cop", 6, 3), ("case", 6, 4), ("det", 6, 5)],
            [6],
        ),
    ],
    "copula_two_cop_edges_match_twice": [
        _stage(
            "the/DT cat/NN is/VBZ/be being/VBG/be lazy/JJ",
            [("det", 2, 1), ("nsubj", 5, 2), ("cop", 5, 3), ("cop", 5, 4)],
            [5],
        )
    ],
    "copula_multiword_preposition": [
        _stage(
            "the/DT giraffe/NN is/VBZ/be on/IN top/NN of/IN dirt/NN",
            [("det", 2, 1), ("nsubj", 7, 2), ("cop", 7, 3), ("case", 7, 4), ("mwe", 4, 5), ("mwe", 4, 6)],
            [7],
        )
    ],
    "multiword_preposition_words_in_hash_order": [
        _stage(
            _pad(10) + " the/DT giraffe/NN is/VBZ/be on/IN top/NN of/IN dirt/NN",
            [("det", 12, 11), ("nsubj", 17, 12), ("cop", 17, 13), ("case", 17, 14), ("mwe", 14, 15), ("mwe", 14, 16)],
            [17],
        )
    ],
    "adjectival_and_predicative": [
        _stage("a/DT smart/JJ woman/NN", [("det", 3, 1), ("amod", 3, 2)], [3]),
        _stage("the/DT plate/NN circular/JJ", [("det", 2, 1), ("nsubj", 3, 2)], [3]),
    ],
    "prepositional_tmod_npmod_poss_agent": [
        _stage(
            "a/DT dog/NN on/IN a/DT couch/NN today/NN",
            [("det", 2, 1), ("nmod:on", 2, 5), ("case", 5, 3), ("det", 5, 4), ("nmod:tmod", 2, 6)],
            [2],
        ),
        _stage("a/DT man/NN running/VBG/run today/NN", [("det", 2, 1), ("nsubj", 3, 2), ("nmod:tmod", 3, 4)], [3]),
    ],
    "possessive_through_pronoun": [
        _stage(
            "a/DT man/NN holding/VBG/hold his/PRP$/he phone/NN",
            [("det", 2, 1), ("dep", 2, 3), ("dobj", 3, 5), ("nmod:poss", 5, 4)],
            [2],
        )
    ],
    "plural_pronoun_and_root_pronoun_skipped": [
        _stage(
            "skis/NNS/ski attached/VBN/attach to/TO their/PRP$/they feet/NNS/foot",
            [("acl", 1, 2), ("nmod:to", 2, 5), ("case", 5, 3), ("nmod:poss", 5, 4)],
            [1],
        ),
        _stage("dog/NN it/PRP", [("dep", 2, 1)], [2]),
    ],
    "passive_agent": [
        _stage(
            "the/DT grass/NN was/VBD/be eaten/VBN/eat by/IN horses/NNS/horse",
            [("det", 2, 1), ("nsubjpass", 4, 2), ("auxpass", 4, 3), ("nmod:agent", 4, 6), ("case", 6, 5)],
            [4],
        )
    ],
    "counts_nummod_before_after_and_singular": [
        _stage(
            "two/CD dogs/NNS/dog and/CC number/NN 5/CD and/CC one/CD man/NN",
            [
                ("nummod", 2, 1),
                ("cc", 2, 3),
                ("conj:and", 2, 4),
                ("nummod", 4, 5),
                ("cc", 2, 6),
                ("conj:and", 2, 8),
                ("nummod", 8, 7),
            ],
            [2],
        ),
        _stage("buses/NNS/bus number/NN 5/CD", [("compound", 1, 2), ("nummod", 1, 3)], [1]),
    ],
    "quantifier_a_couple_of": [
        _stage(
            "a/DT couple/NN of/IN dogs/NNS/dog play/VBP",
            [("det", 2, 1), ("nmod:of", 2, 4), ("case", 4, 3), ("nsubj", 5, 2)],
            [5],
        )
    ],
    "quantifier_a_whole_bunch_of": [
        _stage(
            "a/DT whole/JJ bunch/NN of/IN bananas/NNS/banana",
            [("det", 3, 1), ("amod", 3, 2), ("nmod:of", 3, 5), ("case", 5, 4)],
            [3],
        )
    ],
    "quantifier_two_pairs_of": [
        _stage(
            "two/CD pairs/NNS/pair of/IN scissors/NNS/scissors",
            [("nummod", 2, 1), ("nmod:of", 2, 4), ("case", 4, 3)],
            [2],
        )
    ],
    "quantifier_two_of_the": [
        _stage(
            "two/CD of/IN the/DT men/NNS/man smile/VBP",
            [("nmod:of", 1, 4), ("case", 4, 2), ("det", 4, 3), ("nsubj", 5, 1)],
            [5],
        ),
        _stage("all/DT of/IN them/PRP/they smile/VBP", [("nmod:of", 1, 3), ("case", 3, 2), ("nsubj", 4, 1)], [4]),
    ],
    "quantifier_without_path_to_root_stops_the_enhancer": [
        _stage(
            "a/DT lot/NN of/IN dogs/NNS/dog and/CC lots/NNS/lot of/IN cats/NNS/cat",
            [("det", 2, 1), ("nmod:of", 2, 4), ("case", 4, 3), ("nmod:of", 6, 8), ("case", 8, 7), ("cc", 6, 5)],
            [6],
        )
    ],
    "compounds_and_objects_in_topological_order": [
        _stage(
            "kitchen/NN counter/NN top/NN near/IN a/DT window/NN",
            [("compound", 3, 1), ("compound", 3, 2), ("nmod:near", 3, 6), ("case", 6, 4), ("det", 6, 5)],
            [3],
        )
    ],
    "particle_and_particle_under_be": [
        _stage(
            "a/DT man/NN picks/VBZ/pick up/RP a/DT box/NN",
            [("det", 2, 1), ("nsubj", 3, 2), ("compound:prt", 3, 4), ("dobj", 3, 6), ("det", 6, 5)],
            [3],
        ),
        _stage(
            "the/DT man/NN is/VBZ/be up/RP a/DT tree/NN",
            [("det", 2, 1), ("nsubj", 3, 2), ("compound:prt", 3, 4), ("dobj", 3, 6), ("det", 6, 5)],
            [3],
        ),
    ],
    "plural_subject_object_counts_first_match_in_hash_order": [
        _stage(
            _pad(10) + " two/CD men/NNS/man ride/VBP three/CD horses/NNS/horse past/IN four/CD cars/NNS/car",
            [
                ("nummod", 12, 11),
                ("nsubj", 13, 12),
                ("nummod", 15, 14),
                ("dobj", 13, 15),
                ("nummod", 18, 17),
                ("nmod:past", 13, 18),
                ("case", 18, 16),
            ],
            [13],
        )
    ],
    "coordinated_pp_copy_node": [
        {
            "tokens": [
                ["a", "DT", "a"],
                ["harbor", "NN", "harbor"],
                ["with", "IN", "with"],
                ["boats", "NNS", "boat"],
                ["and", "CC", "and"],
                ["on", "IN", "on"],
                ["racks", "NNS", "rack"],
            ],
            "basic": [
                ["det", 2, 1],
                ["nmod", 2, 4],
                ["case", 4, 3],
                ["cc", 4, 5],
                ["conj", 4, 7],
                ["case", 7, 6],
                ["root", 0, 2],
            ],
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
    ],
    "second_sentence_hashes_its_index": [
        _stage(
            "the/DT in/IN on/IN bed/NN is/VBZ/be a/DT cat/NN",
            [("det", 4, 1), ("case", 4, 2), ("case", 4, 3), ("cop", 4, 5), ("nsubj", 4, 7), ("det", 7, 6)],
            [4],
        ),
        _stage(
            "the/DT in/IN on/IN bed/NN is/VBZ/be a/DT cat/NN",
            [("det", 4, 1), ("case", 4, 2), ("case", 4, 3), ("cop", 4, 5), ("nsubj", 4, 7), ("det", 7, 6)],
            [4],
        ),
    ],
}


#: What the jar's SpiceParser.parseAnnotation returns for each case, in order.
EXPECTED: dict[str, list[list[str]]] = {
    "svo_with_preposition_suffix": [
        ["man", "horse", "ride"],
        ["man", "beach", "ride on"],
        ["beach"],
        ["horse"],
        ["man"],
    ],
    "svo_two_subjects_two_objects_in_edge_order": [
        ["man", "horse", "ride"],
        ["man", "camel", "ride"],
        ["woman", "horse", "ride"],
        ["woman", "camel", "ride"],
        ["horse"],
        ["camel"],
        ["man"],
        ["woman"],
    ],
    "reduced_relative_and_relcl": [["dog", "ball", "chase"], ["dog"], ["ball"], ["water"]],
    "subject_predicate_attribute_and_be": [["woman", "smile"], ["dog"], ["woman"]],
    "copula_attribute_nominal_and_pp": [
        ["man", "tall"],
        ["man", "tall"],
        ["man"],
        ["man", "rider"],
        ["rider"],
        ["man"],
        ["cat", "bed", "on"],
        ["bed"],
        ["cat"],
    ],
    "copula_two_cop_edges_match_twice": [["cat", "lazy"], ["cat", "lazy"], ["cat", "lazy"], ["cat"]],
    "copula_multiword_preposition": [["giraffe", "dirt", "on top of"], ["dirt"], ["top"], ["giraffe"]],
    "multiword_preposition_words_in_hash_order": [["giraffe", "dirt", "on of top"], ["dirt"], ["top"], ["giraffe"]],
    "adjectival_and_predicative": [
        ["woman", "smart"],
        ["woman"],
        ["plate", "circular"],
        ["plate", "circular"],
        ["plate"],
    ],
    "prepositional_tmod_npmod_poss_agent": [
        ["dog", "couch", "on"],
        ["dog", "today", "tmod"],
        ["dog"],
        ["today"],
        ["couch"],
        ["man", "today", "run tmod"],
        ["man"],
        ["today"],
    ],
    "possessive_through_pronoun": [["man", "phone", "have"], ["man"], ["phone"]],
    "plural_pronoun_and_root_pronoun_skipped": [
        ["ski", "foot", "attach to"],
        ["ski", "foot", "have"],
        ["ski"],
        ["foot"],
        ["dog"],
    ],
    "passive_agent": [["horse", "grass", "eat"], ["horse"], ["grass"]],
    "counts_nummod_before_after_and_singular": [["dog", "two"], ["dog"], ["man"], ["number"], ["bus", "number"]],
    "quantifier_a_couple_of": [["dog", "play"], ["dog", "a"], ["dog"], ["couple"]],
    "quantifier_a_whole_bunch_of": [["banana", "a"], ["banana"], ["bunch"]],
    "quantifier_two_pairs_of": [["scissors", "two"], ["scissors"], ["pair"]],
    "quantifier_two_of_the": [["man", "smile"], ["man", "two"], ["man"]],
    "quantifier_without_path_to_root_stops_the_enhancer": [
        ["lot", "cat", "of"],
        ["lot", "dog", "of"],
        ["lot"],
        ["cat"],
        ["lot"],
        ["dog"],
    ],
    "compounds_and_objects_in_topological_order": [
        ["top", "window", "near"],
        ["top", "kitchen"],
        ["top", "counter"],
        ["window"],
    ],
    "particle_and_particle_under_be": [
        ["man", "box", "pick up"],
        ["box"],
        ["man"],
        ["man", "tree", " up"],
        ["man"],
        ["tree"],
    ],
    "plural_subject_object_counts_first_match_in_hash_order": [
        ["man", "car", "ride past"],
        ["man", "horse", "ride"],
        ["man", "two"],
        ["horse", "three"],
        ["horse"],
        ["car"],
        ["man"],
    ],
    "coordinated_pp_copy_node": [
        ["harbor", "boat", "with"],
        ["harbor", "rack", "on"],
        ["harbor"],
        ["boat"],
        ["harbor"],
        ["rack"],
    ],
    "second_sentence_hashes_its_index": [
        ["cat", "bed", "in"],
        ["bed"],
        ["cat"],
        ["cat", "bed", "on"],
        ["bed"],
        ["cat"],
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_rules_give_the_jars_tuples(name: str) -> None:
    assert tuples_from_stage({"caption": name, "sentences": CASES[name]}) == EXPECTED[name]


def _harness_document(sentences: list[dict[str, Any]]) -> dict[str, Any]:
    """The graph as the jar's harness builds it: the same nodes, edges and roots, in the order
    capeval's graph iterates them (so both sides hash and insert alike)."""
    out = []
    for k, sentence in enumerate(sentences):
        sg = DepGraph.from_stage(sentence, k).to_semgraph()
        out.append(
            {
                "nodes": [[n[0], n[1], sg.word(n), sg.tag(n), sg.lemma(n)] for n in sg.vertex_set()],
                "edges": [[rel, list(g), list(d)] for g, d, rel in sg.edges()],
                "roots": [list(r) for r in sg.root_list()],
            }
        )
    return {"sentences": out}


@pytest.mark.slow
def test_expected_tuples_are_the_jars() -> None:
    from bench.oracle import OracleUnavailable, run_graph_tuples

    try:
        jar = run_graph_tuples([_harness_document(CASES[name]) for name in CASES])
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    assert dict(zip(CASES, jar, strict=True)) == EXPECTED
