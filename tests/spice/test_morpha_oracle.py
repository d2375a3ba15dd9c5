"""Morpha lemmas against CoreNLP 3.6.0's lemma annotator, run live, on whole vocabularies.

Every word of the COCO val2014 captions and of Flickr8K's captions (as written and lower-cased,
with the PTB pieces a tokenizer could cut from it) is lemmatised under each of the 45 tags the
parser emits, by capeval and by the annotator (``bench/oracle/morpha.py``), and so are the 48,050
words of the parser's lexicon (``englishPCFG.ser.gz`` from the oracle's CoreNLP models, or the
copy ``CAPEVAL_SPICE_GRAMMAR`` names); every token of the official stage files (``../shared``)
too, and every character inside a few words.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from bench.oracle import (
    PTB_TAGS,
    OracleUnavailable,
    caption_words,
    flickr8k_captions,
    grammar_words,
    run_morpha,
    val2014_captions,
)

from capeval.metrics.spice.corenlp.morpha import lemma

pytestmark = pytest.mark.slow

STAGES = Path(__file__).resolve().parents[3] / "shared" / "data" / "spice-official"


def _differences(words: list[str]) -> list[tuple[str, str, str | None, str]]:
    pairs = [(word, tag) for word in words for tag in PTB_TAGS]
    try:
        expected = run_morpha(pairs)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    return [(w, t, e, lemma(w, t)) for (w, t), e in zip(pairs, expected, strict=True) if lemma(w, t) != e]


def test_coco_vocabulary_under_every_tag() -> None:
    try:
        path = val2014_captions()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    with open(path, encoding="utf-8") as fh:
        words = sorted(caption_words(item["caption"] for item in json.load(fh)["annotations"]))
    assert len(words) > 30_000
    assert _differences(words) == []


def test_flickr8k_vocabulary_under_every_tag() -> None:
    captions = flickr8k_captions()
    if captions is None:
        pytest.skip("Flickr8k.token.txt is not in ../shared")
    assert _differences(sorted(caption_words(captions))) == []


def test_parser_lexicon_under_every_tag() -> None:
    try:
        words = grammar_words()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    assert len(words) == 48_050
    assert _differences(sorted(words)) == []


@pytest.mark.parametrize("stage", ["dev_ptb", "dev_raw"])
def test_official_stage_tokens(stage: str) -> None:
    path = STAGES / f"{stage}.stages.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    wrong, total = [], 0
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            for sentence in json.loads(line)["sentences"]:
                for word, tag, expected in sentence["tokens"]:
                    total += 1
                    if lemma(word, tag) != expected:
                        wrong.append((word, tag, expected, lemma(word, tag)))
    assert total > 100_000
    assert wrong == []


#: Words around one character ``X``: stems, plurals, -ing/-ed, hyphens, periods, lower-casing.
_CHARACTER_TEMPLATES = (
    ("X", "NNS"), ("aXs", "NNS"), ("tXies", "NNS"), ("bXmen", "NNS"), ("a-X", "NNS"), ("X-as", "NNS"),
    ("dogs.X", "NNS"), ("aXing", "VBG"), ("aXed", "VBD"), ("X", "VBZ"), ("Xs", "VB"), ("kXpt", "VBD"),
    ("aXb", "NN"), ("X", "NNP"), ("X", "PRP"), ("xXy", "JJ"),
)  # fmt: skip


def test_every_character() -> None:
    """Every code point of the Basic Multilingual Plane (and every 97th beyond) inside a few words."""
    chars = [chr(i) for i in range(0x10000) if not 0xD800 <= i < 0xE000] + [
        chr(i) for i in range(0x10000, 0x110000, 97)
    ]
    pairs = [(word.replace("X", char), tag) for char in chars for word, tag in _CHARACTER_TEMPLATES]
    try:
        expected = run_morpha(pairs)
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    wrong = [(w, t, e, lemma(w, t)) for (w, t), e in zip(pairs, expected, strict=True) if lemma(w, t) != e]
    assert wrong == []
