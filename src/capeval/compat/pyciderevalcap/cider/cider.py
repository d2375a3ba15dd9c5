"""``pyciderevalcap.cider.cider``: CIDEr without clipping or length penalty, times 10."""

from __future__ import annotations

from collections.abc import Sequence

from capeval.compat.pyciderevalcap._scorer import _PyciderScorer
from capeval.metrics.base import FloatArray
from capeval.metrics.cider import CIDER_D_SCALE, DocumentFrequencies

__all__ = ["Cider"]


class Cider(_PyciderScorer):
    """CIDEr as the self-critical codebases' ``pyciderevalcap.cider`` computes it.

    The original CIDEr of Vedantam et al. (2015) (no clipping, no length penalty), multiplied by
    10 as that scorer does (capeval's ``cider-original`` metric is the unscaled value).

    Args:
        n: Highest n-gram order (4).
        df: ``"corpus"`` or cached document frequencies, as for ``CiderD``.

    ``compute_score(gts, res)`` takes and returns the same shapes as ``CiderD``.
    """

    _name = "Cider"

    def __init__(self, n: int = 4, df: str | DocumentFrequencies = "corpus") -> None:
        from capeval.metrics.cider import CIDEr

        self._n = n
        self._df = df
        self._metric = CIDEr(n=n, df=self._frequencies(df, n), tokenizer="none")

    def _score(self, candidates: list[str], references: list[Sequence[str]]) -> FloatArray:
        return super()._score(candidates, references) * CIDER_D_SCALE

    def method(self) -> str:
        """``"CIDEr"``."""
        return "CIDEr"
