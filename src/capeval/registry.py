"""Metric registry: name -> metric class, imported lazily.

Keys are lower-case with the paper's hyphen (``"rouge-l"``, ``"cider-d"``). A metric whose
optional dependencies are missing is still listed; constructing it raises an
``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from capeval.metrics.base import Metric

__all__ = ["COCO_METRICS", "get_metric", "list_metrics", "metric_class"]

_METRICS: dict[str, str] = {
    "bleu": "capeval.metrics.bleu:BLEU",
    "meteor": "capeval.metrics.meteor:METEOR",
    "rouge-l": "capeval.metrics.rouge:ROUGEL",
    "cider-d": "capeval.metrics.cider:CIDErD",
    "cider": "capeval.metrics.cider:CIDEr",
    "rouge-n": "capeval.metrics.rouge:ROUGEN",
    "rouge-s": "capeval.metrics.rouge:ROUGES",
    "spice": "capeval.metrics.spice:SPICE",
    "spider": "capeval.metrics.spice:SPIDEr",
    "nneval": "capeval.metrics.learned.nneval:NNEval",
    "nneval-v2": "capeval.metrics.learned.nneval_v2:NNEvalV2",
    "wmd": "capeval.metrics.learned.wmd:WMDSimilarity",
}

_ALIASES: dict[str, str] = {
    "rouge": "rouge-l",
    "rougel": "rouge-l",
    "rouge_l": "rouge-l",
    "ciderd": "cider-d",
    "cider_d": "cider-d",
    "bleu-4": "bleu",
}

#: The metrics of the official COCO caption evaluation, in its order (SPICE when available).
COCO_METRICS: tuple[str, ...] = ("bleu", "meteor", "rouge-l", "cider-d", "spice")


def _module_exists(path: str) -> bool:
    module_name = path.split(":")[0]
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        return False


def list_metrics() -> list[str]:
    """Registry keys of the metrics this installation provides."""
    return [name for name, path in _METRICS.items() if _module_exists(path)]


def metric_class(name: str) -> type[Metric]:
    """The metric class for a registry key or alias.

    Raises:
        ValueError: for an unknown name.
    """
    key = _ALIASES.get(name.lower(), name.lower())
    path = _METRICS.get(key)
    if path is None or not _module_exists(path):
        raise ValueError(f"unknown metric {name!r}; choose from {', '.join(list_metrics())}")
    module_name, attr = path.split(":")
    cls: type[Metric] = getattr(importlib.import_module(module_name), attr)
    return cls


def get_metric(name: str, **options: Any) -> Metric:
    """Construct a metric by registry key, e.g. ``get_metric("cider-d", sigma=6.0)``."""
    return metric_class(name)(**options)
