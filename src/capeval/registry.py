"""Metric registry: name -> metric class, imported lazily.

Keys are lower-case with the paper's hyphen (``"rouge-l"``, ``"cider-d"``). A metric whose
optional dependencies are missing is still listed; constructing it raises an
``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
from typing import Any

from capeval.metrics.base import Metric

__all__ = [
    "COCO_METRICS",
    "DEFAULT_METRICS",
    "OFFICIAL_NAMES",
    "canonical_name",
    "check_metric_name",
    "get_metric",
    "list_metrics",
    "metric_class",
]

_METRICS: dict[str, str] = {
    "bleu": "capeval.metrics.bleu:BLEU",
    "meteor": "capeval.metrics.meteor:METEOR",
    "rouge-l": "capeval.metrics.rouge:ROUGEL",
    "cider-d": "capeval.metrics.cider:CIDErD",
    "cider-original": "capeval.metrics.cider:CIDEr",
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
    "cider-orig": "cider-original",
    "cider_original": "cider-original",
}

#: The names the official COCO evaluation reports (``COCOEvalCap.eval`` keys), lower-cased, and
#: what they mean there: ``CIDEr`` is CIDEr-D (the original CIDEr is ``cider-original``).
OFFICIAL_NAMES: dict[str, str] = {
    "bleu_1": "bleu",
    "bleu_2": "bleu",
    "bleu_3": "bleu",
    "bleu_4": "bleu",
    "meteor": "meteor",
    "rouge_l": "rouge-l",
    "cider": "cider-d",
    "spice": "spice",
}

#: The metrics of the official COCO caption evaluation, in its order (SPICE when available).
COCO_METRICS: tuple[str, ...] = ("bleu", "meteor", "rouge-l", "cider-d", "spice")
#: Metrics scored when none are named (the CLI, the library, the server): the COCO evaluation's
#: without SPICE, which needs the user's copy of CoreNLP's grammar (``"all"`` or ``"coco"`` add it).
DEFAULT_METRICS: tuple[str, ...] = COCO_METRICS[:4]


def _module_exists(path: str) -> bool:
    module_name = path.split(":")[0]
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        return False


def list_metrics() -> list[str]:
    """Registry keys of the metrics this installation provides."""
    return [name for name, path in _METRICS.items() if _module_exists(path)]


def canonical_name(name: str) -> str:
    """The registry key for a key, an alias or an official name (``"CIDEr"`` -> ``"cider-d"``)."""
    key = name.strip().lower()
    return _ALIASES.get(key, OFFICIAL_NAMES.get(key, key))


def check_metric_name(name: str) -> str:
    """The registry key of ``name`` (see :func:`canonical_name`), checked before any work is done.

    Raises:
        ValueError: for an unknown name, suggesting the closest known names.

    Example:
        >>> check_metric_name("CIDEr")
        'cider-d'
        >>> check_metric_name("blue")
        Traceback (most recent call last):
        ...
        ValueError: unknown metric 'blue' (did you mean 'bleu'?); choose from bleu, ...
    """
    key = canonical_name(name)
    path = _METRICS.get(key)
    if path is None or not _module_exists(path):
        known = list_metrics()
        spellings = {**{k: k for k in known}, **{a: k for a, k in _ALIASES.items() if k in known}}
        spellings.update((o, k) for o, k in OFFICIAL_NAMES.items() if k in known)
        close = difflib.get_close_matches(key, list(spellings), n=3, cutoff=0.6)
        suggestions = list(dict.fromkeys(spellings[c] for c in close))
        hint = f" (did you mean {' or '.join(repr(s) for s in suggestions)}?)" if suggestions else ""
        raise ValueError(f"unknown metric {name!r}{hint}; choose from {', '.join(known)}")
    return key


def metric_class(name: str) -> type[Metric]:
    """The metric class for a registry key, an alias or an official name (``"Bleu_4"``, ``"CIDEr"``).

    Raises:
        ValueError: for an unknown name.
    """
    path = _METRICS[check_metric_name(name)]
    module_name, attr = path.split(":")
    cls: type[Metric] = getattr(importlib.import_module(module_name), attr)
    return cls


def get_metric(name: str, **options: Any) -> Metric:
    """Construct a metric by registry key, e.g. ``get_metric("cider-d", sigma=6.0)``."""
    return metric_class(name)(**options)
