"""CoreNLP 3.6.0's tokenizer and sentence splitter as SPICE runs them, against the official jar's output.

Fixtures (``tests/data/tokenizers``, see PROVENANCE.md): ``corenlp_vectors.jsonl.gz`` (3,222 captions:
hand-written cases, the PTB vector inputs, random tricky captions) and ``corenlp_bmp_behaviour.tsv.gz``
(every BMP code point in nine contexts), both made by the official ``stanford-corenlp-3.6.0.jar``.
The live comparison is ``test_corenlp_live.py`` (slow).
"""

from __future__ import annotations

import gzip
import json
import random

import pytest
from tests.tokenizers.corenlp_stress import BMP_CONTEXTS, BMP_TABLE, HAND, VECTORS, behaviour_key

from capeval.tokenizers.corenlp import SENTENCE_FOLLOWERS, corenlp_sentences, corenlp_tokens, split_sentences


def _vectors() -> list[tuple[str, list[list[str]]]]:
    with gzip.open(VECTORS, "rt", encoding="utf-8") as fh:
        return [(row["text"], row["sentences"]) for row in map(json.loads, fh)]


def _bmp_rows() -> list[tuple[str, int, int, str]]:
    with gzip.open(BMP_TABLE, "rt", encoding="utf-8") as fh:
        lines = [line.rstrip("\n").split("\t") for line in fh if not line.startswith("#")][1:]
    return [(json.loads(context), int(first[2:], 16), int(last[2:], 16), key) for context, first, last, key in lines]


def test_every_fixture_caption_is_tokenized_and_split_as_the_jar_does() -> None:
    vectors = _vectors()
    assert len(vectors) == 3222
    wrong = [(text, expected, got) for text, expected in vectors if (got := corenlp_sentences(text)) != expected]
    assert wrong == []


def test_the_fixture_holds_the_hand_written_cases() -> None:
    assert [text for text, _ in _vectors()[: len(HAND)]] == HAND


def test_every_bmp_character_behaves_as_observed() -> None:
    """Each range of the table at its ends, its middle and two random points, in every context.

    (Every code point in every context is checked live against the jar by the slow suite.)
    """
    rng = random.Random(0)
    rows = _bmp_rows()
    assert {context for context, *_ in rows} == set(BMP_CONTEXTS)
    wrong = []
    covered = 0
    for context, first, last, key in rows:
        covered += last - first + 1
        codes = {first, (first + last) // 2, last, rng.randint(first, last), rng.randint(first, last)}
        for code in codes:
            char = chr(code)
            got = behaviour_key(char, corenlp_sentences(context.format(char)))
            if got != key:
                wrong.append((context, f"U+{code:04X}", key, got))
    assert covered == len(BMP_CONTEXTS) * (0x10000 - 0x800)
    assert wrong == []


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        # the documented behaviours of the pipeline
        ("He said 'hi' and left... then came back?!", [["He", "said", "`", "hi", "'", "and", "left", "...", "then",
                                                         "came", "back", "?!"]]),
        ("Wait.... Then", [["Wait", "...", "."], ["Then"]]),  # 3.6.0: the fourth dot ends the sentence
        ("Wait.... 3 more", [["Wait", "...", "3", "more"]]),  # ... only before a letter
        ("a ......", [["a", "..."]]),  # any run of dots is one ellipsis
        ("x :)", [["x", ":", "-RRB-"]]),  # a smiley needs a character after it
        ("x :) y", [["x", ":-RRB-", "y"]]),
        ("O\u2019Neil and rock\u2019n\u2019roll", [["O'Neil", "and", "rock", "'n'", "roll"]]),
        ("I saw E! on OK! magazine", [["I", "saw", "E!", "on", "OK!", "magazine"]]),
        ("a == b", [["a", "==", "b"]]),
        ("\x95 item \x99", [["\u2022", "item", "\u2122"]]),
        ("Did you go to the U.S. Did you", [["Did", "you", "go", "to", "the", "U.S.", "."], ["Did", "you"]]),
        ("line one\n\nline two.", [["line", "one", "line", "two", "."]]),  # line breaks are spaces
        ("Jan.\U0001f436", [["Jan."]]),  # Java reads a character outside the BMP as two
        ("a \U0001f436 b", [["a", "b"]]),  # emoji are deleted
        ("http://x.org/\U0001f436a b", [["http://x.org/\U0001f436a", "b"]]),  # ... unless inside a token
        ("", []),
        (" \t\u00a0", []),
        ("\U0001f436", []),
    ],
)  # fmt: skip
def test_documented_cases(text: str, sentences: list[list[str]]) -> None:
    assert corenlp_sentences(text) == sentences
    assert corenlp_tokens(text) == [token for sentence in sentences for token in sentence]


def test_sentence_splitting_rules() -> None:
    assert split_sentences([]) == []
    assert split_sentences(["a", "b"]) == [["a", "b"]]
    # a boundary is a whole token: "." or a run of ! and ?
    assert split_sentences(["a", ".", "b", "?!?", "c", "!", "d"]) == [["a", "."], ["b", "?!?"], ["c", "!"], ["d"]]
    assert split_sentences(["a", "...", "b", "p.m.", "c", "?.", "d"]) == [["a", "...", "b", "p.m.", "c", "?.", "d"]]
    # closing brackets and quotes right after a boundary stay with the sentence that ended, however many
    assert split_sentences(["a", ".", "''", "-RRB-", "b", ")"]) == [["a", ".", "''", "-RRB-"], ["b", ")"]]
    # ... but not at the start of the text, and not after another token
    assert split_sentences(["''", "a", ".", "b", "''"]) == [["''", "a", "."], ["b", "''"]]
    for follower in SENTENCE_FOLLOWERS:
        assert split_sentences(["a", "!", follower]) == [["a", "!", follower]]
    # a boundary token alone is a sentence
    assert split_sentences([".", "."]) == [["."], ["."]]


def test_bad_input_is_refused() -> None:
    for bad in (None, 3, b"a dog", ["a dog"]):
        with pytest.raises(TypeError, match="expected a caption string"):
            corenlp_sentences(bad)  # type: ignore[arg-type]
