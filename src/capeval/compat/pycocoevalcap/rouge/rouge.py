"""``pycocoevalcap.rouge.rouge``: ROUGE-L (beta 1.2), as the COCO evaluation computes it."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from capeval.compat._checks import CompatInputError, mean_and_item_scores, score_items
from capeval.metrics.base import FloatArray
from capeval.metrics.rouge import ROUGE_BETA, ROUGEL

__all__ = ["Rouge"]


class Rouge:
    """ROUGE-L on tokenized captions (words split on single spaces, as the official code).

    ``compute_score(gts, res)`` returns ``(score, scores)``: the mean (``numpy.float64``) and a
    ``numpy`` array of per-image values, images in ``gts`` order.
    """

    def __init__(self) -> None:
        self.beta = ROUGE_BETA
        self._metric = ROUGEL(beta=self.beta, tokenizer="none")

    def calc_score(self, candidate: list[str], refs: list[str]) -> float:
        """ROUGE-L of one candidate (a one-element list) against its references."""
        if type(candidate) is not list or len(candidate) != 1:
            raise CompatInputError("Rouge.calc_score: candidate must be a list holding one caption")
        if len(refs) == 0:
            raise CompatInputError("Rouge.calc_score: no reference captions")
        result = score_items(self._metric, None, candidate, [list(refs)], "Rouge.calc_score")
        return float(result.item_scores[0])

    def compute_score(
        self, gts: Mapping[Hashable, list[str]], res: Mapping[Hashable, list[str]]
    ) -> tuple[np.float64, FloatArray]:
        """Mean and per-image ROUGE-L."""
        return mean_and_item_scores(self._metric, gts, res, "Rouge")

    def method(self) -> str:
        """``"Rouge"``."""
        return "Rouge"
