"""The one executor: every way of running metrics (serial, forked workers, Dask) goes through here.

A run takes metrics (each a pure declaration: ``prepare``, ``item_stats``, ``item_details``,
``compute``, ``requires``) and tokenized items, and returns one
:class:`~capeval.metrics.base.CorpusResult` per metric. It

1. resolves ``requires``: the metrics a metric is built from (SPIDEr: CIDEr-D and SPICE;
   NNEval: its features) are scored once, and shared with an identically configured metric
   (same signature) requested in the same run or given in ``reuse``;
2. prepares each metric once on all references (``prepare``);
3. lets a :class:`Backend` compute statistics rows and per-item details, whole or in
   contiguous shards concatenated in input order;
4. reduces the rows with the metric's template (``result_from_stats``).

Only the backend differs between serial, forked and Dask runs, so the results (scores,
statistics, details, signatures) are the same whichever runs them.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from capeval.metrics.base import CorpusResult, Metric
from capeval.types import FloatArray

__all__ = ["Backend", "ForkedBackend", "Rows", "SerialBackend", "default_backend", "run", "score_one"]

log = logging.getLogger("capeval")

#: Statistics rows of a batch and its per-item details (``None`` when the metric has none).
Rows = tuple[FloatArray, list[Any] | None]
#: Tokenized ``(candidates, references)`` of the corpus for a metric's tokenizer.
Texts = Callable[[Metric], tuple[Sequence[str], Sequence[Sequence[str]]]]

#: Items per chunk when scoring with a progress bar.
PROGRESS_CHUNK = 4096


def item_rows(metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> Rows:
    """Statistics rows and details of one batch (what every backend computes per shard)."""
    stats = np.asarray(metric.item_stats(candidates, references, prepared), dtype=np.float64)
    stats = stats.reshape(len(candidates), len(metric.stat_names))
    details = metric.item_details(candidates, references, prepared)
    if details is not None:
        details = list(details)
        if len(details) != len(candidates):
            raise ValueError(f"{metric.name}: {len(details)} item details for {len(candidates)} items")
    return stats, details


def concat_rows(metric: Metric, parts: Sequence[Rows]) -> Rows:
    """Shards' rows and details, concatenated in order."""
    if not parts:
        return np.zeros((0, len(metric.stat_names))), None
    stats = np.concatenate([p[0] for p in parts])
    if any(p[1] is None for p in parts):
        return stats, None
    return stats, [d for p in parts for d in p[1] or ()]


def shard_bounds(n: int, shards: int) -> list[tuple[int, int]]:
    """``shards`` contiguous, nearly equal ``(start, stop)`` ranges covering ``range(n)``."""
    shards = max(1, min(shards, n)) if n else 1
    edges = np.linspace(0, n, shards + 1).astype(int).tolist()
    return list(zip(edges[:-1], edges[1:], strict=True))


class Backend:
    """Where statistics rows are computed: in this process, in forked workers, on a cluster.

    Subclasses override :meth:`rows`; the default scores the batch in this process (with a
    progress bar in chunks when asked).
    """

    #: Short name for logs and tests.
    name = "serial"

    def __init__(self, *, progress: bool = False) -> None:
        self.progress = progress

    def rows(
        self, metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> Rows:
        """Rows and details of all items, in input order."""
        n = len(candidates)
        if not self.progress or n <= PROGRESS_CHUNK:
            return item_rows(metric, candidates, references, prepared)
        from tqdm import tqdm

        parts = []
        with tqdm(total=n, desc=metric.name, unit="item", leave=False) as bar:
            for start, stop in shard_bounds(n, -(-n // PROGRESS_CHUNK)):
                parts.append(item_rows(metric, candidates[start:stop], references[start:stop], prepared))
                bar.update(stop - start)
        return concat_rows(metric, parts)

    def tokenize(
        self, metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]]
    ) -> tuple[list[str], list[list[str]]]:
        """Raw captions to tokens with the metric's tokenizer (two streams, as the official code)."""
        return metric.tokenize(candidates, references)


class SerialBackend(Backend):
    """Everything in this process."""


# The job a forked worker reads (inherited through fork, never pickled).
_FORK_JOB: tuple[Metric, Sequence[str], Sequence[Sequence[str]], Any] | None = None


def _fork_shard(bounds: tuple[int, int]) -> Rows:
    assert _FORK_JOB is not None, "a forked worker inherits its job"
    metric, candidates, references, prepared = _FORK_JOB
    start, stop = bounds
    return item_rows(metric, candidates[start:stop], references[start:stop], prepared)


def can_fork() -> bool:
    """Whether this platform starts processes by fork (Linux; not Windows)."""
    return "fork" in multiprocessing.get_all_start_methods()


class ForkedBackend(Backend):
    """Contiguous shards scored in forked worker processes (shared memory, nothing pickled in).

    Metrics that are not ``parallel_safe``, and corpora smaller than the metric's
    ``parallel_min_items`` (or ``min_items`` when given), are scored in this process.

    Args:
        workers: Worker processes.
        min_items: Override every metric's ``parallel_min_items`` (tests fork tiny corpora).
        progress: Progress bars for what runs in this process.
    """

    name = "forked"

    def __init__(self, workers: int, *, min_items: int | None = None, progress: bool = False) -> None:
        super().__init__(progress=progress)
        self.workers = workers
        self.min_items = min_items

    def rows(
        self, metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> Rows:
        """Rows and details, from worker processes when the corpus is large enough."""
        global _FORK_JOB
        n = len(candidates)
        threshold = self.min_items if self.min_items is not None else metric.parallel_min_items
        if self.workers <= 1 or not metric.parallel_safe or n < max(threshold, 2) or not can_fork():
            return super().rows(metric, candidates, references, prepared)
        from concurrent.futures import ProcessPoolExecutor

        _FORK_JOB = (metric, candidates, references, prepared)
        try:
            with ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork")) as pool:
                parts = list(pool.map(_fork_shard, shard_bounds(n, self.workers)))
        finally:
            _FORK_JOB = None
        return concat_rows(metric, parts)


def default_backend(*, workers: int = 1, progress: bool = False) -> Backend:
    """The in-process backend, or forked workers for ``workers > 1``."""
    return ForkedBackend(workers, progress=progress) if workers > 1 else SerialBackend(progress=progress)


def _identity(metric: Metric) -> tuple[Hashable, ...]:
    """Metrics with the same class and signature compute the same numbers: one result serves both."""
    return (type(metric).__module__, type(metric).__qualname__, str(metric.signature()))


def _reusable(
    key: str, metric: Metric, reuse: Mapping[str, CorpusResult] | None, references: Sequence[Sequence[str]]
) -> CorpusResult | None:
    """A given result for ``key`` when it covers these items with the same configuration."""
    if not reuse or key not in reuse:
        return None
    result = reuse[key]
    if result.n_items != len(references) or result.metric != metric.name:
        return None
    expected = metric.signature(None, references)
    return result if result.signature.fields == expected.fields else None


_UNSET = object()


def run(
    metrics: Mapping[str, Metric],
    texts: Texts,
    *,
    ids: Sequence[Hashable] | None,
    backend: Backend,
    prepared: Mapping[str, Any] | None = None,
    reuse: Mapping[str, CorpusResult] | None = None,
    timings: dict[str, float] | None = None,
) -> dict[str, CorpusResult]:
    """Score tokenized items with several metrics (and what they require), once each.

    Args:
        metrics: Key -> metric, in the order results are returned.
        texts: Tokenized ``(candidates, references)`` of the whole corpus for a metric's
            tokenizer (called once per metric scored; callers cache per tokenizer).
        ids: Item identifiers carried into the results.
        backend: Where statistics rows are computed.
        prepared: Key -> corpus-level reference data already prepared for that metric.
        reuse: Key -> result already computed on these items; used for a metric (requested or
            required) whose signature matches.
        timings: Filled with seconds per metric key when given.

    Returns:
        Key -> result, for the keys of ``metrics``.
    """
    nodes: dict[Hashable, tuple[str, Metric]] = {}
    order: list[Hashable] = []
    given: dict[Hashable, Any] = {}

    def visit(key: str, metric: Metric, top: bool, data: Any) -> Hashable:
        ident = _identity(metric)
        if data is not _UNSET and not metric.requires:
            given.setdefault(ident, data)
        for dep_key, dep in metric.requires.items():
            dep_data = data.get(dep_key, _UNSET) if isinstance(data, Mapping) else _UNSET
            visit(dep_key, dep, False, dep_data)
        if ident not in nodes:
            order.append(ident)
            nodes[ident] = (key, metric)
        elif top:  # a requested metric's own options (e.g. SPICE details) win over a requirement's
            nodes[ident] = (key, metric)
        return ident

    top_ident = {key: visit(key, metric, True, (prepared or {}).get(key, _UNSET)) for key, metric in metrics.items()}
    for ident in order:  # one-time set-up that can run in the background starts before any scoring
        nodes[ident][1].prefetch()

    done: dict[Hashable, CorpusResult] = {}
    data_of: dict[Hashable, Any] = {}
    for ident in order:
        key, metric = nodes[ident]
        cands, refs = texts(metric)
        if backend.progress:
            log.info("scoring %s on %s items", key, f"{len(cands):,}")
        start = time.perf_counter()
        reused = _reusable(key, metric, reuse, refs)
        if reused is not None:
            done[ident], data_of[ident] = reused, None
            continue
        details: list[Any] | None = None
        if metric.requires:
            deps = {k: _identity(m) for k, m in metric.requires.items()}
            data: Any = {k: data_of[d] for k, d in deps.items()}
            stats = np.asarray(
                metric.item_stats_from({k: done[d].item_table for k, d in deps.items()}), dtype=np.float64
            )
        else:
            data = given.get(ident, _UNSET)
            if data is _UNSET:
                data = metric.prepare(refs)
            stats, details = backend.rows(metric, cands, refs, data)
        data_of[ident] = data
        done[ident] = metric.result_from_stats(stats, prepared=data, references=refs, ids=ids, details=details)
        if timings is not None:
            timings[key] = timings.get(key, 0.0) + time.perf_counter() - start
        log.debug("%s on %s items (%s): %.3f s", key, len(cands), backend.name, time.perf_counter() - start)
    return {key: done[ident] for key, ident in top_ident.items()}


def score_one(
    metric: Metric,
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    ids: Sequence[Hashable] | None = None,
    prepared: Any = None,
    progress: bool = False,
    workers: int = 1,
    reuse: Mapping[str, CorpusResult] | None = None,
) -> CorpusResult:
    """One metric on tokenized items (what :meth:`Metric.score_tokenized` runs)."""
    given = {metric.name: prepared} if prepared is not None else None
    results = run(
        {metric.name: metric},
        lambda _: (candidates, references),
        ids=ids,
        backend=default_backend(workers=workers, progress=progress),
        prepared=given,
        reuse=reuse,
    )
    return results[metric.name]
