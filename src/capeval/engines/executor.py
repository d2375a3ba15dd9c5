"""The one executor: every way of running metrics (serial, forked workers, Dask) goes through here.

A run takes metrics (each a pure declaration: ``prepare``, ``item_stats``, ``item_details``,
``compute``, ``requires``) and tokenized items, and returns one
:class:`~capeval.metrics.base.CorpusResult` per metric. It

1. resolves ``requires``: the metrics a metric is built from (SPIDEr: CIDEr-D and SPICE;
   NNEval: its features) are scored once, and shared with an identically configured metric
   (same signature) requested in the same run or given in ``reuse``;
2. prepares each metric once on all references (``prepare``);
3. lets a :class:`Backend` compute statistics rows and per-item details, whole or in
   contiguous shards concatenated in input order; metrics the backend computes elsewhere
   (forked workers, a cluster) are started first and run while this process scores the others;
4. reduces the rows with the metric's template (``result_from_stats``).

Only the backend differs between serial, forked and Dask runs, so the results (scores,
statistics, details, signatures) are the same whichever runs them.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from capeval.metrics.base import CorpusResult, Metric
from capeval.metrics.ngrams import shared_encodings
from capeval.types import FloatArray

__all__ = ["READ_AHEAD", "Backend", "ForkedBackend", "Rows", "SerialBackend", "default_backend", "run", "score_one"]

log = logging.getLogger("capeval")

#: Statistics rows of a batch and its per-item details (``None`` when the metric has none).
Rows = tuple[FloatArray, list[Any] | None]
#: Tokenized ``(candidates, references)`` of the corpus for a metric's tokenizer.
Texts = Callable[[Metric], tuple[Sequence[str], Sequence[Sequence[str]]]]
#: Waits for rows started by :meth:`Backend.start`; returns them and when they were ready
#: (``time.perf_counter()``).
Pending = Callable[[], tuple[Rows, float]]

#: Items per chunk when scoring with a progress bar.
PROGRESS_CHUNK = 4096
#: Captions that follow a partition, given to its tokenizer as context (Dask, streaming): the
#: PTB tokenizer's lookahead reaches into the next caption at most, so a partition tokenized with
#: them gets the tokens it gets in the whole stream.
READ_AHEAD = 3


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

    def elsewhere(self, metric: Metric, n: int) -> bool:
        """Whether :meth:`start` computes ``n`` items of ``metric`` outside this process, so that
        this process is free to score other metrics meanwhile (default: never)."""
        return False

    def start(
        self,
        metric: Metric,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        prepared: Any,
        *,
        alongside: bool = False,
    ) -> Pending:
        """Begin computing the rows; the returned callable waits for them.

        ``alongside``: this process scores other metrics meanwhile (work started elsewhere then
        leaves it room). The default computes the rows now, in this process (with :meth:`rows`).
        """
        rows = self.rows(metric, candidates, references, prepared)
        ready = time.perf_counter()
        return lambda: (rows, ready)

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

    def elsewhere(self, metric: Metric, n: int) -> bool:
        """Whether ``n`` items of ``metric`` are scored in worker processes."""
        threshold = self.min_items if self.min_items is not None else metric.parallel_min_items
        return self.workers > 1 and metric.parallel_safe and n >= max(threshold, 2) and can_fork()

    def rows(
        self, metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> Rows:
        """Rows and details, from worker processes when the corpus is large enough."""
        if not self.elsewhere(metric, len(candidates)):
            return super().rows(metric, candidates, references, prepared)
        return self.start(metric, candidates, references, prepared)()[0]

    def start(
        self,
        metric: Metric,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        prepared: Any,
        *,
        alongside: bool = False,
    ) -> Pending:
        """Fork the workers (they inherit the job) and return at once; in this process when
        :meth:`elsewhere` says no. ``alongside`` other work in this process, one worker fewer
        is forked (at least one): this process keeps a core, and a metric that runs threads of
        its own (METEOR) does less work twice."""
        global _FORK_JOB
        n = len(candidates)
        if not self.elsewhere(metric, n):
            return super().start(metric, candidates, references, prepared)
        from concurrent.futures import Future, ProcessPoolExecutor

        processes = max(1, self.workers - 1) if alongside else self.workers
        ready: list[float] = []
        _FORK_JOB = (metric, candidates, references, prepared)
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
        try:
            # With fork, the first submission starts every worker: they hold the job from here on.
            futures = [pool.submit(_fork_shard, bounds) for bounds in shard_bounds(n, processes)]
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
        finally:
            _FORK_JOB = None

        def done(_: Future[Rows]) -> None:
            ready.append(time.perf_counter())

        for future in futures:
            future.add_done_callback(done)

        def wait() -> tuple[Rows, float]:
            try:
                parts = [future.result() for future in futures]
            finally:
                pool.shutdown(cancel_futures=True)
            # a callback may still be running just after the last result arrived
            finished = max(ready) if len(ready) == len(futures) else time.perf_counter()
            return concat_rows(metric, parts), finished

        return wait


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
    pending: dict[Hashable, tuple[Pending, float]] = {}

    def begin(ident: Hashable, alongside: bool) -> None:
        """Reuse a result, or start computing the rows (in the background where the backend can)."""
        key, metric = nodes[ident]
        cands, refs = texts(metric)
        if backend.progress:
            log.info("scoring %s on %s items", key, f"{len(cands):,}")
        start = time.perf_counter()
        reused = _reusable(key, metric, reuse, refs)
        if reused is not None:
            done[ident], data_of[ident] = reused, None
            return
        data = given.get(ident, _UNSET)
        if data is _UNSET:
            data = metric.prepare(refs)
        data_of[ident] = data
        pending[ident] = (backend.start(metric, cands, refs, data, alongside=alongside), start)

    def finish(ident: Hashable) -> None:
        """The result of a started metric, or of one built from finished requirements."""
        if ident in done:
            return
        key, metric = nodes[ident]
        cands, refs = texts(metric)
        details: list[Any] | None = None
        if metric.requires:
            start = time.perf_counter()
            deps = {k: _identity(m) for k, m in metric.requires.items()}
            for dep in deps.values():
                finish(dep)
            data: Any = {k: data_of[d] for k, d in deps.items()}
            stats = np.asarray(
                metric.item_stats_from({k: done[d].item_table for k, d in deps.items()}), dtype=np.float64
            )
            ready = time.perf_counter()
        else:
            wait, start = pending.pop(ident)
            (stats, details), ready = wait()
            data = data_of[ident]
        data_of[ident] = data
        reduce_start = time.perf_counter()
        done[ident] = metric.result_from_stats(stats, prepared=data, references=refs, ids=ids, details=details)
        # from its start to its rows ready (work elsewhere overlaps this process's), and the reduction
        seconds = ready - start + time.perf_counter() - reduce_start
        if timings is not None:
            timings[key] = timings.get(key, 0.0) + seconds
        log.debug("%s on %s items (%s): %.3f s", key, len(cands), backend.name, seconds)

    # Metrics computed elsewhere start first and run while this process scores the others.
    size = len(texts(nodes[order[0]][1])[0]) if order else 0
    away = [i for i in order if not nodes[i][1].requires and backend.elsewhere(nodes[i][1], size)]
    here = [i for i in order if i not in away and not nodes[i][1].requires]
    try:
        with shared_encodings():  # metrics on the same text split it into words once
            for ident in away:
                begin(ident, bool(here))
            for ident in here:
                begin(ident, False)
            for ident in order:
                finish(ident)
    finally:
        for wait, _ in pending.values():  # an error left work running: wait for it to stop
            with contextlib.suppress(Exception):
                wait()
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
