"""Pairwise accuracy: does the metric prefer the caption humans preferred?

PASCAL-50S (Vedantam et al. 2015) gives pairs of candidate captions for one image with
human votes; pairs fall into four categories, HC (two correct human captions), HI (a human
caption of the image vs one of another image), HM (human vs machine) and MM (two machine
captions). The SPICE, NNEval and CLIPScore papers report the fraction of pairs where the
metric's preferred caption is the humans' majority choice, per category.

Ties must be decided explicitly:

* metric ties (equal scores): ``"half"`` counts 0.5 (the expectation of a random choice),
  ``"wrong"`` counts 0, ``"right"`` counts 1, ``"drop"`` removes the pair;
* human ties (equal votes): ``"drop"`` removes the pair (default), ``"half"`` counts 0.5 for
  any metric decision, ``"random"`` picks a winner with a seeded generator (the protocol of
  the CLIPScore evaluation scripts).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from capeval.meta_eval.correlation import FloatArray

__all__ = [
    "HUMAN_TIE_RULES",
    "METRIC_TIE_RULES",
    "PASCAL50S_CATEGORIES",
    "PairwiseResult",
    "distractor_accuracy",
    "pairwise_accuracy",
]

#: PASCAL-50S category codes in ``pair_pascal.mat`` (field ``category``).
PASCAL50S_CATEGORIES = {1: "HC", 2: "HI", 3: "HM", 4: "MM"}
METRIC_TIE_RULES = ("half", "wrong", "right", "drop")
HUMAN_TIE_RULES = ("drop", "half", "random")
#: Seed for ``human_ties="random"`` when none is given.
DEFAULT_TIE_SEED = 12345


@dataclass(frozen=True)
class PairwiseResult:
    """Pairwise accuracy overall and per category.

    Attributes:
        accuracy: Fraction (0-1) of counted pairs where the metric agrees with the humans.
        n: Pairs counted (after dropping ties as requested).
        by_category: ``category -> (accuracy, n)``.
        metric_ties: Pairs where the metric scores were equal.
        human_ties: Pairs where the human votes were equal.
    """

    accuracy: float
    n: int
    by_category: dict[Hashable, tuple[float, int]] = field(default_factory=dict)
    metric_ties: int = 0
    human_ties: int = 0


def _vector(values: Any, name: str, n: int | None = None) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence, got shape {array.shape}")
    if n is not None and array.size != n:
        raise ValueError(f"{name} has {array.size} entries, expected {n}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name}: pair {int(bad[0])} is not finite")
    return array


def pairwise_accuracy(
    scores_a: Any,
    scores_b: Any,
    human_preference: Any,
    *,
    categories: Sequence[Hashable] | None = None,
    metric_ties: str = "half",
    human_ties: str = "drop",
    seed: int | np.random.Generator | None = None,
) -> PairwiseResult:
    """Accuracy of the metric's pairwise preferences against human preferences.

    Args:
        scores_a: Metric score of caption A of each pair.
        scores_b: Metric score of caption B.
        human_preference: Per pair, positive if humans preferred A, negative for B, 0 for a tie
            (e.g. ``votes_a - votes_b``).
        categories: Optional category label per pair (``"HC"``...) for the breakdown.
        metric_ties: One of :data:`METRIC_TIE_RULES`.
        human_ties: One of :data:`HUMAN_TIE_RULES`.
        seed: Seed or Generator for ``human_ties="random"``.

    Returns:
        A :class:`PairwiseResult`.

    Raises:
        ValueError: on misaligned input, unknown tie rules, or no pair left to count.

    Example:
        >>> r = pairwise_accuracy([0.9, 0.2, 0.5], [0.1, 0.4, 0.5], [3, -1, 2])
        >>> (r.accuracy, r.n, r.metric_ties)
        (0.8333333333333334, 3, 1)
    """
    if metric_ties not in METRIC_TIE_RULES:
        raise ValueError(f"metric_ties must be one of {METRIC_TIE_RULES}, got {metric_ties!r}")
    if human_ties not in HUMAN_TIE_RULES:
        raise ValueError(f"human_ties must be one of {HUMAN_TIE_RULES}, got {human_ties!r}")
    a = _vector(scores_a, "scores_a")
    b = _vector(scores_b, "scores_b", a.size)
    human = np.sign(_vector(human_preference, "human_preference", a.size))
    if categories is not None and len(categories) != a.size:
        raise ValueError(f"categories has {len(categories)} entries, expected {a.size}")
    metric = np.sign(a - b)
    human_tie = human == 0
    if human_ties == "random" and human_tie.any():
        rng = (
            seed
            if isinstance(seed, np.random.Generator)
            else np.random.default_rng(DEFAULT_TIE_SEED if seed is None else seed)
        )
        human = human.copy()
        human[human_tie] = np.where(rng.random(int(human_tie.sum())) < 0.5, 1.0, -1.0)
    credit = np.where(metric == human, 1.0, 0.0)
    metric_tie = metric == 0
    tie_credit = {"half": 0.5, "wrong": 0.0, "right": 1.0, "drop": np.nan}[metric_ties]
    credit[metric_tie] = tie_credit
    if human_ties == "half":
        credit[human_tie] = 0.5
    elif human_ties == "drop":
        credit[human_tie] = np.nan
    counted = np.isfinite(credit)
    if not counted.any():
        raise ValueError("no pair left to count after dropping ties")
    by_category: dict[Hashable, tuple[float, int]] = {}
    if categories is not None:
        labels = list(categories)
        for name in dict.fromkeys(labels):
            mask = np.array([lab == name for lab in labels]) & counted
            if mask.any():
                by_category[name] = (float(credit[mask].mean()), int(mask.sum()))
    return PairwiseResult(
        accuracy=float(credit[counted].mean()),
        n=int(counted.sum()),
        by_category=by_category,
        metric_ties=int(metric_tie.sum()),
        human_ties=int(human_tie.sum()),
    )


def distractor_accuracy(correct_scores: Any, distracted_scores: Any, *, ties: str = "half") -> float:
    """Fraction of items where the correct caption outscores a distractor.

    Each item pairs a caption of the image with a distractor (a caption of another image, or
    a corrupted caption); a good metric scores the correct one higher.

    Args:
        correct_scores: Metric score of the correct caption of each item.
        distracted_scores: Metric score of its distractor.
        ties: Credit for equal scores: ``"half"``, ``"wrong"``, ``"right"`` or ``"drop"``.

    Returns:
        Accuracy in [0, 1].

    Raises:
        ValueError: on misaligned input, an unknown rule, or nothing left to count.

    Example:
        >>> distractor_accuracy([0.9, 0.4, 0.3, 0.2], [0.1, 0.4, 0.5, 0.1])
        0.625
    """
    correct = _vector(correct_scores, "correct_scores")
    distracted = _vector(distracted_scores, "distracted_scores", correct.size)
    result = pairwise_accuracy(correct, distracted, np.ones(correct.size), metric_ties=ties)
    return result.accuracy
