"""Leave-one-out human agreement and word-level human precision/recall."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from capeval.meta_eval import human_agreement, leave_one_out, pk_model_curve, precision_at_recall, word_human_agreement


class _Tokenizer:
    name = "ws"

    def __init__(self) -> None:
        self.calls = 0

    def tokenize(self, texts: Sequence[str]) -> list[str]:
        self.calls += 1
        return [" ".join(t.lower().split()) for t in texts]


class _Result:
    def __init__(self, score: float, signature: str) -> None:
        self.score = score
        self.scores = {"unigram-recall": score}
        self.signature = signature


class UnigramRecall:
    """A tiny metric: mean over items of the fraction of candidate words found in any reference."""

    name = "unigram-recall"

    def __init__(self, tokenizer: _Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.seen_references: list[list[list[str]]] = []

    def score_tokenized(
        self, *, candidates: Sequence[str], references: Sequence[Sequence[str]], ids: object
    ) -> _Result:
        self.seen_references.append([list(r) for r in references])
        values = []
        for cand, refs in zip(candidates, references, strict=True):
            vocab = {w for r in refs for w in r.split()}
            words = cand.split()
            values.append(sum(w in vocab for w in words) / len(words))
        return _Result(float(np.mean(values)), f"unigram-recall|nrefs:{len(references[0])}")


CAPTIONS = {
    1: ["a dog runs", "a dog", "dog on grass", "the dog runs fast", "a puppy", "extra caption ignored"],
    2: ["a cat", "the cat sits", "a cat sits", "cat on a mat", "a small cat"],
}


def test_folds_hold_out_each_position() -> None:
    folds = leave_one_out(CAPTIONS, n_captions=5)
    assert [f.held_out for f in folds] == [0, 1, 2, 3, 4]
    assert folds[2].candidates == ("dog on grass", "a cat sits")
    assert folds[2].references[0] == ("a dog runs", "a dog", "the dog runs fast", "a puppy")
    short = leave_one_out(CAPTIONS, n_captions=5, n_references=2, folds=[4])
    assert short[0].references[1] == ("a cat", "the cat sits")


def test_table_is_mean_over_folds_and_tokenizes_once() -> None:
    tokenizer = _Tokenizer()
    metric = UnigramRecall(tokenizer)
    table = human_agreement(CAPTIONS, [metric], n_captions=5)
    assert tokenizer.calls == 1
    assert (table.n_images, table.n_captions, table.n_references) == (2, 5, 4)
    assert len(table.folds) == 5
    # fold 0 by hand: "a dog runs" vs 4 refs -> 3/3; "a cat" -> 2/2
    assert table.folds[0]["unigram-recall"] == pytest.approx(1.0)
    # fold 4: "a puppy" -> "a" found, "puppy" not -> 1/2; "a small cat" -> "small" missing -> 2/3
    assert table.folds[4]["unigram-recall"] == pytest.approx((0.5 + 2 / 3) / 2)
    values = [f["unigram-recall"] for f in table.folds]
    assert table.mean["unigram-recall"] == pytest.approx(np.mean(values))
    assert table.std["unigram-recall"] == pytest.approx(np.std(values, ddof=1))
    assert table.signatures == {"unigram-recall": "unigram-recall|nrefs:4"}


def test_errors() -> None:
    with pytest.raises(ValueError, match="image 2 has 5 captions; 6 are needed"):
        leave_one_out(CAPTIONS, n_captions=6)
    with pytest.raises(ValueError, match="n_references"):
        leave_one_out(CAPTIONS, n_captions=5, n_references=5)
    with pytest.raises(ValueError, match="no metrics"):
        human_agreement(CAPTIONS, [])
    with pytest.raises(ValueError, match="fold 7"):
        leave_one_out(CAPTIONS, folds=[7])


def test_word_agreement_counts_and_pk_model() -> None:
    caps = {1: ["a dog runs", "a dog", "dog on grass"], 2: ["a cat", "the cat", "a cat sits"]}
    words = word_human_agreement(caps, n_captions=3)
    # "a": image 1 held-out 0 and 1 both predict "a" and truth contains it; held-out 2 truth has "a".
    a = words["a"]
    assert (a.predicted, a.relevant, a.true_positives) == (4, 6, 4)
    assert a.precision == pytest.approx(1.0) and a.recall == pytest.approx(4 / 6)
    assert a.model_precision == pytest.approx(1 - (1 - 4 / 6) ** 2)
    runs = words["runs"]
    assert (runs.predicted, runs.relevant, runs.true_positives) == (1, 2, 0)
    assert pk_model_curve([0.25], 4).tolist() == pytest.approx([1 - 0.75**4])


def test_precision_at_recall() -> None:
    scores = [0.9, 0.8, 0.8, 0.3, 0.2]
    labels = [1, 0, 1, 0, 1]
    # recall 1/3 reached at the first item (precision 1); 2/3 needs both 0.8s (tie kept together)
    assert precision_at_recall(scores, labels, 1 / 3) == 1.0
    assert precision_at_recall(scores, labels, 2 / 3) == pytest.approx(2 / 3)
    assert precision_at_recall(scores, labels, 1.0) == pytest.approx(3 / 5)
    assert np.isnan(precision_at_recall([0.1], [0], 0.5))
    with pytest.raises(ValueError, match="recall"):
        precision_at_recall(scores, labels, 0.0)
