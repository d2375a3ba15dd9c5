"""The batch fast path of PTBTokenizer gives exactly what the full scanner gives.

The fast path handles most captions with whole-stream byte operations; the scanner implements the
lexer rules one position at a time. On random caption-like text built from tricky pieces
(abbreviations, clitics, hyphens, numbers, quotes, stray punctuation, irregular spacing) both must
agree caption for caption, including the effect of the next caption on the last token.
"""

from __future__ import annotations

import random

import pytest

from capeval.tokenizers._ptb_lexer import ABBREVIATION_WORDS, ASSIMILATIONS, scan_caption
from capeval.tokenizers.ptb import COCO_PUNCTUATIONS, PTBTokenizer

PIECES = [
    *"a the dog dogs man men on of with table street sign letter bus train kitchen pizza".split(),
    *"A The Two It There A An Some This They He She We You When While Then Here".split(),
    *"Mr Dr St Mt Ft No Co Inc etc U.S B I a b x s US Jan Sept Calif Ltd vs e.g p.m".split(),
    *ASSIMILATIONS,
    "Gonna", "CANNOT", "can't", "don't", "won't", "isn't", "dn't", "x2n't", "man's", "it's", "we're", "I'm",
    "dogs'", "O'Neil", "o'clock", "ma'am", "y'all", "'90s", "'s", "n't", "'", "''", "``", '"', '"Hi"',
    "t-shirt", "x-ray", "3-year-old", "2-3", "12-10", "-", "--", "---", "pro-", "non-U.S.", "cat's-eye",
    "1", "2", "10", "1,000", "3.5", ".5", "1 1/2", "3/4", "555", "123", "4567", "(555)", "10:30", "$5", "50%",
    ".", ",", "..", "...", ". . .", "!", "?", "!!", ";", ":", ":)", "(", ")", "[", "]", "&", "AT&T", "@user",
    "#tag", "www.site.com", "a@b.com", "<b>", "</b>", "<", ">", "/", "*", "=", "+", "~", "\u00a0", "\t",
    "caf\u00e9", "\u2019s", "\u201cquoted\u201d", "\u2014", "\u00bd", "\u00a3", "\u20ac", "\U0001f436",
]  # fmt: skip
GLUE = [" ", " ", " ", " ", " ", "", "  ", ",", ", ", ".", ". ", " . ", "-", "'", ": ", "; ", "? ", "! ", '" ', ' "']


def _random_caption(rng: random.Random) -> str:
    n = rng.randint(0, 12)
    parts = []
    for _ in range(n):
        parts.append(rng.choice(PIECES))
        parts.append(rng.choice(GLUE))
    caption = "".join(parts)
    if rng.random() < 0.3:
        caption = " " + caption
    if rng.random() < 0.5:
        caption += rng.choice([".", ". ", " .", "", " ", "!", "..", "?", '."', '".', " . .", ". . .", ":"])
    return caption


def _scanner_only(captions: list[str]) -> list[str]:
    """Reference: every caption through the full scanner over the joined stream."""
    stream = "\n".join(captions)
    result, start = [], 0
    for caption in captions:
        tokens = scan_caption(stream, start, start + len(caption))
        result.append(" ".join(token for token in tokens if token not in COCO_PUNCTUATIONS))
        start += len(caption) + 1
    return result


@pytest.mark.parametrize("seed", range(8))
def test_fast_path_matches_scanner(seed: int) -> None:
    rng = random.Random(seed)
    tokenizer = PTBTokenizer()
    for _ in range(25):
        captions = [_random_caption(rng) for _ in range(rng.randint(1, 40))]
        assert tokenizer.tokenize(captions) == _scanner_only(captions), captions


def test_simple_words_before_every_abbreviation() -> None:
    captions = []
    for word in sorted(ABBREVIATION_WORDS):
        for variant in (word, word.capitalize(), word.upper()):
            captions += [f"x {variant}. y", f"x {variant}. Y", f"x {variant}. 5", f"x {variant}.", "The end."]
    assert PTBTokenizer().tokenize(captions) == _scanner_only(captions)


def test_abbreviation_words_cover_the_lexer() -> None:
    """Any word the lexer keeps a period on (or adds one after) is in ABBREVIATION_WORDS."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {a + b for a in letters for b in letters} | set(letters)
    words |= {w for w in ABBREVIATION_WORDS} | {"sept", "thurs", "bancorp", "messrs", "lieut", "mlle", "mlles"}
    missing = []
    for word in sorted(words):
        for variant in {word, word.capitalize(), word.upper()}:
            for context in (f"x {variant}. y", f"x {variant}. Y", f"x {variant}. 5", f"x {variant}."):
                tokens = scan_caption(context, 0, len(context))
                if tokens[1] != word and word not in ABBREVIATION_WORDS:
                    missing.append((context, tokens))
    assert missing == []
