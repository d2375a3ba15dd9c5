"""Human agreement: each human caption scored against the other human captions of its image.

The COCO caption paper (Chen et al. 2015, Table 1) reports what the evaluation metrics give
a *human* caption: one caption of each image is held out as the candidate and scored against
the remaining references. Here every position is held out in turn (leave-one-out over the
first ``n_captions`` captions of each image, in file order) and the table lists the corpus
score of each fold and their mean; with ``n_captions=5`` each fold has 4 references, as in the
official val2014 human-agreement protocol (the official script scores fold 1: first caption
against the next four).

Each fold is an ordinary corpus evaluation: the metric's ``prepare()`` (CIDEr-D document
frequencies) runs on that fold's references, exactly as the official code would do for a
results file containing the held-out captions. Captions are tokenized once per tokenizer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Fold", "HumanAgreementTable", "human_agreement", "leave_one_out"]

log = logging.getLogger("capeval")

#: Captions per image used by default: COCO collected five per image (Chen et al. 2015).
DEFAULT_N_CAPTIONS = 5


@dataclass(frozen=True)
class Fold:
    """One leave-one-out fold.

    Attributes:
        held_out: 0-based position of the held-out caption within each image's captions.
        ids: Image ids, in input order.
        candidates: The held-out caption of each image.
        references: The remaining captions of each image.
    """

    held_out: int
    ids: tuple[Hashable, ...]
    candidates: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class HumanAgreementTable:
    """Corpus scores of held-out human captions, per fold and averaged.

    Attributes:
        columns: Score names (``bleu-1`` ... ``cider-d``), in metric order.
        folds: One mapping ``column -> score`` per held-out position.
        mean: Mean over folds.
        std: Sample standard deviation over folds (0 with one fold).
        n_images: Images evaluated.
        n_captions: Captions per image used (one held out, the rest references).
        n_references: References per candidate.
        signatures: ``metric -> signature string`` of the first fold.
        seconds: Wall-clock time of the evaluation (tokenization included).
    """

    columns: tuple[str, ...]
    folds: tuple[dict[str, float], ...]
    mean: dict[str, float]
    std: dict[str, float]
    n_images: int
    n_captions: int
    n_references: int
    signatures: dict[str, str]
    seconds: float


def _natural(item: tuple[str, float]) -> tuple[str, int]:
    """Order ``bleu-1`` before ``bleu-4`` (and before ``bleu-10``)."""
    head, _, tail = item[0].rpartition("-")
    return (head, int(tail)) if tail.isdigit() else (item[0], -1)


def leave_one_out(
    captions: Mapping[Hashable, Sequence[str]],
    *,
    n_captions: int = DEFAULT_N_CAPTIONS,
    n_references: int | None = None,
    folds: Sequence[int] | None = None,
) -> list[Fold]:
    """Build the leave-one-out folds.

    Args:
        captions: ``image id -> captions`` in file order; the first ``n_captions`` are used.
        n_captions: Captions per image taking part (images with more keep the first ones).
        n_references: References per candidate (default ``n_captions - 1``); the first ones of
            the remaining captions, in order.
        folds: Held-out positions to build (default: all ``n_captions``).

    Returns:
        The folds, in position order.

    Raises:
        ValueError: when an image has fewer than ``n_captions`` captions (naming it) or the
            options are inconsistent.

    Example:
        >>> f = leave_one_out({7: ["a", "b", "c"]}, n_captions=3)
        >>> [(x.candidates, x.references) for x in f]
        [(('a',), (('b', 'c'),)), (('b',), (('a', 'c'),)), (('c',), (('a', 'b'),))]
    """
    if n_captions < 2:
        raise ValueError(f"n_captions must be at least 2 (one held out, one reference), got {n_captions}")
    if n_references is None:
        n_references = n_captions - 1
    if not 1 <= n_references <= n_captions - 1:
        raise ValueError(f"n_references must be between 1 and {n_captions - 1}, got {n_references}")
    positions = list(range(n_captions)) if folds is None else list(folds)
    for p in positions:
        if not 0 <= p < n_captions:
            raise ValueError(f"fold {p} is outside 0..{n_captions - 1}")
    if not captions:
        raise ValueError("no images")
    ids = tuple(captions)
    used: list[list[str]] = []
    for image_id in ids:
        caps = captions[image_id]
        if isinstance(caps, str) or len(caps) < n_captions:
            count = 1 if isinstance(caps, str) else len(caps)
            raise ValueError(f"image {image_id!r} has {count} captions; {n_captions} are needed")
        for j, cap in enumerate(caps[:n_captions]):
            if not isinstance(cap, str):
                raise ValueError(f"image {image_id!r}: caption {j} is not a string")
        used.append(list(caps[:n_captions]))
    out = []
    for p in positions:
        cands = tuple(caps[p] for caps in used)
        refs = tuple(tuple((caps[:p] + caps[p + 1 :])[:n_references]) for caps in used)
        out.append(Fold(p, ids, cands, refs))
    return out


def human_agreement(
    captions: Mapping[Hashable, Sequence[str]],
    metrics: Sequence[Any],
    *,
    n_captions: int = DEFAULT_N_CAPTIONS,
    n_references: int | None = None,
    folds: Sequence[int] | None = None,
    progress: bool = False,
) -> HumanAgreementTable:
    """The human-agreement table for any set of capeval metrics.

    Args:
        captions: ``image id -> human captions`` (raw text, file order).
        metrics: Metric objects (``capeval.get_metric(...)``); each uses its own tokenizer.
        n_captions: Captions per image taking part.
        n_references: References per candidate (default ``n_captions - 1``).
        folds: Held-out positions to evaluate (default all).
        progress: Log each fold as it finishes.

    Returns:
        A :class:`HumanAgreementTable`.

    Raises:
        ValueError: on malformed captions or options (see :func:`leave_one_out`).
    """
    if not metrics:
        raise ValueError("no metrics given")
    start = time.perf_counter()
    fold_list = leave_one_out(captions, n_captions=n_captions, n_references=n_references, folds=folds)
    k = len(fold_list[0].references[0])
    # Tokenize every caption once per distinct tokenizer (by name), image-major.
    flat = [cap for caps in captions.values() for cap in list(caps)[:n_captions]]
    tokenized: dict[str, list[list[str]]] = {}
    for metric in metrics:
        name = metric.tokenizer.name
        if name not in tokenized:
            toks = metric.tokenizer.tokenize(flat)
            tokenized[name] = [toks[i : i + n_captions] for i in range(0, len(toks), n_captions)]
    columns: list[str] = []
    fold_scores: list[dict[str, float]] = []
    signatures: dict[str, str] = {}
    for fold in fold_list:
        row: dict[str, float] = {}
        p = fold.held_out
        for metric in metrics:
            per_image = tokenized[metric.tokenizer.name]
            cands = [caps[p] for caps in per_image]
            refs = [(caps[:p] + caps[p + 1 :])[:k] for caps in per_image]
            result = metric.score_tokenized(candidates=cands, references=refs, ids=fold.ids)
            scores = dict(sorted((dict(result.scores) or {metric.name: result.score}).items(), key=_natural))
            row.update({key: float(value) for key, value in scores.items()})
            signatures.setdefault(metric.name, str(result.signature))
        if not columns:
            columns = list(row)
        fold_scores.append(row)
        if progress:
            log.info("human agreement: fold %d of %d done", p + 1, len(fold_list))
    mean = {c: float(np.mean([f[c] for f in fold_scores])) for c in columns}
    std = {c: float(np.std([f[c] for f in fold_scores], ddof=1)) if len(fold_scores) > 1 else 0.0 for c in columns}
    return HumanAgreementTable(
        columns=tuple(columns),
        folds=tuple(fold_scores),
        mean=mean,
        std=std,
        n_images=len(fold_list[0].ids),
        n_captions=n_captions,
        n_references=k,
        signatures=signatures,
        seconds=time.perf_counter() - start,
    )
