"""Word-level human precision and recall, the p/k model, and precision at human recall.

Fang et al. (2015) and the COCO caption paper ask how well a *human* predicts the words
of the other captions of an image: hold out one caption, treat its word set as the
prediction and the union of the words of the remaining ``k`` captions as ground truth, and
pool the counts over images and held-out positions to get a precision and recall per word.

The p/k model explains the shape of these points. If every describer mentions a word of an
image independently with probability ``p``, the held-out caption mentions it with
probability ``p`` and the ground truth contains it when at least one of ``k`` others does:

* human recall ``= p``
* human precision ``= 1 - (1 - p)^k``

so humans lie on the curve ``precision = 1 - (1 - recall)^k`` (:func:`pk_model_curve`).
A word detector is then compared with humans by its **precision at human recall** (PHR):
its precision at the operating point whose recall equals the human recall of that word
(:func:`precision_at_recall`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from capeval.meta_eval.correlation import FloatArray

__all__ = [
    "WordAgreement",
    "pk_model_curve",
    "precision_at_recall",
    "word_human_agreement",
]


@dataclass(frozen=True)
class WordAgreement:
    """Human precision and recall of one word, pooled over images and held-out captions.

    Attributes:
        word: The word.
        true_positives: Held-out captions containing the word whose image's other captions do too.
        predicted: Held-out captions containing the word.
        relevant: (image, held-out position) cases where the other captions contain the word.
        precision: ``true_positives / predicted`` (NaN when never predicted).
        recall: ``true_positives / relevant`` (NaN when never relevant).
        model_precision: The p/k model's precision at this recall, ``1 - (1 - recall)^k``.
    """

    word: str
    true_positives: int
    predicted: int
    relevant: int
    precision: float
    recall: float
    model_precision: float


def pk_model_curve(recall: Any, k: int) -> FloatArray:
    """Precision of the p/k model at the given recall(s): ``1 - (1 - recall)^k``.

    Example:
        >>> pk_model_curve([0.0, 0.5, 1.0], 4).tolist()
        [0.0, 0.9375, 1.0]
    """
    if k < 1:
        raise ValueError(f"k (number of remaining captions) must be positive, got {k}")
    r = np.asarray(recall, dtype=np.float64)
    return 1.0 - (1.0 - r) ** k


def _words(caption: str) -> set[str]:
    return set(caption.lower().split())


def word_human_agreement(
    captions: Mapping[Hashable, Sequence[str]],
    *,
    n_captions: int = 5,
    vocabulary: Iterable[str] | None = None,
) -> dict[str, WordAgreement]:
    """Human precision/recall per word by leave-one-out over each image's captions.

    Args:
        captions: ``image id -> tokenized captions`` (space-separated tokens; lower-cased here).
        n_captions: Captions per image used (the first ones); ``k = n_captions - 1``.
        vocabulary: Words to report (default: every word seen).

    Returns:
        ``word -> WordAgreement``, in vocabulary order (or by descending frequency).

    Raises:
        ValueError: when an image has fewer than ``n_captions`` captions.

    Example:
        >>> caps = {1: ["a dog runs", "a dog", "dog on grass"], 2: ["a cat", "the cat", "a cat sits"]}
        >>> w = word_human_agreement(caps, n_captions=3)["dog"]
        >>> (w.true_positives, w.predicted, w.relevant)
        (3, 3, 3)
    """
    if n_captions < 2:
        raise ValueError(f"n_captions must be at least 2, got {n_captions}")
    k = n_captions - 1
    tp: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    relevant: Counter[str] = Counter()
    for image_id, caps in captions.items():
        if isinstance(caps, str) or len(caps) < n_captions:
            raise ValueError(f"image {image_id!r} has fewer than {n_captions} captions")
        sets = [_words(c) for c in caps[:n_captions]]
        for j, held in enumerate(sets):
            truth: set[str] = set().union(*(s for i, s in enumerate(sets) if i != j))
            predicted.update(held)
            relevant.update(truth)
            tp.update(held & truth)
    words = list(vocabulary) if vocabulary is not None else [w for w, _ in (predicted + relevant).most_common()]
    out: dict[str, WordAgreement] = {}
    for word in words:
        t, p, r = tp[word], predicted[word], relevant[word]
        precision = t / p if p else float("nan")
        recall = t / r if r else float("nan")
        model = float(pk_model_curve(recall, k)) if r else float("nan")
        out[word] = WordAgreement(word, t, p, r, precision, recall, model)
    return out


def precision_at_recall(scores: Any, labels: Any, recall: float) -> float:
    """Precision of a detector at the first threshold that reaches ``recall``.

    Items are ranked by descending score (ties kept together: a threshold never splits equal
    scores); the precision is taken at the highest threshold whose recall is at least ``recall``.

    Args:
        scores: Detector confidence per image.
        labels: 1 where the word is in the image's ground truth.
        recall: Target recall in (0, 1], e.g. the human recall of the word.

    Returns:
        The precision, or NaN if no positive label exists or the recall cannot be reached.

    Raises:
        ValueError: on misaligned input or a recall outside (0, 1].

    Example:
        >>> precision_at_recall([0.9, 0.8, 0.7, 0.1], [1, 0, 1, 1], 2 / 3)
        0.6666666666666666
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if s.ndim != 1 or s.shape != y.shape:
        raise ValueError(f"scores {s.shape} and labels {y.shape} must be aligned 1-D sequences")
    if not 0.0 < recall <= 1.0:
        raise ValueError(f"recall must be in (0, 1], got {recall}")
    positives = y.sum()
    if positives == 0:
        return float("nan")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    # Cut only after the last item of a run of equal scores.
    last_of_run = np.r_[s_sorted[1:] != s_sorted[:-1], True]
    tp = np.cumsum(y_sorted)[last_of_run]
    taken = np.arange(1, s.size + 1)[last_of_run]
    reached = np.flatnonzero(tp / positives >= recall - 1e-12)
    if reached.size == 0:
        return float("nan")
    i = reached[0]
    return float(tp[i] / taken[i])
