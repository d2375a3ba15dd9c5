"""Input checks shared by the compatibility scorers (the official code's asserts, with messages).

Also :func:`score_items`, which scores checked items and reports empty candidates by image id,
and :func:`mean_and_item_scores`, the ``compute_score`` of the scorers that return the mean of
per-image values.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from capeval.metrics.base import EmptyCandidateWarning, warn_caller

if TYPE_CHECKING:
    from capeval.metrics.base import CorpusResult, FloatArray, Metric

__all__ = [
    "CompatInputError",
    "check_same_ids",
    "items_of",
    "mean_and_item_scores",
    "say",
    "score_items",
    "warn_empty_candidates",
]

#: Hint for ``{"caption": ...}`` dicts passed to a scorer.
_TOKENIZE_FIRST = " (tokenize first: PTBTokenizer().tokenize(...) returns strings)"
#: Ids shown in an error message before "...".
_SHOWN = 5


class CompatInputError(ValueError, AssertionError):
    """Malformed scorer input. A ``ValueError`` with a message naming the image; also an
    ``AssertionError``, which is what the official code raises, so existing handlers keep working."""


def _show(ids: Iterable[Hashable]) -> str:
    ids = list(ids)
    text = ", ".join(repr(i) for i in ids[:_SHOWN])
    return text + (f", ... ({len(ids)} in all)" if len(ids) > _SHOWN else "")


def check_same_ids(gts: Mapping[Hashable, Any], res: Mapping[Hashable, Any], scorer: str) -> None:
    """``gts`` and ``res`` must have the same image ids (the official ``gts.keys() == res.keys()``)."""
    for name, value in (("gts", gts), ("res", res)):
        if not isinstance(value, Mapping):
            raise CompatInputError(
                f"{scorer}: {name} must be a dict {{image_id: [captions]}}, got {type(value).__name__}"
            )
    if gts.keys() != res.keys():
        only_gts = [k for k in gts if k not in res]
        only_res = [k for k in res if k not in gts]
        parts = []
        if only_gts:
            parts.append(f"{len(only_gts)} image(s) have references but no candidate: {_show(only_gts)}")
        if only_res:
            parts.append(f"{len(only_res)} image(s) have a candidate but no references: {_show(only_res)}")
        raise CompatInputError(f"{scorer}: gts and res must have the same image ids; " + "; ".join(parts))


def items_of(
    gts: Mapping[Hashable, Any], res: Mapping[Hashable, Any], scorer: str, *, sort: bool = False
) -> tuple[list[Hashable], list[str], list[list[str]]]:
    """Checked ``(ids, candidates, references)`` in ``gts`` order (sorted ids with ``sort``).

    Each ``res[id]`` must be a list holding one caption string and each ``gts[id]`` a non-empty
    list of caption strings, as the official scorers assert.
    """
    check_same_ids(gts, res, scorer)
    ids: list[Hashable] = sorted(gts) if sort else list(gts)  # type: ignore[type-var]
    candidates: list[str] = []
    references: list[list[str]] = []
    for image_id in ids:
        hypo, refs = res[image_id], gts[image_id]
        if type(hypo) is not list:
            raise CompatInputError(
                f"{scorer}: res[{image_id!r}] must be a list with one caption, got {type(hypo).__name__}"
            )
        if len(hypo) != 1:
            raise CompatInputError(
                f"{scorer}: res[{image_id!r}] must hold exactly one caption, got {len(hypo)} "
                "(one candidate per image; score several candidates one call each)"
            )
        if type(refs) is not list:
            raise CompatInputError(
                f"{scorer}: gts[{image_id!r}] must be a list of reference captions, got {type(refs).__name__}"
            )
        if len(refs) == 0:
            raise CompatInputError(f"{scorer}: gts[{image_id!r}] has no reference captions")
        if not isinstance(hypo[0], str):
            raise CompatInputError(
                f"{scorer}: res[{image_id!r}][0] must be a caption string, got {type(hypo[0]).__name__}"
                + (_TOKENIZE_FIRST if isinstance(hypo[0], dict) else "")
            )
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise CompatInputError(
                    f"{scorer}: gts[{image_id!r}][{j}] must be a caption string, got {type(ref).__name__}"
                    + (_TOKENIZE_FIRST if isinstance(ref, dict) else "")
                )
        candidates.append(hypo[0])
        references.append(refs)
    return ids, candidates, references


def say(text: str) -> None:
    """Print a progress line to standard output, as the official code does."""
    import sys

    sys.stdout.write(text + "\n")


def warn_empty_candidates(ids: Sequence[Hashable] | None, candidates: Sequence[str], scorer: str) -> None:
    """One :class:`~capeval.metrics.base.EmptyCandidateWarning` naming ``scorer`` and the image ids
    of the empty candidates (none given: the call scores one candidate), if there are any; it
    points at the line of the calling script."""
    if all(map(str.strip, candidates)):
        return
    if ids is None:
        message = f"{scorer}: empty candidate caption: scored as the official code scores it (0)"
    else:
        empty = [image_id for image_id, caption in zip(ids, candidates, strict=True) if not caption.strip()]
        message = (
            f"{scorer}: {len(empty)} empty candidate caption(s) (image {_show(empty)}): scored as the "
            "official code scores them (0)"
        )
    warn_caller(EmptyCandidateWarning(message))


def score_items(
    metric: Metric,
    ids: Sequence[Hashable] | None,
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    scorer: str,
) -> CorpusResult:
    """``metric`` on checked, tokenized items; empty candidates are reported once, by image id."""
    warn_empty_candidates(ids, candidates, scorer)
    with warnings.catch_warnings():  # reported above, by image id
        warnings.simplefilter("ignore", EmptyCandidateWarning)
        return metric.score_tokenized(candidates=candidates, references=references)


def mean_and_item_scores(
    metric: Metric, gts: Mapping[Hashable, Any], res: Mapping[Hashable, Any], scorer: str
) -> tuple[np.float64, FloatArray]:
    """``(mean, per-image array)`` of a tokenizer-free metric on checked items in ``gts`` order."""
    ids, candidates, references = items_of(gts, res, scorer)
    scores = score_items(metric, ids, candidates, references, scorer).item_scores
    return np.float64(np.mean(scores)), np.array(scores)
