"""Engines: run metrics over a corpus.

:mod:`capeval.engines.executor` is the one executor (requirements resolved once, results
shared, details carried through); its backends run statistics in this process, in forked
workers (:class:`~capeval.engines.executor.ForkedBackend`) or on a Dask cluster
(:mod:`capeval.engines.dask`). :func:`evaluate` is the entry point the CLI and server use.
"""

from __future__ import annotations

from capeval.engines.local import (
    Evaluation,
    PreparedReferences,
    build_metrics,
    evaluate,
    prepare_references,
    resolve_metrics,
)
from capeval.registry import DEFAULT_METRICS

__all__ = [
    "DEFAULT_METRICS",
    "Evaluation",
    "PreparedReferences",
    "build_metrics",
    "evaluate",
    "prepare_references",
    "resolve_metrics",
]
