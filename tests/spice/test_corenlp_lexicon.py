"""The parser's lexicon: level-2 signatures, and scores against CoreNLP 3.6.0's ``BaseLexicon.score``."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.spice.grammar_fixture import pcfg_grammar  # noqa: F401 - a fixture

from capeval.metrics.spice.corenlp.grammar import Grammar
from capeval.metrics.spice.corenlp.lexicon import FLOOD_SCORE, Lexicon, signature

DATA = Path(__file__).parents[1] / "data" / "spice" / "corenlp_pcfg"


@pytest.mark.parametrize(
    ("word", "loc", "expected"),
    [
        ("skateboarder", 2, "UNK-LCr"),
        ("frisbee", 2, "UNK-LCe"),
        ("giraffes", 1, "UNK-LCs"),
        ("Frisbee", 0, "UNK-INITe"),
        ("Frisbee", 3, "UNK-UCe"),
        ("Man", 3, "UNK-UC"),
        ("double-decker", 1, "UNK-LC-DASHr"),
        ("DOUBLE-DECKER", 1, "UNK-ALLC-DASHr"),
        ("3.30", 3, "UNK-DIG"),
        ("1950s", 0, "UNK-LC-DIG"),
        ("1950", 0, "UNK-NUM"),
        ("12-34", 0, "UNK-DASH-DIG"),
        ("UNK", 0, "UNK-ALLC"),
        ("tv", 1, "UNK-LC"),
        ("...", 1, "UNK"),
        ("....", 1, "UNK."),
        ("", 0, "UNK"),
        # Unicode classes as Java's Character: title case, Other_Lowercase, non-ASCII digits
        ("\u01c5emal", 1, "UNK-UCl"),  # Dž (title case) starts it
        ("\u01c5", 1, "UNK-UC"),
        ("\u00aabcd", 1, "UNK-LCd"),  # ª is Other_Lowercase
        ("\u0663\u0664", 1, "UNK-NUM"),  # Arabic-Indic digits are Nd
        ("abc\u0663", 1, "UNK-LC-DIG"),
        ("\u00bd", 1, "UNK"),  # ½ is No, not a digit
        ("\u2160abc", 1, "UNK-UCc"),  # Roman numeral one: Nl, Other_Uppercase
        ("ABC\u0130", 1, "UNK-ALLCi"),  # İ lowers to i (one-to-one mapping)
        ("x\U0001d518nk", 1, "UNK-LCk"),  # an astral letter is two surrogates to Java
        ("\U0001d518nk", 1, "UNK-LCk"),
    ],
)
def test_signature(word: str, loc: int, expected: str) -> None:
    assert signature(word, loc) == expected


def _bits(x: float) -> int:
    result: int = struct.unpack("<i", struct.pack("<f", x))[0]
    return result


def _observed() -> list[dict[str, Any]]:
    with open(DATA / "lexicon_scores.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.fixture(scope="module")
def lexicon(pcfg_grammar: Grammar) -> Lexicon:  # noqa: F811 - the imported fixture
    return Lexicon(pcfg_grammar)


@pytest.mark.parametrize("row", _observed(), ids=lambda r: f"{r['word']}@{r['loc']}")
def test_scores_are_javas(row: dict[str, Any], lexicon: Lexicon) -> None:
    word, loc = row["word"], row["loc"]
    tags, scores = lexicon.candidates(word, loc)
    assert len(tags) == row["candidates"]
    assert lexicon.is_known(lexicon.word_id(word)) == row["known"]
    assert float(np.sum(scores.astype(np.float64))).hex() == row["sum"]
    names = lexicon.grammar.states
    by_name = {names[lexicon.grammar.tag_state[t]]: s for t, s in zip(tags.tolist(), scores.tolist(), strict=True)}
    for tag, bits in row["best"]:
        assert _bits(by_name[tag]) == bits, tag


def test_worked_example(lexicon: Lexicon) -> None:
    tags, scores = lexicon.candidates("man", 1)
    names = [lexicon.grammar.states[lexicon.grammar.tag_state[t]] for t in tags]
    assert sorted(names) == ["NN^NP", "UH^INTJ", "VB^VP"]
    assert math.isclose(scores[names.index("NN^NP")], -6.988358, abs_tol=1e-6)


def test_flood_scores_every_tag(lexicon: Lexicon) -> None:
    flood = lexicon.flood("man", 1)
    assert flood.dtype == np.float32 and flood.shape == (lexicon.grammar.num_tags,)
    assert np.isfinite(flood).all()
    assert (flood == FLOOD_SCORE).sum() == lexicon.grammar.num_tags - 258  # finite where the lexicon has a score
