"""Significance tests: McNemar, paired permutation, bootstrap and approximate randomization.

All resampling takes an explicit ``seed`` (int or ``numpy.random.Generator``) and never
touches global random state. The metric-level tests work on ``CorpusResult.stats``
matrices and recompute the corpus score with ``metric.corpus_score(totals)``.
"""

from __future__ import annotations

from capeval.stats._common import DEFAULT_SEED
from capeval.stats.mcnemar import McNemarResult, mcnemar, mcnemar_table
from capeval.stats.paired import (
    BootstrapCI,
    PairedBootstrapResult,
    RandomizationResult,
    approximate_randomization,
    bootstrap_ci,
    paired_bootstrap,
)
from capeval.stats.permutation import PermutationResult, paired_permutation_test

__all__ = [
    "DEFAULT_SEED",
    "BootstrapCI",
    "McNemarResult",
    "PairedBootstrapResult",
    "PermutationResult",
    "RandomizationResult",
    "approximate_randomization",
    "bootstrap_ci",
    "mcnemar",
    "mcnemar_table",
    "paired_bootstrap",
    "paired_permutation_test",
]
