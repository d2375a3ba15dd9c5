"""``pycocoevalcap.cider.cider``: CIDEr-D, which the COCO evaluation reports as ``CIDEr``."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from capeval.compat._checks import mean_and_item_scores
from capeval.metrics.base import FloatArray
from capeval.metrics.cider import CIDErD

__all__ = ["Cider"]


class Cider:
    """CIDEr-D on tokenized captions, document frequencies from the references scored.

    ``compute_score(gts, res)`` returns ``(score, scores)``: the mean (``numpy.float64``) and a
    ``numpy`` array of per-image values, images in ``gts`` order.

    Args:
        test, refs: Accepted for signature compatibility and ignored, as in the official class.
        n: Highest n-gram order (4).
        sigma: Width of the length penalty (6.0).
    """

    def __init__(self, test: Any = None, refs: Any = None, n: int = 4, sigma: float = 6.0) -> None:
        self._n = n
        self._sigma = sigma
        self._metric = CIDErD(n=n, sigma=sigma, tokenizer="none")

    def compute_score(
        self, gts: Mapping[Hashable, list[str]], res: Mapping[Hashable, list[str]]
    ) -> tuple[np.float64, FloatArray]:
        """Mean and per-image CIDEr-D."""
        return mean_and_item_scores(self._metric, gts, res, "Cider")

    def method(self) -> str:
        """``"CIDEr"``."""
        return "CIDEr"
