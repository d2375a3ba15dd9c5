"""The ranking systems of Hodosh, Young and Hockenmaier (2013) on Flickr8K.

* :mod:`~capeval.ranking.systems.image_features`: colour, texture and dense SIFT visual words
  in a 3-level spatial pyramid (OpenCV, SciPy);
* :mod:`~capeval.ranking.systems.kernels`: histogram and pyramid intersection kernels, and the
  text kernels BoW, TagRank, TRI and TRI-SEM;
* :mod:`~capeval.ranking.systems.lexical`: distributional, alignment-based and WordNet (Lin)
  word similarities from the training captions;
* :mod:`~capeval.ranking.systems.kcca`: regularized KCCA;
* :mod:`~capeval.ranking.systems.nn`: the nearest-neighbour baseline;
* :mod:`~capeval.ranking.systems.pipeline`: training, dev-set model selection, Borda
  aggregation and the score matrices ``capeval rank`` reads.

Install the extra ``capeval[ranking]`` (OpenCV, SciPy). Nothing here is imported by
``import capeval``.
"""

from __future__ import annotations

from capeval.ranking.systems.data import Flickr8K, Split, read_crowd_judgments, read_expert_judgments, read_flickr8k
from capeval.ranking.systems.image_features import ImageFeatures, VisualWordConfig, extract_visual_words
from capeval.ranking.systems.kcca import KCCA, KernelEigen, cosine_scores, fit_kcca
from capeval.ranking.systems.nn import idf_f1, nearest_neighbour_scores
from capeval.ranking.systems.pipeline import SYSTEMS, TEXT_KERNELS, KCCAGrid, run_systems

__all__ = [
    "KCCA",
    "SYSTEMS",
    "TEXT_KERNELS",
    "Flickr8K",
    "ImageFeatures",
    "KCCAGrid",
    "KernelEigen",
    "Split",
    "VisualWordConfig",
    "cosine_scores",
    "extract_visual_words",
    "fit_kcca",
    "idf_f1",
    "nearest_neighbour_scores",
    "read_crowd_judgments",
    "read_expert_judgments",
    "read_flickr8k",
    "run_systems",
]
