"""capeval: image-caption evaluation with the official MS COCO numbers, without Java.

Example:
    >>> from capeval import get_metric
    >>> bleu = get_metric("bleu", tokenizer="ws")
    >>> result = bleu.score(candidates=["a dog runs"], references=[["a dog runs", "the dog is running"]])
    >>> round(result.scores["bleu-1"], 6)
    1.0
"""

from __future__ import annotations

from capeval._version import __version__
from capeval.metrics.base import CorpusResult, Metric
from capeval.registry import COCO_METRICS, get_metric, list_metrics
from capeval.signature import Signature

__all__ = ["COCO_METRICS", "CorpusResult", "Metric", "Signature", "__version__", "get_metric", "list_metrics"]
