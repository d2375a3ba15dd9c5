"""CIDEr-D / CIDEr with frozen document frequencies: the compiled path against the vectorized
one and against the official values, chunking, and the fallbacks."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from capeval.metrics import _cider_kernel
from capeval.metrics.cider import CIDEr, CIDErD, DocumentFrequencies

#: Acceptance bound on |capeval - official| per image and per corpus.
TOLERANCE = 1e-9

WORDS = "a an the dog dogs cat man woman bike red blue on in with of is are sitting running table street".split()


def _random_batch(rng: random.Random, n_items: int, per_item: int) -> tuple[list[str], list[int], list[list[str]]]:
    def sentence(words: list[str]) -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 14)))

    unseen = [f"zz{i}" for i in range(6)]  # words absent from the frozen corpus
    references = [[sentence(WORDS) for _ in range(rng.randint(1, 5))] for _ in range(n_items)]
    items = [i for i in range(n_items) for _ in range(per_item)]
    rng.shuffle(items)
    candidates = [sentence(WORDS + unseen) for _ in items]
    return candidates, items, references


def _vectorized(monkeypatch: pytest.MonkeyPatch, metric: Any, *args: Any) -> np.ndarray:
    with monkeypatch.context() as patch:
        patch.setattr(_cider_kernel, "available", lambda n, n_vocab: False)
        return metric.score_batch(*args)


@pytest.mark.parametrize("metric_cls", [CIDErD, CIDEr])
@pytest.mark.parametrize("n", [1, 2, 4])
def test_compiled_equals_vectorized(monkeypatch: pytest.MonkeyPatch, metric_cls: type, n: int) -> None:
    rng = random.Random(n)
    train = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))) for _ in range(5)] for _ in range(300)]
    df = DocumentFrequencies.from_references(train, name="train")
    metric = metric_cls(tokenizer="none", df=df, n=n)
    assert _cider_kernel.available(n, len(df.vocab))
    for _ in range(20):
        batch = _random_batch(rng, rng.randint(1, 12), rng.randint(1, 6))
        compiled = metric.score_batch(*batch)
        vectorized = _vectorized(monkeypatch, metric, *batch)
        np.testing.assert_allclose(compiled, vectorized, rtol=1e-12, atol=1e-13)


def test_empty_and_one_word_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    df = DocumentFrequencies.from_references([["a dog runs"], ["a cat"]])
    metric = CIDErD(tokenizer="none", df=df)
    args = (["", "dog", "a dog runs", "unseen words only"], [0, 0, 1, 1], [["a dog runs", ""], ["cat", "a cat sits"]])
    compiled = metric.score_batch(*args)
    np.testing.assert_allclose(compiled, _vectorized(monkeypatch, metric, *args), rtol=1e-12, atol=1e-13)
    assert compiled[0] == 0.0 and np.isfinite(compiled).all()


def test_frozen_df_of_the_references_matches_official_demo(demo_official: dict[str, Any],
                                                           demo_tokenized: Any) -> None:
    # Frequencies frozen from the evaluated references are the official corpus mode's.
    ids, cands, refs = demo_tokenized
    metric = CIDErD(tokenizer="none", df=DocumentFrequencies.from_references(refs))
    scores = metric.score_batch(cands, np.arange(len(cands)), refs)
    official = np.array([demo_official["per_image"][i]["CIDEr"] for i in ids])
    assert np.abs(scores - official).max() <= TOLERANCE
    assert abs(scores.mean() - demo_official["corpus"]["CIDEr"]) <= TOLERANCE


def test_chunks_of_whole_items_give_the_same_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    candidates, items, references = _random_batch(rng, 40, 3)
    metric = CIDErD(tokenizer="none", df=DocumentFrequencies.from_references(references))
    whole = metric.score_batch(candidates, items, references)
    monkeypatch.setattr(_cider_kernel, "CHUNK_SENTENCES", 17)
    np.testing.assert_array_equal(metric.score_batch(candidates, items, references), whole)


def test_too_many_words_for_packed_keys_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    df = DocumentFrequencies.from_references(REFS_SMALL)
    metric = CIDErD(tokenizer="none", df=df)
    args = (["a dog x1 x2 x3", "a cat"], [0, 1], REFS_SMALL)
    expected = metric.score_batch(*args)
    # Room for the frozen vocabulary but not for the batch's unseen words: the vectorized path answers.
    monkeypatch.setattr(_cider_kernel, "MAX_WORDS", len(df.vocab) + 2)
    assert _cider_kernel.encode_frozen(args[0], df._word_index, len(df.vocab)) is None
    np.testing.assert_allclose(metric.score_batch(*args), expected, rtol=1e-12)
    assert not _cider_kernel.available(5, len(df.vocab))  # five words do not fit in 64 bits


def test_encode_frozen_ids() -> None:
    df = DocumentFrequencies.from_references([["a dog", "the cat"]])
    index = df._word_index
    ids, starts = _cider_kernel.encode_frozen(["a  dog\tnew", "", "new other a"], index, len(df.vocab))
    v = len(df.vocab)
    assert starts.tolist() == [0, 3, 3, 6]
    assert ids.tolist() == [index["a"], index["dog"], v, v, v + 1, index["a"]]


def test_hash_tables_hold_every_frozen_ngram() -> None:
    rng = random.Random(3)
    train = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 10))) for _ in range(3)] for _ in range(200)]
    df = DocumentFrequencies.from_references(train)
    tables = df.hash_tables()
    assert tables is df.hash_tables()  # built once
    for k in range(2, df.n + 1):
        lo, hi = int(tables.table_start[k]), int(tables.table_start[k + 1])
        size = hi - lo
        assert size & (size - 1) == 0  # a power of two
        n_grams = int(df.offsets[k] - df.offsets[k - 1])
        assert np.count_nonzero(tables.values[lo:hi]) == n_grams
        assert n_grams <= size * 0.7
        assert sorted(tables.values[lo:hi][tables.values[lo:hi] > 0].tolist()) == sorted(
            df.df[df.offsets[k - 1]:df.offsets[k]].tolist())


REFS_SMALL = [["a dog runs", "the dog is running"], ["a cat is sleeping"]]
