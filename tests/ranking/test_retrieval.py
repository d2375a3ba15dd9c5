"""R@k, median/mean rank, S@k, R-precision and Borda against brute-force definitions."""

from __future__ import annotations

import numpy as np
import pytest

from capeval.ranking import (
    annotation_relevance,
    binarize,
    blocks,
    borda_aggregate,
    evaluate_ranking,
    first_relevant_ranks,
    r_precision,
    scores_to_ranks,
    success_at_k,
)


def _brute_first_rank(row: np.ndarray, gold: set[int], ties: str) -> int:
    """Rank of the first gold item by counting, per the tie rule's definition."""
    best = None
    for g in gold:
        better = sum(1 for j, v in enumerate(row) if v > row[g])
        tied = [j for j, v in enumerate(row) if v == row[g] and j != g]
        if ties == "pessimistic":
            rank = better + sum(1 for j in tied if j not in gold) + 1
            rank += sum(1 for j in tied if j in gold and j < g)  # gold items among ties keep pool order
        elif ties == "optimistic":
            rank = better + sum(1 for j in tied if j in gold and j < g) + 1
        else:
            rank = better + sum(1 for j in tied if j < g) + 1
        best = rank if best is None else min(best, rank)
    assert best is not None
    return best


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "index"])
@pytest.mark.parametrize("task", ["annotation", "search"])
def test_matches_brute_force(ties: str, task: str) -> None:
    rng = np.random.default_rng(3)
    n_images, per = 12, 5
    scores = np.round(rng.random((n_images, n_images * per)), 1)  # many ties
    gold = blocks(n_images * per, per)
    result = evaluate_ranking(scores, gold, task=task, ks=(1, 5, 10), ties=ties)
    if task == "annotation":
        expected = [_brute_first_rank(scores[i], {c for c, g in enumerate(gold) if g == i}, ties) for i in range(12)]
    else:
        expected = [_brute_first_rank(scores[:, c], {gold[c]}, ties) for c in range(scores.shape[1])]
    assert result.ranks.tolist() == expected
    for k in (1, 5, 10):
        assert result.recall[k] == pytest.approx(np.mean(np.array(expected) <= k))
    assert result.median_rank == pytest.approx(np.median(expected))
    assert result.mean_rank == pytest.approx(np.mean(expected))


def test_hand_example() -> None:
    # 2 images, 4 captions (2 each). Image 0 ranks captions [c1, c0, c3, c2]; image 1 ranks [c0, c3, c2, c1].
    scores = np.array([[0.8, 0.9, 0.1, 0.2], [0.9, 0.1, 0.5, 0.6]])
    gold = [0, 0, 1, 1]
    ann = evaluate_ranking(scores, gold, task="annotation", ks=(1, 2))
    assert ann.ranks.tolist() == [1, 2] and ann.recall == {1: 0.5, 2: 1.0}
    search = evaluate_ranking(scores, gold, task="search", ks=(1,))
    # caption c0: image 1 (0.9) before image 0 (0.8) -> rank 2; c1 -> 1; c2 -> 1; c3 -> 1
    assert search.ranks.tolist() == [2, 1, 1, 1] and search.recall[1] == 0.75
    assert search.median_rank == 1.0 and search.mean_rank == 1.25


def test_success_and_r_precision() -> None:
    scores = np.array([[0.9, 0.8, 0.7, 0.6], [0.1, 0.4, 0.3, 0.2], [0.5, 0.5, 0.5, 0.5]])
    judgments = np.array([[4, 1, 3, np.nan], [1, 1, 2, 4], [1, 1, 1, 1]])
    relevant = binarize(judgments, 3)
    assert relevant.tolist()[0] == [True, False, True, False]
    assert success_at_k(scores, relevant, 1) == pytest.approx(1 / 3)
    assert success_at_k(scores, relevant, 2) == pytest.approx(1 / 3)  # query 1: relevant item ranked 3rd
    assert success_at_k(scores, relevant, 3) == pytest.approx(2 / 3)
    assert success_at_k(scores, relevant, 4) == pytest.approx(2 / 3)  # query 2 has nothing relevant
    value, counted = r_precision(scores, relevant)
    # query 0: R = 2, top-2 = [rel, not] -> 0.5; query 1: R = 1, top-1 not relevant -> 0; query 2 skipped
    assert (value, counted) == (pytest.approx(0.25), 2)


def test_tie_rules_on_constant_scores() -> None:
    scores = np.zeros((1, 4))
    relevant = np.array([[False, False, True, False]])
    assert first_relevant_ranks(scores, relevant, ties="pessimistic").tolist() == [4]
    assert first_relevant_ranks(scores, relevant, ties="optimistic").tolist() == [1]
    assert first_relevant_ranks(scores, relevant, ties="index").tolist() == [3]


def test_borda_median_tie_break_and_scores_to_ranks() -> None:
    assert scores_to_ranks([[0.2, 0.9, 0.2, 0.1]]).tolist() == [[2, 1, 2, 4]]
    points, ranks = borda_aggregate([[[1, 2, 3, 4]], [[1, 3, 4, 2]], [[1, 3, 4, 2]]], are_ranks=True)
    assert points.tolist() == [[9, 4, 1, 4]]
    assert ranks.tolist() == [[1, 3, 4, 2]]
    # from scores: the same thing
    _, from_scores = borda_aggregate([[[4, 3, 2, 1]], [[4, 2, 1, 3]], [[4, 2, 1, 3]]])
    assert from_scores.tolist() == [[1, 3, 4, 2]]
    with pytest.raises(ValueError, match="ranking 1 has shape"):
        borda_aggregate([np.zeros((2, 3)), np.zeros((2, 4))])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: evaluate_ranking(np.zeros((2, 3)), [0, 1]), "2 captions but scores have 3 columns"),
        (lambda: evaluate_ranking(np.zeros((2, 2)), [0, 0]), "query 1 has no gold item"),
        (lambda: evaluate_ranking(np.zeros((2, 2)), [0, 5]), "points to query 5"),
        (lambda: evaluate_ranking(np.array([[np.nan, 1.0]]), [0, 0]), "query 0, pool item 0 is NaN"),
        (lambda: evaluate_ranking(np.zeros((1, 2)), [0, 0], task="caption"), "task"),
        (lambda: evaluate_ranking(np.zeros((1, 2)), [0, 0], ties="random"), "ties"),
        (lambda: annotation_relevance([]), "non-empty"),
        (lambda: blocks(7, 5), "groups of 5"),
        (lambda: r_precision(np.zeros((1, 2)), np.zeros((1, 2))), "no query has a relevant item"),
    ],
)
def test_bad_input(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
