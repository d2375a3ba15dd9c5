"""CIDEr-D / CIDEr compiled path (frozen document frequencies and those of the evaluated
references) against the vectorized one and the official values; chunking; the fallbacks."""

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


def test_frozen_df_of_the_references_matches_official_demo(demo_official: dict[str, Any], demo_tokenized: Any) -> None:
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
    for threads in (1, 3):  # runs scored in this thread, or in several (the default: available CPUs)
        monkeypatch.setattr(_cider_kernel, "_available_cpus", lambda threads=threads: threads)
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


def _index_as_dict(index: _cider_kernel.GramIndex, vocab: tuple[str, ...]) -> dict[str, float]:
    out = {}
    for key, order, value in zip(
        index.gram_key.tolist(), index.gram_order.tolist(), index.gram_df.tolist(), strict=True
    ):
        words = [vocab[(key >> (16 * (order - 1 - j))) & 0xFFFF] for j in range(order)]
        out[" ".join(words)] = value
    return out


def test_hash_tables_hold_every_frozen_ngram() -> None:
    rng = random.Random(3)
    train = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 10))) for _ in range(3)] for _ in range(200)]
    df = DocumentFrequencies.from_references(train)
    index = df.hash_tables()
    assert index is df.hash_tables()  # built once
    size = index.slot_gram.shape[0]
    assert size & (size - 1) == 0 and 2 * index.gram_key.shape[0] <= size  # a power of two, at most half full
    grams = _index_as_dict(index, df.vocab)
    assert len(grams) == df.df.shape[0]
    assert all(df.get(g) == v for g, v in grams.items())
    assert sorted(index.slot_gram[index.slot_gram >= 0].tolist()) == list(range(len(grams)))


def test_reference_index_counts_documents_like_the_vectorized_counter() -> None:
    from capeval.metrics.ngrams import encode_words

    rng = random.Random(4)
    refs = [
        [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 10))) for _ in range(rng.randint(1, 4))]
        for _ in range(300)
    ]  # 300 items: the table grows several times
    ids, lengths, vocab = encode_words([r for item in refs for r in item])
    starts = np.concatenate(([0], np.cumsum(lengths)))
    item_start = np.concatenate(([0], np.cumsum([len(item) for item in refs])))
    index = _cider_kernel.reference_index(ids, starts, item_start, 4, len(vocab))
    expected = DocumentFrequencies.from_references(refs)
    grams = _index_as_dict(index, vocab)
    assert len(grams) == expected.df.shape[0]
    assert all(expected.get(g) == v for g, v in grams.items())


@pytest.mark.parametrize("metric_cls", [CIDErD, CIDEr])
def test_compiled_reference_frequencies_equal_vectorized(monkeypatch: pytest.MonkeyPatch, metric_cls: type) -> None:
    rng = random.Random(5)
    metric = metric_cls(tokenizer="none")
    for _ in range(10):
        batch = _random_batch(rng, rng.randint(1, 30), rng.randint(1, 4))
        np.testing.assert_allclose(
            metric.score_batch(*batch), _vectorized(monkeypatch, metric, *batch), rtol=1e-12, atol=1e-13
        )
    candidates, items, references = _random_batch(rng, 200, 2)
    whole = metric.score_batch(candidates, items, references)
    monkeypatch.setattr(_cider_kernel, "CHUNK_SENTENCES", 23)  # runs of whole items, same frequencies
    np.testing.assert_array_equal(metric.score_batch(candidates, items, references), whole)


REFS_SMALL = [["a dog runs", "the dog is running"], ["a cat is sleeping"]]


def test_compiled_document_frequencies_equal_the_vectorized_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(6)
    refs = [
        [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 5))]
        for _ in range(400)
    ]
    compiled = DocumentFrequencies.from_references(refs, name="x")
    with monkeypatch.context() as patch:
        patch.setattr(_cider_kernel, "frequency_table", lambda references, n: None)
        vectorized = DocumentFrequencies.from_references(refs, name="x")
    assert compiled.vocab == vectorized.vocab and compiled.n_documents == vectorized.n_documents
    for field in ("prefix", "last_word", "offsets", "df"):
        np.testing.assert_array_equal(getattr(compiled, field), getattr(vectorized, field))
    assert compiled.hash_tables() is compiled._tables[0]  # the index of the same counts, built once


def test_one_image_with_its_own_document_frequencies_warns_that_every_score_is_zero() -> None:
    from capeval.metrics.cider import OneDocumentWarning

    refs = [["a dog running in a field", "the dog is on the grass"]]
    for metric in (CIDErD(tokenizer="none"), CIDEr(tokenizer="none")):
        with pytest.warns(OneDocumentWarning, match=r"single image make every idf log\(1/1\) = 0") as caught:
            result = metric.score(candidates=["a dog runs on the grass"], references=refs)
        assert caught[0].filename == __file__  # at the calling line, not inside capeval
        assert result.item_scores.tolist() == [0.0]
        with pytest.warns(OneDocumentWarning):
            assert metric.score_batch(["a dog", "the dog"], [0, 0], refs).tolist() == [0.0, 0.0]
    # Two images, or frozen frequencies: no warning, and scores that are not all 0.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", OneDocumentWarning)
        two = CIDErD(tokenizer="none").score(
            candidates=["a dog runs on the grass", "a cat"], references=[*refs, ["a cat sleeping"]]
        )
        assert two.item_scores[0] > 0
        frozen = DocumentFrequencies.from_references([*refs, ["a cat sleeping"]], n=4)
        assert CIDErD(df=frozen, tokenizer="none").score_batch(["a dog runs"], [0], refs)[0] > 0
