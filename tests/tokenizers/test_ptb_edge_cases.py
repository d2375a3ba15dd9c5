"""Edge cases of the PTB tokenizer: empty and odd input, Unicode, line breaks, lookahead, errors."""

from __future__ import annotations

import doctest

import pytest

import capeval.tokenizers.ptb as ptb_module
from capeval.tokenizers.base import Tokenizer, get_tokenizer
from capeval.tokenizers.ptb import PTBTokenizer

LINE_BREAKS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c"]


@pytest.fixture(scope="module")
def tok() -> PTBTokenizer:
    return PTBTokenizer()


def test_protocol_and_registry() -> None:
    tokenizer = get_tokenizer("ptb")
    assert isinstance(tokenizer, PTBTokenizer)
    assert isinstance(tokenizer, Tokenizer)
    assert tokenizer.name == "ptb"


def test_docstring_examples() -> None:
    assert doctest.testmod(ptb_module).failed == 0


def test_empty_inputs(tok: PTBTokenizer) -> None:
    assert tok.tokenize([]) == []
    assert tok.tokenize([""]) == [""]
    assert tok.tokenize(["", "", ""]) == ["", "", ""]
    assert tok.tokenize(["   ", "\t", "a"]) == ["", "", "a"]
    assert tok.tokenize(("A dog.",)) == ["a dog"]  # any sequence


PUNCTUATION_ONLY = [".", "...", "- - -", "?", "!", ",,,", "''", '"', "`", "--", ";:", "\u2014", "\u2026"]


@pytest.mark.parametrize("caption", PUNCTUATION_ONLY)
def test_punctuation_only(tok: PTBTokenizer, caption: str) -> None:
    assert tok.tokenize([caption, "A cat."]) == ["", "a cat"]


def test_punctuation_runs_outside_the_filter_list_stay(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["!?", "Wow!!!", "a & b", "50%", "#1"]) == ["!?", "wow !!!", "a & b", "50 %", "# 1"]


def test_brackets_survive_the_filter(tok: PTBTokenizer) -> None:
    # -lowerCase runs after escaping, so the lower-case escapes are not in the (upper-case) filter list.
    assert tok.tokenize(["((("]) == ["-lrb- -lrb- -lrb-"]
    assert tok.tokenize(["A man (in a hat) with a [red] bike {fast}."]) == [
        "a man -lrb- in a hat -rrb- with a -lsb- red -rsb- bike -lcb- fast -rcb-"
    ]


def test_very_long_captions(tok: PTBTokenizer) -> None:
    words = [f"word{i}" for i in range(20_000)]
    assert tok.tokenize([" ".join(words) + "."]) == [" ".join(words)]
    tricky = "The man's t-shirt (red) isn't 1,000 $. " * 2_000
    expected = " ".join(["the man 's t-shirt -lrb- red -rrb- is n't 1,000 $"] * 2_000)
    assert tok.tokenize([tricky]) == [expected]


def test_non_ascii(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["A café with naïve Zürich decor."]) == ["a café with naïve zürich decor"]
    assert tok.tokenize(["A sign in 日本語 and Русский."]) == ["a sign in 日本語 and русский"]
    assert tok.tokenize(["Greek word ΟΔΟΣ on a wall."]) == ["greek word οδος on a wall"]
    assert tok.tokenize(["A book titled “The Road” on a table."]) == ["a book titled the road on a table"]
    assert tok.tokenize(["½ a sandwich, £2 and €3."]) == ["1/2 a sandwich # 2 and $ 3"]


def test_emoji_and_invisible_characters_are_dropped(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["A dog 🐶 and a cat 🐱 emoji."]) == ["a dog and a cat emoji"]
    assert tok.tokenize(["\ufeffA caption with a BOM."]) == ["a caption with a bom"]
    assert tok.tokenize(["A man\u200dwith a joiner."]) == ["a man with a joiner"]
    assert tok.tokenize(["soft\u00adhyphen"]) == ["softhyphen"]


def test_spaces_tabs_and_no_break_spaces(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["  A\tcat \u00a0 on\u2003a   mat.  "]) == ["a cat on a mat"]
    # A no-break space inside a fraction or phone number stays in the token (the filter splits on " ").
    assert tok.tokenize(["1 1/2 cups"]) == ["1\u00a01/2 cups"]
    assert tok.tokenize(["call (555) 123-4567 now"]) == ["call -lrb-555-rrb-\u00a0123-4567 now"]


@pytest.mark.parametrize("line_break", LINE_BREAKS)
def test_line_breaks_never_shift_captions(tok: PTBTokenizer, line_break: str) -> None:
    captions = [f"A dog{line_break}running.", "A cat sitting.", "A bird flying."]
    assert tok.tokenize(captions) == ["a dog running", "a cat sitting", "a bird flying"]


def test_next_line_character_is_an_ellipsis(tok: PTBTokenizer) -> None:
    # The official lexer turns U+0085 into "..." (in line), which the filter removes.
    assert tok.tokenize(["A horse\u0085galloping.", "x"]) == ["a horse galloping", "x"]


@pytest.mark.parametrize(
    ("following", "expected"),
    [
        ("A sign.", "the letter b"),  # sentence start after a one-letter acronym: the period splits off
        ("a sign.", "the letter b."),
        ("It is red.", "the letter b"),
        ("There is a sign.", "the letter b"),
        ("Zebra.", "the letter b."),  # not in the sentence-start list
        ("", "the letter b."),
    ],
)
def test_next_caption_changes_the_last_token(tok: PTBTokenizer, following: str, expected: str) -> None:
    assert tok.tokenize(["The letter B.", following])[0] == expected
    assert tok.tokenize(["The letter B.", "", "  ", following])[0] == expected  # lookahead skips blank captions


def test_lookahead_at_the_end_of_the_stream(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["The letter B."]) == ["the letter b."]
    assert tok.tokenize(["Apples, pears etc."]) == ["apples pears etc."]
    assert tok.tokenize(["Made in the U.S.", "The flag."]) == ["made in the u.s.", "the flag"]


def test_two_letter_clitic_at_the_very_end(tok: PTBTokenizer) -> None:
    # With nothing after "'re" the official lexer's quote heuristic wins ("` re"); the backquote is
    # filtered. Anything after it (even another caption) makes it the clitic "'re".
    assert tok.tokenize(["We're here", "They're"]) == ["we 're here", "they re"]
    assert tok.tokenize(["They're", "x"]) == ["they 're", "x"]
    assert tok.tokenize(["It's"]) == ["it 's"]
    assert tok.tokenize(["I don't"]) == ["i do n't"]


def test_one_call_is_one_stream(tok: PTBTokenizer) -> None:
    # Batching changes results exactly where the official tokenizer's stream does.
    together = tok.tokenize(["The letter B.", "A sign."])
    apart = tok.tokenize(["The letter B."]) + tok.tokenize(["A sign."])
    assert together == ["the letter b", "a sign"]
    assert apart == ["the letter b.", "a sign"]


def test_contractions_and_quotes(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["They don't, can't, won't go."]) == ["they do n't ca n't wo n't go"]
    assert tok.tokenize(["It's a dog's life, isn't it?"]) == ["it 's a dog 's life is n't it"]
    assert tok.tokenize(['A sign that says "STOP" on a pole.']) == ["a sign that says stop on a pole"]
    assert tok.tokenize(["I cannot believe we're gonna wanna go."]) == ["i can not believe we 're gon na wan na go"]


def test_surrogates_do_not_crash(tok: PTBTokenizer) -> None:
    assert tok.tokenize(["a \ud83d b"]) == ["a b"]


def test_rejects_a_single_string(tok: PTBTokenizer) -> None:
    with pytest.raises(ValueError, match="sequence of captions"):
        tok.tokenize("a single string")


def test_rejects_bytes(tok: PTBTokenizer) -> None:
    # Iterating bytes gives ints: the first item is reported.
    with pytest.raises(ValueError, match="caption 0 is int"):
        tok.tokenize(b"bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [None, 3, b"x", ["x"]])
def test_rejects_non_string_items(tok: PTBTokenizer, bad: object) -> None:
    with pytest.raises(ValueError, match=f"caption 2 is {type(bad).__name__}, expected str"):
        tok.tokenize(["a", "b", bad, "d"])  # type: ignore[list-item]


def test_the_official_wrapper_strips_each_line(tok: PTBTokenizer) -> None:
    """The jar prints ``http://x.org/a\\u00a0`` (a URL may end in a no-break space); pycocoevalcap's
    wrapper then strips the output line with ``str.rstrip``, which removes any Unicode space."""
    assert tok.tokenize(["see http://x.org/a\u00a0", "b"]) == ["see http://x.org/a", "b"]
    assert tok.tokenize(["see http://x.org/a\u00a0b c"]) == ["see http://x.org/a\u00a0b c"]
