"""SPICE rules and quirks on hand-written CoreNLP-style UD v1 graphs (spec 1.5, 1.6, 1.12)."""

from __future__ import annotations

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.rules import extract_tuples


def graph(tokens: str, edges: list[tuple[int, int, str]], roots: list[int]) -> DepGraph:
    """``tokens``: space-separated ``word/TAG[/lemma]`` (lemma defaults to the lower-cased word)."""
    toks = []
    for item in tokens.split():
        parts = item.split("/")
        toks.append([parts[0], parts[1], parts[2] if len(parts) > 2 else parts[0].lower()])
    return DepGraph.from_dict({"tokens": toks, "edges": [list(e) for e in edges], "roots": roots})


def tuples(g: DepGraph) -> set[tuple[str, ...]]:
    return {tuple(t) for t in extract_tuples(g)}


def test_rule1_svo_with_preposition_suffix() -> None:
    g = graph(
        "A/DT man/NN is/VBZ/be riding/VBG/ride a/DT horse/NN on/IN the/DT beach/NN",
        [(4, 2, "nsubj"), (4, 3, "aux"), (4, 6, "dobj"), (4, 9, "nmod:on"), (9, 7, "case"), (2, 1, "det")],
        [4],
    )
    assert tuples(g) == {("man", "horse", "ride"), ("man", "beach", "ride on"), ("man",), ("horse",), ("beach",)}


def test_rule2_reduced_relative() -> None:
    g = graph("dog/NN chasing/VBG/chase a/DT ball/NN", [(1, 2, "acl"), (2, 4, "dobj"), (4, 3, "det")], [1])
    assert tuples(g) == {("dog", "ball", "chase"), ("dog",), ("ball",)}
    # acl:relcl is not acl: no relation
    g = graph("dog/NN chasing/VBG/chase a/DT ball/NN", [(1, 2, "acl:relcl"), (2, 4, "dobj")], [1])
    assert ("dog", "ball", "chase") not in tuples(g)


def test_rule3_subject_predicate_attribute() -> None:
    g = graph("A/DT woman/NN is/VBZ/be smiling/VBG/smile", [(4, 2, "nsubj"), (4, 3, "aux"), (2, 1, "det")], [4])
    assert tuples(g) == {("woman", "smile"), ("woman",)}


def test_rule4_copula_attribute_and_pp() -> None:
    tall = graph("the/DT man/NN is/VBZ/be tall/JJ", [(4, 2, "nsubj"), (4, 3, "cop")], [4])
    assert tuples(tall) == {("man", "tall"), ("man",)}
    rider = graph("the/DT man/NN is/VBZ/be a/DT rider/NN", [(5, 2, "nsubj"), (5, 3, "cop"), (5, 4, "det")], [5])
    assert tuples(rider) == {("man", "rider"), ("man",), ("rider",)}  # quirk 8: nominal predicate -> attribute
    bed = graph("the/DT cat/NN is/VBZ/be on/IN the/DT bed/NN", [(6, 2, "nsubj"), (6, 3, "cop"), (6, 4, "case")], [6])
    assert tuples(bed) == {("cat", "bed", "on"), ("cat",), ("bed",)}


def test_copula_multiword_preposition_and_stray_top() -> None:
    """ "the giraffe is on top of dirt": case + mwe words give "on top of"; "top" stays an object (quirk 4)."""
    g = graph(
        "the/DT giraffe/NN is/VBZ/be on/IN top/NN of/IN dirt/NN",
        [(7, 2, "nsubj"), (7, 3, "cop"), (7, 4, "case"), (4, 5, "mwe"), (4, 6, "mwe")],
        [7],
    )
    assert tuples(g) == {("giraffe", "dirt", "on top of"), ("giraffe",), ("dirt",), ("top",)}


def test_rule5_and_rule6_adjectives() -> None:
    g = graph("a/DT smart/JJ woman/NN", [(3, 2, "amod")], [3])
    assert tuples(g) == {("woman", "smart"), ("woman",)}
    g = graph("the/DT plate/NN circular/JJ", [(3, 2, "nsubj")], [3])  # predicative adjective without cop
    assert ("plate", "circular") in tuples(g)


def test_rule7_prepositional_modifier_and_tmod_quirk() -> None:
    g = graph("a/DT dog/NN on/IN a/DT couch/NN", [(2, 5, "nmod:on"), (5, 3, "case")], [2])
    assert tuples(g) == {("dog", "couch", "on"), ("dog",), ("couch",)}
    g = graph("a/DT man/NN running/VBG/run today/NN", [(3, 2, "nsubj"), (3, 4, "nmod:tmod")], [3])
    assert ("man", "today", "run tmod") in tuples(g)  # quirk 6


def test_rule8_possessive_via_pronoun_resolution() -> None:
    g = graph(
        "a/DT man/NN holding/VBG/hold his/PRP$ phone/NN",
        [(2, 1, "det"), (2, 3, "acl"), (3, 5, "dobj"), (5, 4, "nmod:poss")],
        [2],
    )
    assert tuples(g) == {("man", "phone", "hold"), ("man", "phone", "have"), ("man",), ("phone",)}


def test_plural_pronoun_resolution() -> None:
    g = graph(
        "skis/NNS/ski attached/VBN/attach to/TO their/PRP$ feet/NNS/foot",
        [(1, 2, "acl"), (2, 5, "nmod:to"), (5, 3, "case"), (5, 4, "nmod:poss")],
        [1],
    )
    assert {("ski", "foot", "attach to"), ("ski", "foot", "have")} <= tuples(g)


def test_rule9_passive_agent() -> None:
    g = graph(
        "the/DT grass/NN was/VBD/be eaten/VBN/eat by/IN horses/NNS/horse",
        [(4, 2, "nsubjpass"), (4, 3, "auxpass"), (4, 6, "nmod:agent"), (6, 5, "case")],
        [4],
    )
    assert ("horse", "grass", "eat") in tuples(g)


def test_rule10_counts() -> None:
    two = graph("two/CD dogs/NNS/dog", [(2, 1, "nummod")], [2])
    assert tuples(two) == {("dog", "two"), ("dog",)}
    digits = graph("2/CD dogs/NNS/dog", [(2, 1, "nummod")], [2])
    assert ("dog", "2") in tuples(digits)  # kept, but not on the Cardinality list
    one = graph("one/CD man/NN", [(2, 1, "nummod")], [2])
    assert tuples(one) == {("man",)}  # counts only on plural nouns
    after = graph("dogs/NNS/dog 5/CD", [(1, 2, "nummod")], [1])
    assert tuples(after) == {("dog",)}  # a number after the noun is ignored


def test_count_pattern_a_subject_and_object() -> None:
    g = graph(
        "two/CD men/NNS/man ride/VBP three/CD horses/NNS/horse",
        [(3, 2, "nsubj"), (2, 1, "nummod"), (3, 5, "dobj"), (5, 4, "nummod")],
        [3],
    )
    assert {("man", "two"), ("horse", "three"), ("man", "horse", "ride")} <= tuples(g)


def test_quantifier_a_couple_of() -> None:
    """Quirk 3/4: "a couple of dogs" -> (dog, a) and a stray object "couple"."""
    g = graph(
        "a/DT couple/NN of/IN dogs/NNS/dog",
        [(2, 1, "det"), (2, 4, "nmod:of"), (4, 3, "case")],
        [2],
    )
    assert tuples(g) == {("dog", "a"), ("dog",), ("couple",)}


def test_quantifier_pattern2_two_pairs_of() -> None:
    g = graph(
        "two/CD pairs/NNS/pair of/IN scissors/NNS",
        [(2, 1, "nummod"), (2, 4, "nmod:of"), (4, 3, "case")],
        [2],
    )
    assert ("scissors", "two") in tuples(g)


def test_quantifier_pattern3_two_of_the() -> None:
    g = graph(
        "two/CD of/IN the/DT men/NNS/man",
        [(1, 4, "nmod:of"), (4, 2, "case"), (4, 3, "det")],
        [1],
    )
    assert ("man", "two") in tuples(g)


def test_rule11_compound_both_halves_lose_object() -> None:
    g = graph("a/DT tennis/NN racket/NN", [(3, 2, "compound"), (3, 1, "det")], [3])
    assert tuples(g) == {("racket", "tennis")}  # quirk 5; "racket" comes back as a node through its attribute


def test_rule12_noun_conjunction_is_dead_code() -> None:
    g = graph(
        "cat/NN and/CC dog/NN on/IN mat/NN",
        [(1, 3, "conj:and"), (1, 2, "cc"), (1, 5, "nmod:on"), (5, 4, "case")],
        [1],
    )
    assert ("dog", "mat", "on") not in tuples(g)
    assert ("cat", "mat", "on") in tuples(g)


def test_particle_predicate_and_be_particle_quirk() -> None:
    g = graph(
        "dog/NN shaking/VBG/shake off/RP water/NN",
        [(1, 2, "acl"), (2, 3, "compound:prt"), (2, 4, "dobj")],
        [1],
    )
    assert ("dog", "water", "shake off") in tuples(g)
    g = graph(
        "people/NNS are/VBP/be out/RP in/IN town/NN",
        [(2, 1, "nsubj"), (2, 3, "compound:prt"), (2, 5, "nmod:in"), (5, 4, "case")],
        [2],
    )
    assert ("people", "town", " out in") in tuples(g)  # quirk 6: leading space


def test_in_front_of_stray_front_object() -> None:
    g = graph(
        "tv/NN in/IN front/NN of/IN wall/NN",
        [(1, 5, "nmod:in_front_of"), (5, 2, "case"), (2, 3, "mwe"), (2, 4, "mwe")],
        [1],
    )
    assert tuples(g) == {("tv", "wall", "in front of"), ("tv",), ("wall",), ("front",)}


def test_graph_from_dict_rejects_bad_positions() -> None:
    import pytest

    with pytest.raises(ValueError, match="outside"):
        DepGraph.from_dict({"tokens": [["a", "DT", "a"]], "edges": [[1, 2, "det"]], "roots": [1]})
