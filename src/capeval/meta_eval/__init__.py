"""Meta-evaluation: how well caption metrics agree with human judgments.

Correlations at item and system level, pairwise accuracy (PASCAL-50S categories),
correct-vs-distracted accuracy, Cohen's kappa over thresholds, cumulative score
distributions, the human-agreement table, word-level human precision/recall, and loaders
for the human-judgment datasets. Functions take plain arrays of scores; only
:func:`human_agreement` runs metrics, and it receives them as objects.
"""

from __future__ import annotations

from capeval.meta_eval.correlation import (
    METHODS,
    CorrelationInterval,
    CorrelationResult,
    correlate,
    correlation_interval,
    expand_ratings,
    kendall_tau,
    pearson,
    spearman,
    system_means,
)
from capeval.meta_eval.datasets import (
    HumanJudgments,
    PairwiseJudgments,
    load_coco_captions,
    load_composite,
    load_flickr8k,
    load_flickr8k_expert_tsv,
    load_flickr8k_tokens,
    load_pascal50s,
    load_thumb,
    read_jsonl,
)
from capeval.meta_eval.distributions import cumulative_by_system, cumulative_distribution
from capeval.meta_eval.human_agreement import Fold, HumanAgreementTable, human_agreement, leave_one_out
from capeval.meta_eval.kappa import KappaGrid, cohen_kappa, kappa_grid
from capeval.meta_eval.pairwise import PairwiseResult, distractor_accuracy, pairwise_accuracy
from capeval.meta_eval.words import WordAgreement, pk_model_curve, precision_at_recall, word_human_agreement

__all__ = [
    "METHODS",
    "CorrelationInterval",
    "CorrelationResult",
    "Fold",
    "HumanAgreementTable",
    "HumanJudgments",
    "KappaGrid",
    "PairwiseJudgments",
    "PairwiseResult",
    "WordAgreement",
    "cohen_kappa",
    "correlate",
    "correlation_interval",
    "cumulative_by_system",
    "cumulative_distribution",
    "distractor_accuracy",
    "expand_ratings",
    "human_agreement",
    "kappa_grid",
    "kendall_tau",
    "leave_one_out",
    "load_coco_captions",
    "load_composite",
    "load_flickr8k",
    "load_flickr8k_expert_tsv",
    "load_flickr8k_tokens",
    "load_pascal50s",
    "load_thumb",
    "read_jsonl",
    "pairwise_accuracy",
    "pearson",
    "pk_model_curve",
    "precision_at_recall",
    "spearman",
    "system_means",
    "word_human_agreement",
]
