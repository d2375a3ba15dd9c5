"""Engines: run metrics over a corpus (in-process now; sharded engines build on the same statistics)."""

from __future__ import annotations

from capeval.engines.local import DEFAULT_METRICS, Evaluation, evaluate, resolve_metrics

__all__ = ["DEFAULT_METRICS", "Evaluation", "evaluate", "resolve_metrics"]
