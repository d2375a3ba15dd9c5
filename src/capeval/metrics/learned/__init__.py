"""Learned caption metrics: NNEval and its Word Mover's similarity feature.

* :class:`~capeval.metrics.learned.wmd.WMDSimilarity` (registry key ``"wmd"``):
  ``exp(-WMD)`` to the references over word vectors shipped with capeval.
* :class:`~capeval.metrics.learned.nneval.NNEval` (registry key ``"nneval"``): P(human) from
  a small network over BLEU-1..4, METEOR, CIDEr-D, SPICE and WMD (Sharif et al. 2018).

The NNEval training recipe (data, features, training, acceptance figures) is
:mod:`capeval.metrics.learned.training`.

Both need numpy/scipy only; POT (``pot``) speeds up the transport problems when installed.
Submodules are imported lazily, so importing this package costs nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NNEval", "WMDSimilarity"]


def __getattr__(name: str) -> Any:
    if name == "NNEval":
        from capeval.metrics.learned.nneval import NNEval

        return NNEval
    if name == "WMDSimilarity":
        from capeval.metrics.learned.wmd import WMDSimilarity

        return WMDSimilarity
    raise AttributeError(name)
