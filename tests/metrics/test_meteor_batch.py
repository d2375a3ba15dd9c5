"""Batch normalization of METEOR segments equals normalizing each segment on its own."""

from __future__ import annotations

import random

import pytest

from capeval.metrics.meteor._batch import WordIndex, segment_tokens
from capeval.metrics.meteor._normalize import normalize_tokens

PREFIXES = {"Mr": False, "No": True, "e.g": False}
PIECES = [
    "a", "Dog", "runs", "3", "42", "Mr.", "No. 5", "e.g.", "U.S.A.", "don't", "'s", "--", "...", ",", "x,y",
    "café", "naïve", "\u2019", "\u201c", "(", ")", "#", "&", "well-known", "1,000", "  ", "\t", "A", "ZEBRA",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(5))
def test_batch_equals_one_by_one(seed: int) -> None:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 12))).strip() for _ in range(400)]
    texts += ["", "a", "plain ascii words only", "UPPER case 123", "a DOTMULTI b", "DOTMULTI"]
    _assert_batch_equals_one_by_one(texts, WordIndex(["a", "dog", "Dog", "zebra"]))


def _assert_batch_equals_one_by_one(texts: list[str], index: WordIndex) -> None:
    counts, ids = segment_tokens(texts, PREFIXES, index)
    words = dict(enumerate(index.words(0, len(index))))
    pos = 0
    for text, count in zip(texts, counts.tolist(), strict=True):
        assert [words[i] for i in ids[pos : pos + count].tolist()] == normalize_tokens(text, PREFIXES), text
        pos += count
    assert pos == len(ids)


#: Pieces of segments normalized token by token (hyphens and apostrophes only), with the
#: apostrophes at token edges that make a segment be normalized whole.
APOS_PIECES = [
    "a", "Dog", "9", "'s", "n't", "o'clock", "don't", "dogs'", "'", "''", "'9", "9'", "9'9", "x'-y", "'-'",
    "-", "--", "-lrb-", "a-b-c", "well-known", "T-shirt", "rock-'n'-roll", "'Tis", "DOTMULTI", "xDOTDOTMULTIy",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(5))
def test_hyphen_and_apostrophe_segments(seed: int) -> None:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(APOS_PIECES) for _ in range(rng.randrange(1, 8))) for _ in range(600)]
    texts += ["a 9' '9 b", "x' 's", "a dog's tail", "a close-up of a t-shirt", "''", "' '"]
    _assert_batch_equals_one_by_one(texts, WordIndex([]))


def test_line_breaks_are_refused() -> None:
    with pytest.raises(ValueError, match="line breaks"):
        segment_tokens(["a\nb"], PREFIXES, WordIndex([]))


def test_word_index_ids() -> None:
    index = WordIndex(["a", "b", "a", "caf\u00e9"])  # a repeated word keeps its last id, as in a dict
    assert index.ids_of(["a", "b", "caf\u00e9"]).tolist() == [3, 2, 4]
    assert index.n_given == 5
    many = [f"w{i}" for i in range(5000)]  # the table grows
    ids = index.ids_of([*many, "b", *many])
    assert ids.tolist() == [*range(5, 5005), 2, *range(5, 5005)]
    assert index.words(5, 8) == ["w0", "w1", "w2"]
    assert len(index) == 5005
    with pytest.raises(ValueError, match="positive"):
        WordIndex(["x"], [0])


@pytest.mark.parametrize(
    "text", ["", "a", "a\nb\na", "dog\ncat\n\nbird", "caf\u00e9\nx\u00e9y\nz", "\n".join(map(str, range(3000)))]
)
def test_word_index_of_lines_is_the_index_of_the_split_text(text: str) -> None:
    words = text.split("\n")
    split, lines = WordIndex(words), WordIndex.of_lines(text)
    assert (lines.n_given, len(lines)) == (split.n_given, len(split))
    queries = [*words, "new", "caf\u00e9", "x", "new"]
    assert lines.ids_of(queries).tolist() == split.ids_of(queries).tolist()
    assert lines.words(1, len(lines)) == split.words(1, len(split))


def test_clean_applies_to_segments_that_need_normalizing() -> None:
    index = WordIndex([])
    texts = ["a  b", "\tx,  y.", "c d"]
    seen: list[int] = []
    counts, ids = segment_tokens(texts, PREFIXES, index, lambda i, t: seen.append(i) or t.strip())
    assert seen == [1]  # plain segments' words do not depend on the clean-up
    expected = ["a", "b", *normalize_tokens("x,  y.", PREFIXES), "c", "d"]
    assert counts.tolist() == [2, len(expected) - 4, 2]
    assert [index.words(i, i + 1)[0] for i in ids.tolist()] == expected
