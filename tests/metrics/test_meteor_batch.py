"""Batch normalization of METEOR segments equals normalizing each segment on its own."""

from __future__ import annotations

import random

import pytest

from capeval.metrics.meteor._batch import segment_tokens
from capeval.metrics.meteor._normalize import normalize_tokens

PREFIXES = {"Mr": False, "No": True, "e.g": False}
PIECES = [
    "a", "Dog", "runs", "3", "42", "Mr.", "No. 5", "e.g.", "U.S.A.", "don't", "'s", "--", "...", ",", "x,y",
    "café", "naïve", "\u2019", "\u201c", "(", ")", "#", "&", "well-known", "1,000", "  ", "\t", "A", "ZEBRA",
]  # fmt: skip


def _ids_of(vocab: dict[str, int]):  # noqa: ANN202
    def ids_of(words: list[str]) -> list[int]:
        return [vocab.setdefault(w, len(vocab)) for w in words]

    return ids_of


@pytest.mark.parametrize("seed", range(5))
def test_batch_equals_one_by_one(seed: int) -> None:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 12))).strip() for _ in range(400)]
    texts += ["", "a", "plain ascii words only", "UPPER case 123"]
    vocab: dict[str, int] = {}
    counts, ids = segment_tokens(texts, PREFIXES, _ids_of(vocab))
    words = {i: w for w, i in vocab.items()}
    pos = 0
    for text, count in zip(texts, counts.tolist(), strict=True):
        assert [words[i] for i in ids[pos : pos + count].tolist()] == normalize_tokens(text, PREFIXES), text
        pos += count
    assert pos == len(ids)


def test_line_breaks_are_refused() -> None:
    with pytest.raises(ValueError, match="line breaks"):
        segment_tokens(["a\nb"], PREFIXES, _ids_of({}))
