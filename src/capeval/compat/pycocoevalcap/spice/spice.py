"""``pycocoevalcap.spice.spice``: SPICE 1.0 scores without Java (capeval's parser and scorer).

Captions are parsed by capeval's Python reimplementation of the Stanford CoreNLP 3.6.0 pipeline
the jar runs, with the grammar read from your own copy of CoreNLP's models (see the SPICE
metric card), so the per-image values are the official jar's; the return types, shapes and
keys are the official ones. ``Spice(parser="spacy")`` opts into the spaCy approximation.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from capeval.compat._checks import items_of, score_items

__all__ = ["Spice"]

#: Fields of each category, as the SPICE jar writes them.
_FIELDS = ("tp", "fp", "fn", "f", "pr", "re")


class Spice:
    """SPICE on tokenized captions.

    ``compute_score(gts, res)`` returns ``(score, scores)``: the mean of the per-image ``All``
    F-scores (``numpy.float64``) and a list with one dict per image, in *sorted* image-id order as
    in the official code: ``{category: {"tp", "fp", "fn", "f", "pr", "re", "numImages": float}}``
    for the categories ``All``, ``Object``, ``Attribute``, ``Relation``, ``Cardinality``,
    ``Color`` and ``Size`` (NaN where a category is undefined for the image).

    Args:
        **options: Passed to :class:`capeval.metrics.spice.SPICE` (e.g. ``cache=False``,
            ``grammar=PATH``); by default the official parser and scoring (WordNet synonyms)
            on the given tokens.
    """

    def __init__(self, **options: Any) -> None:
        from capeval.metrics.spice import SPICE

        options.setdefault("tokenizer", "none")
        options["detailed"] = True
        self._metric = SPICE(**options)

    def float_convert(self, obj: Any) -> float:
        """``float(obj)``, NaN where that fails (the official helper)."""
        try:
            return float(obj)
        except (TypeError, ValueError):
            return math.nan

    def compute_score(
        self, gts: Mapping[Hashable, list[str]], res: Mapping[Hashable, list[str]]
    ) -> tuple[np.float64, list[dict[str, dict[str, float]]]]:
        """Mean ``All`` F-score and the per-image category scores (sorted image ids)."""
        ids, candidates, references = items_of(gts, res, "Spice", sort=True)
        result = score_items(self._metric, ids, candidates, references, "Spice")
        scores: list[dict[str, dict[str, float]]] = []
        for detail in result.details or ():
            per_image: dict[str, dict[str, float]] = {}
            for category, values in detail["scores"].items():
                entry = {field: self.float_convert(values[field]) for field in _FIELDS}
                entry["numImages"] = 1.0
                per_image[category] = entry
            scores.append(per_image)
        average = np.mean(np.array([image["All"]["f"] for image in scores]))
        return average, scores

    def method(self) -> str:
        """``"SPICE"``."""
        return "SPICE"
