"""Score a corpus with several metrics, tokenizing once: ``evaluate`` and its :class:`Evaluation`.

This is what ``capeval score`` and the evaluation server call: it validates the corpus,
tokenizes candidates and references once per tokenizer (as two streams, like the official
evaluation) and hands the metrics to the executor (:mod:`capeval.engines.executor`), in this
process or in forked workers (``workers``). :func:`capeval.engines.dask.evaluate_dask` runs
the same executor on a Dask cluster.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from capeval.engines.executor import Backend, _identity, default_backend, run
from capeval.io import Corpus
from capeval.metrics.base import CorpusResult, Metric, check_inputs
from capeval.registry import COCO_METRICS, DEFAULT_METRICS, check_metric_name, get_metric, list_metrics
from capeval.types import FloatArray

__all__ = [
    "DEFAULT_METRICS",
    "Evaluation",
    "PreparedReferences",
    "build_metrics",
    "evaluate",
    "prepare_references",
    "resolve_metrics",
]

log = logging.getLogger("capeval")


@dataclass(frozen=True)
class Evaluation:
    """The results of several metrics on one corpus.

    Attributes:
        ids: Item (image) ids in evaluation order.
        results: Metric registry key -> :class:`CorpusResult`.
        timings: Seconds per stage (``tokenize``, then one entry per metric).
    """

    ids: tuple[Hashable, ...]
    results: Mapping[str, CorpusResult]
    timings: Mapping[str, float] = field(default_factory=dict)
    metrics: Mapping[str, Metric] = field(default_factory=dict, repr=False)

    def scores(self) -> dict[str, float]:
        """Every named corpus score under capeval's names (``bleu-1`` ... ``cider-d``)."""
        out: dict[str, float] = {}
        for result in self.results.values():
            out.update(_ordered(result))
        return out

    def official_scores(self) -> dict[str, float]:
        """Corpus scores under the official COCO names (``Bleu_1`` ... ``CIDEr``, ``SPICE``)."""
        names = self.official_names()
        return {names[k]: v for k, v in self.scores().items() if k in names}

    def official_names(self) -> dict[str, str]:
        """capeval output name -> official COCO name, for the outputs that have one."""
        names: dict[str, str] = {}
        for key, metric in self.metrics.items():
            if key in self.results:
                names.update(metric.official_names)
        return names

    def per_image(self, *, official_names: bool = True) -> dict[Hashable, dict[str, float]]:
        """``{image_id: {metric: score}}``; official names where they exist, capeval's otherwise."""
        table: dict[Hashable, dict[str, float]] = {image_id: {} for image_id in self.ids}
        for label, column in self.per_image_columns(official_names=official_names).items():
            for image_id, value in zip(self.ids, column.tolist(), strict=True):
                table[image_id][label] = value
        return table

    def per_image_columns(self, *, official_names: bool = True) -> dict[str, FloatArray]:
        """The table of :meth:`per_image` by column: ``{metric: one score per image}`` (in ``ids`` order)."""
        names = self.official_names() if official_names else {}
        columns: dict[str, FloatArray] = {}
        for result in self.results.values():
            for output in _ordered(result):
                columns[names.get(output, output)] = np.asarray(result.item_table[output], dtype=np.float64)
        return columns

    def signatures(self) -> dict[str, str]:
        """Metric key -> signature string."""
        return {key: str(result.signature) for key, result in self.results.items()}


def _ordered(result: CorpusResult) -> dict[str, float]:
    """Named scores in display order (BLEU-1 before BLEU-4)."""
    return dict(sorted(result.scores.items(), key=lambda kv: _natural_key(kv[0])))


def _natural_key(name: str) -> tuple[str, int]:
    head, _, tail = name.rpartition("-")
    return (head, int(tail)) if tail.isdigit() else (name, -1)


def resolve_metrics(names: Iterable[str] | None) -> list[str]:
    """Expand metric names: ``None``/``"default"`` -> the COCO metrics installed here, ``"all"``."""
    available = list_metrics()
    if names is None:
        return [m for m in DEFAULT_METRICS if m in available]
    out: list[str] = []
    for name in names:
        key = name.strip().lower()
        if not key:
            continue
        if key == "default":
            out.extend(m for m in DEFAULT_METRICS if m in available)
        elif key in ("coco", "all"):
            out.extend(m for m in COCO_METRICS if m in available)
        else:
            out.append(check_metric_name(key))
    seen: dict[str, None] = {}
    for key in out:
        seen.setdefault(key, None)
    return list(seen)


def build_metrics(
    metrics: Iterable[str | Metric] | None,
    *,
    tokenizer: str = "ptb",
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Metric]:
    """Metric instances by registry key: names are expanded and built, instances kept as given."""
    built: dict[str, Metric] = {}
    options = metric_options or {}
    for entry in list(metrics) if metrics is not None else resolve_metrics(None):
        if isinstance(entry, Metric):
            built[entry.name] = entry
        else:
            for key in resolve_metrics([entry]):
                built[key] = get_metric(key, tokenizer=tokenizer, **options.get(key, {}))
    return built


@dataclass(frozen=True)
class PreparedReferences:
    """A reference side tokenized and prepared once, to score many candidate sets against it
    (an evaluation server scores every submission to a split against the same references).

    Built by :func:`prepare_references`; passed to :func:`evaluate` as ``prepared``.

    Attributes:
        references: The raw references, as given (``evaluate`` checks it is called with these).
        metrics: The metrics, by registry key.
        tokenized: Tokenized references per tokenizer name.
        prepared: Each metric's corpus-level reference data (``Metric.prepare``), by key; a metric
            built from others holds its requirements' data, each prepared once.
    """

    references: tuple[tuple[str, ...], ...]
    metrics: Mapping[str, Metric]
    tokenized: Mapping[str, list[list[str]]]
    prepared: Mapping[str, Any]


def prepare_references(
    references: Sequence[Sequence[str]],
    *,
    metrics: Iterable[str | Metric] | None = None,
    tokenizer: str = "ptb",
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
) -> PreparedReferences:
    """Tokenize ``references`` once per tokenizer and prepare every metric (and every metric a
    metric is built from) once, for :func:`evaluate` calls that share these references.

    Example:
        >>> refs = [["a dog runs", "a dog running"]]
        >>> prepared = prepare_references(refs, metrics=["bleu", "cider-d"], tokenizer="ws")
        >>> ev = evaluate(candidates=["a dog runs"], references=refs, prepared=prepared, tokenizer="ws")
        >>> sorted(ev.results)
        ['bleu', 'cider-d']
    """
    raw = tuple(tuple(refs) for refs in references)
    built = build_metrics(metrics, tokenizer=tokenizer, metric_options=metric_options)
    tokenized: dict[str, list[list[str]]] = {}
    leaves: dict[Hashable, Any] = {}

    def prepare(metric: Metric) -> Any:
        if metric.requires:  # as the executor prepares a metric built from others: its requirements
            return {key: prepare(dep) for key, dep in metric.requires.items()}
        name = metric.tokenizer.name
        if name not in tokenized:
            tokenized[name] = metric.tokenize([], raw)[1]
        ident = _identity(metric)
        if ident not in leaves:
            leaves[ident] = metric.prepare(tokenized[name])
        return leaves[ident]

    prepared = {key: prepare(metric) for key, metric in built.items()}
    return PreparedReferences(references=raw, metrics=built, tokenized=tokenized, prepared=prepared)


def evaluate(
    corpus: Corpus | None = None,
    *,
    candidates: Sequence[str] | None = None,
    references: Sequence[Sequence[str]] | None = None,
    ids: Sequence[Hashable] | None = None,
    metrics: Iterable[str | Metric] | None = None,
    tokenizer: str = "ptb",
    progress: bool = False,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    workers: int = 1,
    prepared: PreparedReferences | None = None,
) -> Evaluation:
    """Score a corpus with several metrics, tokenizing it once.

    Args:
        corpus: Aligned corpus (from :func:`capeval.io.load_corpus`); or give
            ``candidates``/``references`` (and optionally ``ids``) instead.
        metrics: Registry keys or metric instances; default: the COCO metrics installed (with
            ``prepared``: its metrics).
        tokenizer: Tokenizer for metrics built here (``"ptb"``: the COCO tokenizer).
        progress: Progress bars on stderr.
        metric_options: Extra constructor options per metric key.
        workers: Worker processes for metrics whose items are independent (large corpora only).
        prepared: These references already tokenized and prepared (:func:`prepare_references`):
            only the candidates are tokenized, and no metric prepares the references again.

    Example:
        >>> ev = evaluate(candidates=["a dog runs"], references=[["a dog runs", "a dog running"]],
        ...               metrics=["bleu", "rouge-l"], tokenizer="ws")
        >>> round(ev.official_scores()["ROUGE_L"], 3)
        1.0
    """
    if corpus is not None:
        if candidates is not None or references is not None:
            raise ValueError("give either a corpus or candidates/references, not both")
        candidates, references, ids = corpus.candidates, corpus.references, corpus.ids
    if candidates is None or references is None:
        raise ValueError("nothing to score: give a corpus or candidates= and references=")
    check_inputs(candidates, references, ids)
    item_ids: tuple[Hashable, ...] = tuple(ids) if ids is not None else tuple(range(len(candidates)))

    backend = default_backend(workers=workers, progress=progress)
    timings: dict[str, float] = {}
    if prepared is not None:
        if metrics is not None or metric_options is not None:
            raise ValueError("with prepared references, the metrics are the prepared ones: leave metrics out")
        if len(references) != len(prepared.references) or any(
            tuple(refs) != given for refs, given in zip(references, prepared.references, strict=True)
        ):
            raise ValueError("these references are not the ones prepared (prepare_references)")
        built = dict(prepared.metrics)
        texts = _prepared_texts(backend, candidates, prepared, timings)
        results = run(built, texts, ids=item_ids, backend=backend, prepared=prepared.prepared, timings=timings)
        return Evaluation(ids=item_ids, results=results, timings=timings, metrics=built)
    built = build_metrics(metrics, tokenizer=tokenizer, metric_options=metric_options)
    results = run(
        built, tokenized_texts(backend, candidates, references, timings), ids=item_ids, backend=backend, timings=timings
    )
    return Evaluation(ids=item_ids, results=results, timings=timings, metrics=built)


def _prepared_texts(
    backend: Backend, candidates: Sequence[str], prepared: PreparedReferences, timings: dict[str, float]
) -> Callable[[Metric], tuple[list[str], list[list[str]]]]:
    """The candidates tokenized once per tokenizer, with the prepared tokenized references."""
    tokenized: dict[str, list[str]] = {}

    def texts(metric: Metric) -> tuple[list[str], list[list[str]]]:
        name = metric.tokenizer.name
        if name not in tokenized:
            start = time.perf_counter()
            tokenized[name] = backend.tokenize(metric, candidates, [])[0]
            timings["tokenize" if len(tokenized) == 1 else f"tokenize:{name}"] = time.perf_counter() - start
        if name not in prepared.tokenized:
            raise ValueError(f"{metric.name}: references were not prepared with the {name!r} tokenizer")
        return tokenized[name], prepared.tokenized[name]

    return texts


def tokenized_texts(
    backend: Backend,
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    timings: dict[str, float],
) -> Callable[[Metric], tuple[list[str], list[list[str]]]]:
    """The corpus tokenized once per tokenizer, on first request (timed as ``tokenize``)."""
    tokenized: dict[str, tuple[list[str], list[list[str]]]] = {}

    def texts(metric: Metric) -> tuple[list[str], list[list[str]]]:
        tok_name = metric.tokenizer.name
        if tok_name not in tokenized:
            start = time.perf_counter()
            tokenized[tok_name] = backend.tokenize(metric, candidates, references)
            label = f"tokenize:{tok_name}" if tokenized.keys() - {tok_name} else "tokenize"
            timings[label] = time.perf_counter() - start
        return tokenized[tok_name]

    return texts
