"""capeval: image-caption evaluation with the official MS COCO numbers, without Java.

Example:
    >>> from capeval import get_metric
    >>> bleu = get_metric("bleu", tokenizer="ws")
    >>> result = bleu.score(candidates=["a dog runs"], references=[["a dog runs", "the dog is running"]])
    >>> round(result.scores["bleu-1"], 6)
    1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from capeval._version import __version__
from capeval.metrics.base import CorpusResult, Metric
from capeval.registry import COCO_METRICS, DEFAULT_METRICS, get_metric, list_metrics
from capeval.signature import Signature

if TYPE_CHECKING:
    from capeval.engines import Evaluation, evaluate

__all__ = [
    "COCO_METRICS",
    "DEFAULT_METRICS",
    "CorpusResult",
    "Evaluation",
    "Metric",
    "Signature",
    "__version__",
    "evaluate",
    "get_metric",
    "list_metrics",
]


def __getattr__(name: str) -> Any:
    """``capeval.evaluate`` and ``capeval.Evaluation``, imported on first use (the engines are not
    needed to score with one metric)."""
    if name in ("evaluate", "Evaluation"):
        from capeval import engines

        return getattr(engines, name)
    raise AttributeError(f"module 'capeval' has no attribute {name!r}")
