"""Scoring through the library, and the leaderboard's significance markers.

The server holds no metric logic: a submission is scored on a split with one
:func:`capeval.engines.evaluate` call for all of the challenge's metrics (so what they share,
CIDEr-D and SPICE for SPIDEr or NNEval's feature metrics, is computed once), and significance
uses :func:`capeval.stats.paired_bootstrap` on the stored statistics rows with the metric's own
``compute``. References are tokenized and prepared once per split
(:func:`capeval.engines.prepare_references`, keyed by their SHA-256) and reused by every job a
worker runs.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from capeval._version import __version__

if TYPE_CHECKING:
    from capeval.engines import PreparedReferences

__all__ = [
    "available_metrics",
    "parse_scorer_version",
    "compare_to_baseline",
    "PreparedSplit",
    "prepare_split",
    "split_cache",
    "score_split",
    "scorer_version",
]

log = logging.getLogger("capeval")

#: Confidence level of the leaderboard's paired-bootstrap intervals.
SIGNIFICANCE_CONFIDENCE = 0.95


def available_metrics(wanted: Sequence[str]) -> tuple[str, ...]:
    """The wanted metrics that can score here, in the wanted order.

    Each candidate metric scores a one-item corpus once, so a metric whose optional data or
    model is missing (METEOR's tables, SPICE's parser) is left out with a log line instead of
    failing every job later.
    """
    from capeval.engines import evaluate
    from capeval.registry import list_metrics

    present = set(list_metrics())
    out = []
    for name in wanted:
        if name not in present:
            log.info("metric %s is not installed; not scored", name)
            continue
        try:
            evaluate(candidates=["a dog runs ."], references=[["a dog runs ."]], metrics=[name], tokenizer="none")
        except Exception as exc:  # noqa: BLE001 - an optional metric that cannot run is skipped
            log.warning("metric %s unavailable (%s: %s); not scored", name, type(exc).__name__, exc)
            continue
        out.append(name)
    return tuple(out)


def scorer_version(metrics: Sequence[str], tokenizer: str) -> str:
    """The scorer identity results are keyed by: library version, tokenizer and metric set."""
    return f"capeval-{__version__}|tok:{tokenizer}|{','.join(metrics)}"


def parse_scorer_version(version: str) -> tuple[tuple[str, ...], str]:
    """Metrics and tokenizer named by a :func:`scorer_version` string."""
    try:
        _, tok, metrics = version.split("|")
    except ValueError:
        raise ValueError(f"malformed scorer version {version!r}") from None
    return tuple(m for m in metrics.split(",") if m), tok.removeprefix("tok:")


@dataclass
class PreparedSplit:
    """A split ready for scoring: its ids and its references tokenized and prepared by the library
    (:func:`capeval.engines.prepare_references`).

    Built once per (split, references hash, metrics, tokenizer) and reused by every job, so the
    reference side (tokenization, CIDEr-D document frequencies, SPICE reference graphs, learned
    metrics' reference features) is not recomputed per submission.
    """

    ids: list[int]
    references: PreparedReferences

    @property
    def metrics(self) -> Mapping[str, Any]:
        """The metrics, by registry key."""
        return self.references.metrics


class _SplitCache:
    """Process-wide cache of :class:`PreparedSplit` objects (a worker's jobs share it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[tuple[int, str, tuple[str, ...], str], PreparedSplit] = {}
        self.misses = 0

    def get(self, split_id: int, sha256: str, payload: str, metrics: Sequence[str], tokenizer: str) -> PreparedSplit:
        """The prepared split, built on first use."""
        key = (split_id, sha256, tuple(metrics), tokenizer)
        with self._lock:
            cached = self._data.get(key)
            if cached is None:
                self.misses += 1
                references = {int(k): v for k, v in json.loads(payload).items()}
                cached = prepare_split(references, metrics, tokenizer)
                self._data[key] = cached
            return cached

    def clear(self) -> None:
        """Forget every prepared split."""
        with self._lock:
            self._data.clear()


def prepare_split(references: Mapping[int, list[str]], metrics: Sequence[str], tokenizer: str) -> PreparedSplit:
    """Tokenize a split's references and prepare every metric once (in image id order)."""
    from capeval.engines import prepare_references

    ids = sorted(references)
    prepared = prepare_references([list(references[i]) for i in ids], metrics=list(metrics), tokenizer=tokenizer)
    return PreparedSplit(ids=ids, references=prepared)


#: Process-wide cache of prepared splits.
split_cache = _SplitCache()


def _evaluate(split: PreparedSplit, candidates: Mapping[int, str]) -> Any:
    """Every metric of the split on one submission, in one :func:`capeval.engines.evaluate` call:
    what several metrics share (CIDEr-D and SPICE for SPIDEr, the feature metrics of NNEval) is
    computed once."""
    from capeval.engines import evaluate

    return evaluate(
        candidates=[candidates[i] for i in split.ids],
        references=split.references.references,
        ids=split.ids,
        prepared=split.references,
    )


def score_split(
    candidates: Mapping[int, str],
    references: Mapping[int, list[str]] | PreparedSplit,
    *,
    metrics: Sequence[str],
    tokenizer: str,
) -> dict[str, Any]:
    """Score one split with the library.

    Args:
        candidates: ``{image_id: caption}`` covering the split.
        references: ``{image_id: [captions]}``, or a :class:`PreparedSplit` (from :data:`split_cache`).
        metrics: Registry keys (used when ``references`` is not prepared yet).
        tokenizer: Tokenizer name (same).

    Returns:
        ``{"scores_json", "signatures_json", "items_json", "seconds"}`` ready for a ``Result`` row.
    """
    split = references if isinstance(references, PreparedSplit) else prepare_split(references, metrics, tokenizer)
    ids = split.ids
    start = time.perf_counter()
    evaluation = _evaluate(split, candidates)
    seconds = time.perf_counter() - start
    results, order = evaluation.results, list(evaluation.scores())
    scores: dict[str, float] = {}
    signatures: dict[str, str] = {}
    item_scores: dict[str, list[float]] = {}
    stats: dict[str, list[list[float]]] = {}
    stat_names: dict[str, list[str]] = {}
    output_metric: dict[str, str] = {}
    for name, result in results.items():
        outputs = dict(result.scores) or {name: result.score}
        for output, value in outputs.items():
            scores[output] = float(value)
            output_metric[output] = name
            table = result.item_table.get(output) if result.item_table else None
            values = table if table is not None else (result.item_scores if output == name else None)
            if values is not None:
                item_scores[output] = [float(v) for v in np.asarray(values, dtype=float)]
        signatures[name] = str(result.signature)
        stats[name] = np.asarray(result.stats, dtype=float).tolist()
        stat_names[name] = list(result.stat_names)
        if result.ids is not None and list(result.ids) != ids:
            raise RuntimeError(f"{name}: the library returned items in a different order")
    scores = {name: scores[name] for name in order if name in scores} | scores
    item_scores = {name: item_scores[name] for name in scores if name in item_scores}
    items = {
        "ids": ids,
        "item_scores": item_scores,
        "stats": stats,
        "stat_names": stat_names,
        "output_metric": output_metric,
    }
    return {
        "scores_json": json.dumps(scores),
        "signatures_json": json.dumps(signatures),
        "items_json": json.dumps(items),
        "seconds": seconds,
    }


@lru_cache(maxsize=32)
def _metric(name: str) -> Any:
    from capeval.registry import get_metric

    return get_metric(name, tokenizer="none")


def _output_scorer(metric_name: str, output: str) -> Any:
    metric = _metric(metric_name)

    def scorer(totals: np.ndarray) -> float:
        return float(metric.compute(totals)[output])

    scorer.__name__ = output
    return scorer


def compare_to_baseline(
    baseline_items: Mapping[str, Any],
    system_items: Mapping[str, Any],
    output: str,
    *,
    n_resamples: int,
    seed: int,
) -> dict[str, float] | None:
    """Paired bootstrap of one output column, system vs baseline, on the same images.

    Returns:
        ``{"delta", "low", "high", "p_value"}`` or ``None`` when the column cannot be compared.
    """
    from capeval.stats import paired_bootstrap

    metric_name = system_items.get("output_metric", {}).get(output)
    if metric_name is None or baseline_items.get("ids") != system_items.get("ids"):
        return None
    try:
        base = np.asarray(baseline_items["stats"][metric_name], dtype=float)
        system = np.asarray(system_items["stats"][metric_name], dtype=float)
        result = paired_bootstrap(
            base,
            system,
            metric=_output_scorer(metric_name, output),
            n_resamples=n_resamples,
            confidence=SIGNIFICANCE_CONFIDENCE,
            seed=seed,
        )
    except (KeyError, ValueError) as exc:
        log.debug("no significance for %s: %s", output, exc)
        return None
    return {"delta": result.delta, "low": result.delta_low, "high": result.delta_high, "p_value": result.p_value}
