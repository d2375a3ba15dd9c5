"""spaCy (ClearNLP-label) parses -> CoreNLP-style graphs -> SPICE tuples, on hand-written parses.

Each case gives a sentence the way spaCy's English pipeline analyses it (word, PTB tag,
head position, label; heads 1-based here, 0 for the root) and the tuples SPICE's rules
must extract after conversion. No spaCy model is needed: the lemmatiser gets tiny word lists.
"""

from __future__ import annotations

import pytest

from capeval.metrics.spice.lemma import MorphaLemmatizer
from capeval.metrics.spice.parsing.rules import extract_tuples
from capeval.metrics.spice.spacy_parser import convert_sentence

LEMMATIZER = MorphaLemmatizer(
    {"men": ["man"]},
    {"eaten": ["eat"]},
    {"dog", "tree", "pillow", "bed", "tie", "suit", "sign", "street", "sidewalk", "top", "river", "shirt"},
    {"swim", "surround", "wear", "walk", "tie", "play", "stand", "eat", "build", "color", "ride"}
    | {"run", "bite", "pounce", "get", "dog", "jump", "climb"},
)


def parse(spec: str) -> list[tuple[str, str, int, str]]:
    """``word/TAG/head/label`` items, heads 1-based (0 = root) -> converter input (0-based heads)."""
    words = []
    for i, item in enumerate(spec.split()):
        word, tag, head, label = item.rsplit("/", 3)
        words.append((word, tag, i if head == "0" else int(head) - 1, label))
    return words


def tuples(spec: str) -> set[tuple[str, ...]]:
    return {tuple(t) for t in extract_tuples(convert_sentence(parse(spec), LEMMATIZER))}


def test_reduced_relative_keeps_by_as_a_preposition() -> None:
    """CoreNLP's agent needs a passive auxiliary; "building surrounded by trees" gives nmod:by."""
    got = tuples("wooden/JJ/2/amod building/NN/0/ROOT surrounded/VBN/2/acl by/IN/3/agent trees/NNS/4/pobj")
    assert ("building", "tree", "surround by") in got
    assert ("building", "tree", "surround") not in got


def test_full_passive_keeps_the_agent() -> None:
    got = tuples("the/DT/2/det tree/NN/4/nsubjpass is/VBZ/4/auxpass eaten/VBN/0/ROOT by/IN/4/agent men/NNS/5/pobj")
    assert ("man", "tree", "eat") in got


def test_nested_compounds_are_flattened() -> None:
    """ "kitchen counter top": both nouns modify "top", as in CoreNLP's flat noun phrase."""
    got = tuples("food/NN/0/ROOT on/IN/1/prep kitchen/NN/4/compound counter/NN/5/compound top/NN/2/pobj")
    assert {("top", "kitchen"), ("top", "counter")} <= got
    assert ("counter", "kitchen") not in got


def test_adjective_before_a_compound_modifier_goes_to_the_head() -> None:
    got = tuples("green/JJ/3/amod street/NN/3/compound signs/NNS/5/nsubj are/VBP/5/aux red/JJ/0/ROOT")
    assert ("sign", "green") in got
    assert ("street", "green") not in got


def test_participle_read_as_compound_head() -> None:
    """ "a dog swimming in a river": spaCy's compound "dog swimming" becomes dog + acl."""
    got = tuples("a/DT/3/det dog/NN/3/compound swimming/NN/0/ROOT in/IN/3/prep a/DT/6/det river/NN/4/pobj")
    assert ("dog", "river", "swim in") in got
    assert ("swimming",) not in got
    # nouns in -ing are left alone
    got = tuples("a/DT/3/det brick/NN/3/compound building/NN/0/ROOT")
    assert ("building", "brick") in got


def test_caption_initial_plural_noun_tagged_as_verb() -> None:
    got = tuples("pillows/VBZ/0/ROOT on/IN/1/prep a/DT/4/det bed/NN/2/pobj")
    assert ("pillow", "bed", "on") in got


def test_bare_verb_conjunct_after_noun_and_is_a_noun() -> None:
    got = tuples("man/NN/3/nsubj is/VBZ/3/aux wearing/VBG/0/ROOT a/DT/5/det suit/NN/3/dobj and/CC/5/cc tie/VB/3/conj")
    assert {("man", "suit", "wear"), ("man", "tie", "wear"), ("tie",)} <= got
    assert ("man", "tie") not in got


def test_particle_with_bare_noun_phrase_object() -> None:
    got = tuples("people/NNS/2/nsubj walking/VBG/0/ROOT down/RP/2/prt a/DT/5/det sidewalk/NN/2/npadvmod")
    assert ("people", "sidewalk", "walk down") in got
    assert not any(len(t) == 3 and t[2].endswith("npmod") for t in got)


def test_lowercase_proper_noun_adjective_is_an_adjective() -> None:
    got = tuples("green/NNP/3/amod tennis/NN/3/compound ball/NN/0/ROOT")
    assert ("ball", "green") in got
    assert ("green",) not in got


def test_noun_tagged_participle_under_acl_is_a_verb() -> None:
    got = tuples("a/DT/2/det dog/NN/0/ROOT standing/NN/2/acl behind/IN/3/prep a/DT/6/det tree/NN/4/pobj")
    assert ("dog", "tree", "stand behind") in got


def test_main_verb_read_as_object_of_a_participle() -> None:
    """ "A dog wearing a red harness runs across a field": "harness runs" is not a compound noun."""
    got = tuples(
        "A/DT/2/det dog/NN/0/ROOT wearing/VBG/2/acl a/DT/6/det red/JJ/6/amod harness/NN/7/compound "
        "runs/NNS/3/dobj across/IN/3/prep a/DT/10/det field/NN/8/pobj ././2/punct"
    )
    assert {("dog", "harness", "wear"), ("dog", "field", "run across"), ("harness", "red")} <= got
    assert ("run",) not in got


def test_verbless_sentence_with_infinitive_gets_its_verb() -> None:
    """ "A black dog pounces to get a rope toy .": only an infinitive, so "pounces" is the verb."""
    got = tuples(
        "A/DT/4/det black/JJ/3/amod dog/NN/4/compound pounces/NNS/0/ROOT to/TO/6/aux get/VB/4/relcl "
        "a/DT/9/det rope/NN/9/compound toy/NN/6/dobj ././4/punct"
    )
    assert ("dog", "black") in got
    assert ("pounces",) not in got and ("pounce",) not in got


def test_apposition_after_a_recovered_verb_is_its_object() -> None:
    got = tuples(
        "A/DT/3/det black/JJ/3/amod dog/NN/4/compound bites/NNS/0/ROOT a/DT/7/det white/JJ/7/amod "
        "dog/NN/4/appos ././4/punct"
    )
    assert ("dog", "dog", "bite") in got


def attached(spec: str) -> set[tuple[str, ...]]:
    graph = convert_sentence(parse(spec), LEMMATIZER, emulate_attachment=True)
    return {tuple(t) for t in extract_tuples(graph)}


def test_attachment_emulation_of_phrase_goes_to_the_head_noun() -> None:
    """ "doors on the side of a bus": official output has (door, of, bus); only with the switch."""
    spec = "doors/NNS/0/ROOT on/IN/1/prep the/DT/4/det side/NN/2/pobj of/IN/4/prep a/DT/7/det bus/NN/5/pobj"
    assert ("side", "bus", "of") in tuples(spec)
    got = attached(spec)
    assert {("door", "side", "on"), ("door", "bus", "of")} <= got
    assert ("side", "bus", "of") not in got


def test_attachment_emulation_splits_on_top_of_after_a_noun() -> None:
    spec = "flag/NN/0/ROOT on/IN/1/prep top/NN/2/pobj of/IN/3/prep lighthouse/NN/4/pobj"
    assert ("flag", "lighthouse", "on top of") in tuples(spec)
    got = attached(spec)
    assert {("flag", "top", "on"), ("flag", "lighthouse", "of")} <= got
    # after a verb it still collapses
    spec = "the/DT/2/det giraffe/NN/3/nsubj stands/VBZ/0/ROOT on/IN/3/prep top/NN/4/pobj of/IN/5/prep dirt/NN/6/pobj"
    assert ("giraffe", "dirt", "stand on top of") in attached(spec)


def test_bare_colour_before_a_verb_is_the_participle_object() -> None:
    """ "A small boy wearing red runs towards a ball": spaCy reads "red runs" as a noun phrase."""
    spec = (
        "A/DT/3/det small/JJ/3/amod boy/NN/0/ROOT wearing/VBG/3/acl red/JJ/6/amod runs/NNS/4/dobj "
        "towards/IN/4/prep a/DT/9/det ball/NN/7/pobj ././3/punct"
    )
    got = tuples(spec)
    assert {("boy", "red", "wear"), ("boy", "ball", "run towards"), ("red",)} <= got
    # with a determiner or numeral it is a real noun phrase ("with two black dogs .")
    spec = "a/DT/2/det person/NN/0/ROOT with/IN/2/prep two/CD/6/nummod black/JJ/6/amod dogs/NNS/3/pobj ././2/punct"
    assert ("person", "dog", "with") in tuples(spec)


def test_emulation_switches_change_the_parser_fingerprint() -> None:
    """Cached tuples from one configuration are never served to another."""
    from capeval.metrics.spice.spacy_parser import SpacyParser

    prints = {
        SpacyParser().fingerprint,
        SpacyParser(emulate_fragments=False).fingerprint,
        SpacyParser(emulate_attachment=True).fingerprint,
        SpacyParser(emulate_fragments=False, emulate_attachment=True).fingerprint,
    }
    assert len(prints) == 4
    assert SpacyParser(emulate_attachment=True).fingerprint.endswith("+attach")
    assert SpacyParser(emulate_fragments=False).fingerprint.endswith("+nofrag")


def test_fingerprint_keeps_every_option_when_versions_cannot_be_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without package metadata (spaCy or the model not installed, a stripped environment) the
    versions show as ``?`` but every option that changes tuples stays in the fingerprint, so
    different configurations never share cache keys or signatures."""
    import importlib.metadata

    from capeval.metrics.spice.spacy_parser import CONVERTER_VERSION, DEFAULT_MODEL, SpacyParser

    def unreadable(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", unreadable)
    prints = [
        SpacyParser(emulate_fragments=frag, emulate_attachment=attach).fingerprint
        for frag in (True, False)
        for attach in (False, True)
    ]
    assert prints == [
        f"spacy-?+{DEFAULT_MODEL}-?+conv{CONVERTER_VERSION}",
        f"spacy-?+{DEFAULT_MODEL}-?+conv{CONVERTER_VERSION}+attach",
        f"spacy-?+{DEFAULT_MODEL}-?+conv{CONVERTER_VERSION}+nofrag",
        f"spacy-?+{DEFAULT_MODEL}-?+conv{CONVERTER_VERSION}+nofrag+attach",
    ]
    assert SpacyParser(model="/models/en_pipeline").fingerprint == (
        f"spacy-?+/models/en_pipeline-path+conv{CONVERTER_VERSION}"
    )


def test_word_record_is_named() -> None:
    """The converter reads named word records; plain 4-tuples are accepted as before."""
    from capeval.metrics.spice.spacy_parser import Word

    words = [Word("a", "DT", 1, "det"), Word("dog", "NN", 1, "ROOT"), Word("runs", "VBZ", 1, "acl")]
    assert words[1].tag == "NN" and words[0].head == 1 and words[2].dep == "acl"
    as_tuples = [tuple(w) for w in words]
    assert {tuple(t) for t in extract_tuples(convert_sentence(words, LEMMATIZER))} == {
        tuple(t) for t in extract_tuples(convert_sentence(as_tuples, LEMMATIZER))
    }


def test_subjectless_gerund_root_with_compound_subject() -> None:
    """ "dog jumping for frisbee": spaCy's compound(jumping, dog) under a VBG root."""
    got = tuples("dog/NN/2/compound jumping/VBG/0/ROOT for/IN/2/prep frisbee/NN/3/pobj")
    assert ("dog", "frisbee", "jump for") in got
    # with a subject and auxiliary ("a man is rock climbing") the compound stays
    got = tuples("a/DT/2/det man/NN/5/nsubj is/VBZ/5/aux rock/NN/5/compound climbing/VBG/0/ROOT")
    assert ("rock", "climbing", "acl") not in got and ("man", "climb") in got


def test_gerund_with_noun_modifiers_is_a_noun() -> None:
    got = tuples("cupcake/NN/0/ROOT with/IN/1/prep brown/JJ/4/amod frosting/VBG/2/pobj")
    assert {("cupcake", "frosting", "with"), ("frosting", "brown"), ("frosting",)} <= got


def test_next_to_after_a_verb_does_not_collapse() -> None:
    """ "standing next to the bales": the PCFG keeps "next" as the verb's adverb, (lamb, stand to, bale)."""
    spec = (
        "the/DT/2/det lamb/NN/4/nsubj is/VBZ/4/aux standing/VBG/0/ROOT next/RB/4/advmod to/IN/5/prep "
        "the/DT/8/det bales/NNS/6/pobj ././4/punct"
    )
    got = tuples(spec)
    assert ("lamb", "bale", "stand to") in got and ("lamb", "bale", "stand next to") not in got
    # after a noun the two words still make one preposition
    got = tuples("trees/NNS/0/ROOT next/JJ/1/advmod to/IN/2/prep house/NN/3/pobj ././1/punct")
    assert ("tree", "house", "next to") in got


def test_comma_list_items_share_the_first_item_governor() -> None:
    """ "wearing black clothes , a purple scarf , and a pink hat": spaCy's appos is a list item."""
    spec = (
        "a/DT/2/det woman/NN/16/nsubj wearing/VBG/2/acl black/JJ/5/amod clothes/NNS/3/dobj ,/,/2/punct "
        "a/DT/9/det purple/JJ/9/amod scarf/NN/2/appos ,/,/9/punct and/CC/9/cc a/DT/14/det pink/JJ/14/amod "
        "hat/NN/9/conj is/VBZ/16/aux riding/VBG/0/ROOT a/DT/18/det bike/NN/16/dobj ././16/punct"
    )
    got = tuples(spec)
    assert {("woman", "clothes", "wear"), ("woman", "scarf", "wear"), ("woman", "hat", "wear")} <= got


def test_bare_participle_with_a_subject_is_a_reduced_relative() -> None:
    """ "Two lizards fighting .": no finite verb, so no clause: no (lizard, fight) attribute."""
    got = tuples("two/CD/2/nummod lizards/NNS/3/nsubj fighting/VBG/0/ROOT ././3/punct")
    assert got == {("lizard", "two"), ("lizard",)}
    # with an auxiliary it stays a clause
    got = tuples("two/CD/2/nummod lizards/NNS/4/nsubj are/VBP/4/aux fighting/VBG/0/ROOT ././4/punct")
    assert ("lizard", "fight") in got


def test_passive_participle_after_being_is_a_reduced_relative() -> None:
    """ "a tree being eaten by men .": the tree is eaten (agent kept); "the tree is being eaten"
    stays a clause, so its passive subject gives the same relation through the agent rule."""
    reduced = (
        "a/DT/2/det tree/NN/4/nsubjpass being/VBG/4/auxpass eaten/VBN/0/ROOT by/IN/4/agent men/NNS/5/pobj ././4/punct"
    )
    assert tuples(reduced) == {("tree", "man", "eat"), ("tree",), ("man",)}
    # a prepositional object: the relation only exists with the reduced relative
    reduced = (
        "a/DT/2/det tree/NN/4/nsubjpass being/VBG/4/auxpass eaten/VBN/0/ROOT on/IN/4/prep men/NNS/5/pobj ././4/punct"
    )
    assert ("tree", "man", "eat on") in tuples(reduced)
    clause = (
        "the/DT/2/det tree/NN/5/nsubjpass is/VBZ/5/aux being/VBG/5/auxpass eaten/VBN/0/ROOT on/IN/5/prep men/NNS/6/pobj"
    )
    assert not any(len(t) == 3 for t in tuples(clause))


def fragment_tuples(spec: str) -> set[tuple[str, ...]]:
    from capeval.metrics.spice.parsing.convert import emulate_fragment

    graph = convert_sentence(parse(spec), LEMMATIZER)
    emulate_fragment(graph)
    return {tuple(t) for t in extract_tuples(graph)}


def test_fragment_with_a_short_participle_phrase_has_no_relation() -> None:
    """ "a brown dog walking on grass" (no full stop): the phrase hangs under dep."""
    got = fragment_tuples("a/DT/3/det brown/JJ/3/amod dog/NN/0/ROOT walking/VBG/3/acl on/IN/4/prep grass/NN/5/pobj")
    assert got == {("dog", "brown"), ("dog",), ("grass",)}
    # the same words with a full stop keep the reduced relative
    got = fragment_tuples(
        "a/DT/3/det brown/JJ/3/amod dog/NN/0/ROOT walking/VBG/3/acl on/IN/4/prep grass/NN/5/pobj ././3/punct"
    )
    assert ("dog", "grass", "walk on") in got


def test_fragment_with_a_long_participle_phrase_is_a_compound() -> None:
    """ "a dog wading in the water with a ball": the participle heads, the noun is its compound."""
    spec = (
        "a/DT/2/det dog/NN/0/ROOT wading/VBG/2/acl in/IN/3/prep the/DT/6/det water/NN/4/pobj "
        "with/IN/3/prep a/DT/9/det ball/NN/7/pobj"
    )
    got = fragment_tuples(spec)
    assert {("wading", "dog"), ("wading", "water", "in"), ("wading", "ball", "with")} <= got
    assert ("dog",) not in got and not any(len(t) == 3 and t[0] == "dog" for t in got)
    # "in front of" counts as two phrases
    spec = (
        "a/DT/2/det girl/NN/0/ROOT walking/VBG/2/acl in/IN/3/prep front/NN/4/pobj of/IN/5/prep "
        "a/DT/8/det tree/NN/6/pobj"
    )
    assert ("walking", "girl") in fragment_tuples(spec)


def test_copular_caption_without_full_stop_is_no_fragment() -> None:
    """ "this is a dog walking on grass": a clause, the relation stays."""
    spec = "this/DT/2/nsubj is/VBZ/0/ROOT a/DT/4/det dog/NN/2/attr walking/VBG/4/acl on/IN/5/prep grass/NN/6/pobj"
    assert ("dog", "grass", "walk on") in fragment_tuples(spec)


def test_each_other_is_no_object() -> None:
    """The PCFG reads "each other" as determiner + adjective: no object, no verb relation."""
    spec = (
        "two/CD/2/nummod dogs/NNS/4/nsubj are/VBP/4/aux running/VBG/0/ROOT towards/IN/4/prep "
        "each/DT/7/det other/NN/5/pobj ././4/punct"
    )
    assert tuples(spec) == {("dog", "run"), ("dog", "two"), ("dog",)}
    # a noun's preposition still relates it ("cat at each other")
    assert ("cat", "other", "at") in tuples("cat/NN/0/ROOT at/IN/1/prep each/DT/4/det other/NN/2/pobj")


def test_subjectless_participle_phrase_attaches_to_the_nearest_noun() -> None:
    """ "a gray dog sits on a lawn wearing a jacket": the PCFG's low attachment, (lawn, wear, jacket)."""
    spec = (
        "a/DT/3/det gray/JJ/3/amod dog/NN/4/nsubj sits/VBZ/0/ROOT on/IN/4/prep a/DT/7/det lawn/NN/5/pobj "
        "wearing/VBG/4/advcl a/DT/10/det jacket/NN/8/dobj ././4/punct"
    )
    assert ("lawn", "jacket", "wear") in tuples(spec)
    # an adverbial clause with "while" stays on the verb (no relation)
    spec = (
        "a/DT/2/det dog/NN/3/nsubj sits/VBZ/0/ROOT on/IN/3/prep grass/NN/4/pobj while/IN/7/mark "
        "wearing/VBG/3/advcl a/DT/9/det jacket/NN/7/dobj ././3/punct"
    )
    assert not any(len(t) == 3 and t[2] == "wear" for t in tuples(spec))


def test_comma_list_of_subjects_shares_the_verb() -> None:
    """ "A man , a woman , a girl , and a younger girl look puzzled": spaCy's appos is a list item."""
    spec = (
        "a/DT/2/det man/NN/14/nsubj ,/,/2/punct a/DT/5/det woman/NN/2/appos ,/,/5/punct a/DT/8/det "
        "girl/NN/5/conj ,/,/8/punct and/CC/8/cc a/DT/13/det younger/JJR/13/amod girl/NN/8/conj "
        "look/VB/0/ROOT ././14/punct"
    )
    got = tuples(spec)
    assert {("man", "look"), ("woman", "look"), ("girl", "look")} <= got


def test_colored_before_a_noun_stays_a_participle() -> None:
    """ "brightly colored airplane": the PCFG's VBN, so the attribute is the lemma (airplane, color)."""
    got = tuples("brightly/RB/2/advmod colored/JJ/3/amod airplane/NN/0/ROOT")
    assert ("airplane", "color") in got
    # other pre-nominal participles are adjectives ("fenced area")
    assert ("area", "fenced") in tuples("the/DT/3/det fenced/VBN/3/amod area/NN/0/ROOT")


def test_noun_and_adjective_noun_is_a_coordination() -> None:
    """ "wearing a hat and red scarf": spaCy's nmod(scarf, hat) + conj(hat, red) is "hat" and "red scarf"."""
    spec = (
        "a/DT/2/det woman/NN/9/nsubj wearing/VBG/2/acl a/DT/8/det hat/NN/8/nmod and/CC/5/cc red/JJ/5/conj "
        "scarf/NN/3/dobj stands/VBZ/0/ROOT ././9/punct"
    )
    got = tuples(spec)
    assert {("woman", "hat", "wear"), ("woman", "scarf", "wear"), ("scarf", "red")} <= got
    assert ("scarf", "hat") not in got


def test_fragment_participle_away_from_its_noun_has_no_relation() -> None:
    """ "a boy and girl playing with buckets in a sprinkler": no compound reading across "and girl",
    and, as for any fragment participle that is not a compound head, no relation."""
    spec = (
        "a/DT/2/det boy/NN/0/ROOT and/CC/2/cc girl/NN/2/conj playing/VBG/2/acl with/IN/5/prep "
        "buckets/NNS/6/pobj in/IN/5/prep a/DT/10/det sprinkler/NN/8/pobj"
    )
    got = fragment_tuples(spec)
    assert ("girl",) in got and ("boy",) in got
    assert not any(len(t) == 3 and t[2].startswith("play") for t in got)
    assert not any(t[0] == "playing" for t in got)


def _tuples_with(spec: str, nouns: set[str], verbs: set[str]) -> set[tuple[str, ...]]:
    lemmatizer = MorphaLemmatizer({}, {}, nouns, verbs)
    return {tuple(t) for t in extract_tuples(convert_sentence(parse(spec), lemmatizer))}


def test_subject_read_as_a_compound_of_the_verb_is_the_subject() -> None:
    """ "a golden retriever plays with a toy .": spaCy hangs "a golden retriever" on "plays"."""
    got = _tuples_with(
        "a/DT/4/det golden/JJ/4/amod retriever/NN/4/compound plays/VBZ/0/ROOT with/IN/4/prep a/DT/7/det "
        "toy/NN/5/pobj ././4/punct",
        {"retriever", "toy"},
        {"play"},
    )
    assert ("retriever", "toy", "play with") in got
    assert ("retriever", "golden") in got
    assert ("play", "golden") not in got


def test_subject_on_the_auxiliary_goes_to_the_verb() -> None:
    """ "A boy is whispering to a girl .": spaCy's nsubj on "is" belongs to "whispering"."""
    got = _tuples_with(
        "A/DT/2/det boy/NN/3/nsubj is/VBZ/4/aux whispering/VBG/0/ROOT to/IN/4/prep a/DT/7/det girl/NN/5/pobj "
        "././4/punct",
        {"boy", "girl"},
        {"whisper"},
    )
    assert ("boy", "girl", "whisper to") in got


def test_adjective_tagged_object_with_an_article_is_a_noun() -> None:
    """ "on a grassy plain" (plain/RB), "in a uniform" (uniform/JJ): the PCFG's noun."""
    got = _tuples_with(
        "A/DT/2/det crowd/NN/4/nsubj is/VBZ/4/aux gathering/VBG/0/ROOT on/IN/4/prep a/DT/8/det grassy/JJ/8/amod "
        "plain/RB/5/pobj ././4/punct",
        {"crowd", "plain"},
        {"gather"},
    )
    assert ("crowd", "plain", "gather on") in got
    assert ("plain",) in got
    # "the other" is no noun
    got = _tuples_with("dogs/NNS/2/nsubj chase/VBP/0/ROOT the/DT/4/det other/JJ/2/dobj", {"dog", "other"}, {"chase"})
    assert ("other",) not in got


def test_preposition_under_a_particle_attaches_to_the_verb() -> None:
    """ "A black dog jumping off of a dock .": spaCy hangs "of" on the particle "off"."""
    got = _tuples_with(
        "A/DT/3/det black/JJ/3/amod dog/NN/4/nsubj jumping/VBG/0/ROOT off/IN/4/prt of/IN/5/prep a/DT/8/det "
        "dock/NN/6/pobj ././4/punct",
        {"dog", "dock"},
        {"jump"},
    )
    assert ("dog", "dock", "jump off of") in got
    got = _tuples_with(
        "A/DT/2/det hawk/NN/3/nsubj flies/VBZ/0/ROOT down/RB/3/advmod towards/IN/4/prep the/DT/7/det "
        "grass/NN/5/pobj ././3/punct",
        {"hawk", "grass"},
        {"fly"},
    )
    assert ("hawk", "grass", "fly towards") in got


def test_noun_after_and_hung_on_the_verb_is_a_conjunct() -> None:
    """ "A child with a pink headband and blue shirt smiling .": "shirt" is no compound of "smiling"."""
    got = _tuples_with(
        "A/DT/2/det child/NN/10/nsubj with/IN/2/prep a/DT/6/det pink/JJ/6/amod headband/NN/3/pobj and/CC/6/cc "
        "blue/JJ/9/amod shirt/NN/10/compound smiling/VBG/0/ROOT ././10/punct",
        {"child", "headband", "shirt"},
        {"smile"},
    )
    assert {("child", "headband", "with"), ("child", "shirt", "with"), ("shirt", "blue")} <= got


def test_pronoun_phrase_attaches_to_the_noun_before_it() -> None:
    """ "the rock has moss on it": (moss, on, rock), not a relation of the rock with itself."""
    got = tuples("the/DT/2/det rock/NN/3/nsubj has/VBZ/0/ROOT moss/NN/3/dobj on/IN/3/prep it/PRP/5/pobj")
    assert ("moss", "rock", "on") in got
    assert not any(len(t) == 3 and t[0] == t[1] for t in got)
    # after coordinated nouns the phrase goes with the first conjunct, as the PCFG's NP does
    got = tuples(
        "the/DT/2/det rock/NN/3/nsubj has/VBZ/0/ROOT moss/NN/3/dobj and/CC/4/cc tree/NN/4/conj"
        " on/IN/3/prep it/PRP/7/pobj"
    )
    assert ("moss", "rock", "on") in got
    assert ("tree", "rock", "on") not in got


def test_participle_after_an_of_phrase_attaches_to_the_nearest_noun() -> None:
    """ "group of dogs walking in river": without a full stop the dogs walk (PCFG); with one
    the phrase stays on "group", as spaCy has it."""
    spec = "group/NN/0/ROOT of/IN/1/prep dogs/NNS/2/pobj walking/VBG/1/acl in/IN/4/prep river/NN/5/pobj"
    assert ("dog", "river", "walk in") in tuples(spec)
    assert ("group", "river", "walk in") in tuples(spec + " ././1/punct")


def test_prenominal_present_participle_stays_a_verb() -> None:
    """ "the surrounding trees": (tree, surround), as the PCFG tags it; a past participle before
    its noun is an adjective ("the surrounded tree": (tree, surrounded))."""
    assert ("tree", "surround") in tuples("the/DT/3/det surrounding/VBG/3/amod trees/NNS/0/ROOT")
    assert ("tree", "surrounded") in tuples("the/DT/3/det surrounded/VBN/3/amod tree/NN/0/ROOT")
