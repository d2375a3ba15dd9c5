"""Morpha lemmas (CoreNLP 3.6.0's lemma annotator, as SPICE 1.0 runs it) without Java.

Every expected value here was observed from the annotator itself (``bench/oracle/morpha.py``);
``tests/data/morpha/morpha_oracle.jsonl.gz`` holds 14,000 more pairs it lemmatised (every listed
form, ending and undoubling stem, the special forms under all 45 tags, odd tags and characters,
every hyphenated COCO word and a random sample; see its README). The live, exhaustive check is in
``test_morpha_oracle.py``.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from capeval.metrics.spice.corenlp import morpha
from capeval.metrics.spice.corenlp.morpha import PARTICLES, lemma

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "morpha" / "morpha_oracle.jsonl.gz"


def _fixture() -> dict[str, list[tuple[str, str, str | None]]]:
    kinds: dict[str, list[tuple[str, str, str | None]]] = defaultdict(list)
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        for line in fh:
            word, tag, expected, kind = json.loads(line)
            kinds[kind].append((word, tag, expected))
    return kinds


FIXTURE_KINDS = _fixture()


def _lemma_or_none(word: str, tag: str) -> str | None:
    try:
        return lemma(word, tag)
    except ValueError:
        return None


@pytest.mark.parametrize("kind", sorted(FIXTURE_KINDS))
def test_observed_pairs(kind: str) -> None:
    wrong = [(w, t, e, _lemma_or_none(w, t)) for w, t, e in FIXTURE_KINDS[kind] if _lemma_or_none(w, t) != e]
    assert not wrong, wrong[:20]


def test_fixture_covers_every_kind() -> None:
    counts = Counter({kind: len(pairs) for kind, pairs in FIXTURE_KINDS.items()})
    assert set(counts) == {"form", "ending", "stem", "special", "tag", "char", "hyphen", "sample"}
    assert counts["form"] > 2500 and counts["sample"] > 3900


@pytest.mark.parametrize(
    ("word", "tag", "expected"),
    [
        ("Dogs", "NN", "dogs"),  # NN is never stemmed, only lower-cased
        ("Dogs", "NNS", "dog"),
        ("Frisbee", "NNP", "Frisbee"),  # NNP/NNPS are kept as written
        ("Vehicles", "NNPS", "Vehicles"),
        ("larger", "JJR", "larger"),
        ("striped", "JJ", "striped"),
        ("plated", "VB", "plate"),  # every VB* tag goes through the verb rules
        ("teenagers", "VB", "teenager"),
        ("dogs", "nns", "dog"),  # the tag's letters are matched case-insensitively ...
        ("dogs", "nnp", "dog"),  # ... but "P" after NN is tested as written
        ("dogs", "NNX", "dog"),
        ("running", "V", "run"),
        ("dogs", "N N", "dogs"),
    ],
)
def test_tag_dispatch(word: str, tag: str, expected: str) -> None:
    assert lemma(word, tag) == expected


@pytest.mark.parametrize(
    ("word", "tag", "expected"),
    [
        ("was", "VBD", "be"),
        ("Were", "VBD", "be"),
        ("was", "NNS", "wa"),  # special forms need their tag
        ("is", "VBZ", "be"),
        ("'s", "VBZ", "be"),
        ("'s", "POS", "'s"),
        ("'s", "NNS", "'"),
        ("'re", "VBP", "be"),
        ("m", "VBP", "be"),
        ("'d", "VBD", "have"),
        ("'d", "MD", "would"),
        ("ca", "MD", "can"),
        ("wo", "MD", "will"),
        ("'ll", "MD", "will"),
        ("n't", "RB", "not"),
        ("no", "VB", "know"),
        ("me", "PRP", "I"),
        ("Me", "PRP", "I"),
        ("I", "PRP", "I"),
        ("i", "PRP", "i"),  # kept as written
        ("her", "PRP$", "she"),
        ("his", "PRP$", "he"),
        ("my", "PRP$", "my"),
        ("them", "PRP", "they"),
        ("us", "PRP", "we"),
        ("An", "DT", "a"),
        ("AN", "DT", "a"),
        ("an", "dt", "an"),  # the A/D test is case-sensitive
        ("those", "DT", "those"),
    ],
)
def test_special_forms(word: str, tag: str, expected: str) -> None:
    assert lemma(word, tag) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("boxes", "box"),
        ("dishes", "dish"),
        ("kisses", "kiss"),
        ("horses", "horse"),
        ("sizes", "size"),
        ("flies", "fly"),
        ("cookies", "cookie"),  # listed
        ("potatoes", "potato"),
        ("viruses", "virus"),
        ("xouses", "xous"),
        ("status", "status"),
        ("glass", "glass"),
        ("basis", "basis"),
        ("women", "woman"),
        ("housewives", "housewife"),
        ("symposia", "symposium"),
        ("media", "media"),  # listed
        ("anemia", "anemia"),
        ("graffiti", "graffitus"),
        ("mini", "minus"),
        ("xii", "xii"),  # a roman numeral
        ("larvae", "larva"),
        ("dogs.", "dog."),
        ("u.s.", "u.s."),
        ("1960s", "1960"),
        ("children", "child"),
        ("feet", "foot"),
        ("fries", "fries"),
        ("scissors", "scissors"),
        ("buses", "bus"),
        ("snowshoes", "snowshoe"),
        ("bathhouses", "bathhouse"),
        ("arthritis", "arthritis"),
        ("mrs.", "mrs."),
        ("passers-by", "passer-by"),
        ("t-shirts", "t-shirt"),
        ("a-b-dogs", "a-b-dog"),
        ("cafés", "cafés"),  # a letter outside a-z stops every rule
    ],
)
def test_noun_rules(word: str, expected: str) -> None:
    assert lemma(word, "NNS") == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("stopped", "stop"),  # "stop" is an undoubling stem
        ("vatted", "vatt"),  # "vat" is not
        ("sitting", "sit"),
        ("called", "call"),
        ("kissed", "kiss"),
        ("riding", "ride"),
        ("skating", "skate"),
        ("floating", "float"),
        ("looking", "look"),
        ("lying", "lie"),  # listed
        ("made", "make"),
        ("shown", "show"),
        ("bused", "bus"),
        ("housing", "house"),
        ("tried", "try"),
        ("played", "play"),
        ("dancing", "dance"),
        ("quoted", "quote"),
        ("string", "string"),
        ("julienned", "julienn"),
        ("swing", "swing"),
        ("bogged-down", "bog-down"),
        ("re-using", "re-use"),
    ],
)
def test_verb_rules(word: str, expected: str) -> None:
    assert lemma(word, "VBD") == expected


@pytest.mark.parametrize(
    ("word", "tag", "expected"),
    [
        ("dogs-", "NNS", "dogs-_NNS"),  # a final hyphen lets the tag through
        ("up-", "NNS", "up-_NNS"),
        ("-LRB-", "VBZ", "-lrb-_VBZ"),
        ("-LRB-", "-LRB-", "-lrb-"),
        ("up-", "NN", "up-"),
        ("dogs-", "NNS_X", "dogs-_NNS"),
        ("", "VB", "_VB"),
        ("go_up", "VBD", "go_up"),  # verb_particle: lemma(verb)_particle
        ("went_up", "VBD", "go_up"),
        ("went_up", "NNS", "went_up"),
        ("a b", "NNS", "a b"),  # "_", space and newline are protected
        ("a\tb", "NNS", "\t"),  # other white space splits the word
        ("İs", "NNS", "is"),  # "ı", "İ", "ſ" and the Kelvin sign match the lexer's fixed strings
        ("dogſ", "NNS", "dog"),
        ("\u212aept", "VBD", "keep"),
        ("ΟΔΟΣ", "NN", "οδος"),
    ],
)
def test_quirks(word: str, tag: str, expected: str) -> None:
    assert lemma(word, tag) == expected


def test_particles() -> None:
    assert len(PARTICLES) == 20 and {"up", "out", "together", "round"} <= PARTICLES


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="part-of-speech tag"):
        lemma("dogs", "")
    with pytest.raises(ValueError, match="no lemma"):
        lemma("", "_")
    with pytest.raises(TypeError):
        lemma(None, "NN")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        lemma("dogs", 3)  # type: ignore[arg-type]


def test_word_lists_load() -> None:
    tables = morpha._get_tables()
    assert len(tables.forms["noun"]) > 1000 and len(tables.forms["verb"]) > 1000
    assert len(tables.stems) > 800 and "stop" in tables.stems and "vat" not in tables.stems
    assert tables.endings["noun"]["houses"] == ("house", 0)
