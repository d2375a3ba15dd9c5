"""Caption metrics. Each is a :class:`~capeval.metrics.base.Metric`: per-item statistics + corpus reduction."""

from __future__ import annotations

from capeval.metrics.base import CorpusResult, MeanMetric, Metric

__all__ = ["CorpusResult", "MeanMetric", "Metric"]
