"""Ranking evaluation: R@k, median/mean rank, S@k, R-precision and Borda aggregation.

Image annotation (image -> captions) and image search (caption -> image) from one score
matrix with a many-to-one gold mapping, as framed by Hodosh, Young and Hockenmaier (2013).
"""

from __future__ import annotations

from capeval.ranking.borda import borda_aggregate, scores_to_ranks
from capeval.ranking.io import ScoreMatrix, blocks, read_gold, read_ranked_lists, read_score_matrix
from capeval.ranking.retrieval import (
    DEFAULT_KS,
    TIE_RULES,
    RankingResult,
    annotation_relevance,
    binarize,
    evaluate_ranking,
    first_relevant_ranks,
    mean_rank,
    median_rank,
    r_precision,
    recall_at_k,
    success_at_k,
)

__all__ = [
    "DEFAULT_KS",
    "TIE_RULES",
    "RankingResult",
    "ScoreMatrix",
    "annotation_relevance",
    "binarize",
    "blocks",
    "borda_aggregate",
    "evaluate_ranking",
    "first_relevant_ranks",
    "mean_rank",
    "median_rank",
    "r_precision",
    "read_gold",
    "read_ranked_lists",
    "read_score_matrix",
    "recall_at_k",
    "scores_to_ranks",
    "success_at_k",
]
