"""Metrics scored on the same text in one run split it into words once (``shared_encodings``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from capeval import get_metric
from capeval.metrics import ngrams
from capeval.metrics.ngrams import encode_words, shared_encodings


def test_equal_lists_share_one_encoding_inside_the_block_only() -> None:
    text = ["a b  c", "b c"]
    assert encode_words(list(text)) is not encode_words(list(text))
    with shared_encodings():
        first = encode_words(list(text))
        assert encode_words(list(text)) is first  # an equal list
        assert encode_words(list(text), sep=" ") is not first  # another separator: other words
        assert encode_words(["a b c", "b c"]) is not first
        assert encode_words(tuple(text)) is not first  # only lists are kept
        np.testing.assert_array_equal(first[0], encode_words(list(text), sep=None)[0])
    assert ngrams._SHARED.get() is None
    assert encode_words(list(text)) is not first


def test_sharing_metrics_give_the_same_numbers_and_leave_the_encoding_unchanged(demo_tokenized: Any) -> None:
    _, cands, refs = demo_tokenized
    metrics = [get_metric(key, tokenizer="none") for key in ("bleu", "cider-d", "rouge-l")]
    alone = [m.item_stats(cands, refs, m.prepare(refs)) for m in metrics]
    flat = [*cands, *(r for item in refs for r in item)]
    with shared_encodings():
        kept = encode_words(flat)
        before = [np.array(a, copy=True) for a in kept[:2]]
        shared = [m.item_stats(cands, refs, m.prepare(refs)) for m in metrics]
        assert encode_words(flat) is kept
        for a, b in zip(kept[:2], before, strict=True):
            np.testing.assert_array_equal(a, b)  # no metric wrote to the shared arrays
    for a, b in zip(alone, shared, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
