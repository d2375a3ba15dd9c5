"""Score a corpus too large for memory, partition by partition, in bounded memory.

The corpus is never held whole: a *source* function returns the raw items of any range
``[lo, hi)`` (read from disk, generated, ...), and each partition is tokenized, scored and
dropped. Memory is bounded by the partition size and by the corpus-level data, not by the
number of items:

1. first pass (when CIDEr-D / CIDEr count document frequencies from the evaluated references):
   each partition's references are tokenized and their distinct n-grams per item counted;
   the counts are merged into one table whose size is the number of distinct n-grams;
2. second pass: each partition is tokenized and scored with those frequencies; only the
   column sums of the statistics (and, on request, the per-item scores) are kept.

The per-item statistics are those of in-process scoring: each partition's tokenizer sees
the next few captions as read-ahead context, exactly as the Dask engine does, and CIDEr-D
gets the document frequencies of the whole corpus. Corpus scores come from the summed
statistics, added in the order in-process scoring adds them, so they are the same numbers.

With a ``distributed.Client`` the partitions run on the Dask workers (the source function is
shipped to them and called there, so the items never pass through the client).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from capeval.engines.executor import READ_AHEAD
from capeval.engines.local import build_metrics
from capeval.metrics.base import FloatArray, Metric
from capeval.metrics.cider import DocumentFrequencies
from capeval.tokenizers.base import get_tokenizer

__all__ = ["Source", "StreamResult", "evaluate_stream"]

#: ``source(lo, hi) -> (candidates, references)``: the raw items ``lo..hi-1``.
Source = Callable[[int, int], tuple[list[str], list[list[str]]]]
#: Bits per word id in a packed n-gram key (four words in 64 bits).
_WORD_BITS = 16


@dataclass
class StreamResult:
    """Corpus scores of a streamed evaluation.

    Attributes:
        scores: Metric key -> its corpus scores (``compute`` of the summed statistics).
        totals: Metric key -> summed statistics row.
        n_items: Items scored.
        timings: Seconds per pass (``frequencies``, ``score``).
        item_scores: Metric key -> per-item primary scores (only with ``keep_items``).
    """

    scores: dict[str, dict[str, float]]
    totals: dict[str, FloatArray]
    n_items: int
    timings: dict[str, float] = field(default_factory=dict)
    item_scores: dict[str, FloatArray] = field(default_factory=dict)


def _tokenize_range(source: Source, lo: int, hi: int, n: int, tokenizer_name: str) -> tuple[list[str], list[list[str]]]:
    """Tokenized items ``lo..hi-1``, with read-ahead context from the items that follow."""
    cands, refs = source(lo, hi)
    next_cands, next_refs = source(hi, min(hi + READ_AHEAD, n)) if hi < n else ([], [])
    tokenizer = get_tokenizer(tokenizer_name)
    cand_tok = tokenizer.tokenize([*cands, *next_cands[:READ_AHEAD]])[: len(cands)]
    flat = [r for item in refs for r in item]
    following = [r for item in next_refs for r in item][:READ_AHEAD]
    flat_tok = iter(tokenizer.tokenize([*flat, *following])[: len(flat)])
    return cand_tok, [[next(flat_tok) for _ in item] for item in refs]


def _partition_ngrams(source: Source, lo: int, hi: int, n: int, tokenizer_name: str, order: int) -> dict[str, Any]:
    """Item counts of the n-grams of one partition's references, as packed word-id keys."""
    _, refs = _tokenize_range(source, lo, hi, n, tokenizer_name)
    df = DocumentFrequencies.from_references(refs, n=order)
    if len(df.vocab) > 1 << _WORD_BITS:
        raise ValueError(f"streamed document frequencies support at most {1 << _WORD_BITS} distinct words")
    packed = np.zeros(df.df.shape[0], dtype=np.uint64)
    out: dict[str, Any] = {"words": list(df.vocab)}
    for k in range(1, order + 1):
        a, b = int(df.offsets[k - 1]), int(df.offsets[k])
        last = np.asarray(df.last_word[a:b], dtype=np.uint64)
        if k == 1:
            packed[a:b] = last
        else:
            packed[a:b] = (packed[np.asarray(df.prefix[a:b], dtype=np.int64)] << np.uint64(_WORD_BITS)) | last
        out[f"keys{k}"] = packed[a:b].copy()
        out[f"counts{k}"] = np.asarray(df.df[a:b], dtype=np.int64)
    return out


class _FrequencyMerger:
    """Item counts of every n-gram over all partitions (memory: the distinct n-grams)."""

    def __init__(self, order: int) -> None:
        self.order = order
        self.words: dict[str, int] = {}
        self.keys = [np.zeros(0, dtype=np.uint64) for _ in range(order)]
        self.counts = [np.zeros(0, dtype=np.int64) for _ in range(order)]

    def add(self, part: dict[str, Any]) -> None:
        words = part["words"]
        local = np.fromiter((self.words.setdefault(w, len(self.words)) for w in words), np.uint64, len(words))
        if len(self.words) > 1 << _WORD_BITS:
            raise ValueError(f"streamed document frequencies support at most {1 << _WORD_BITS} distinct words")
        mask = np.uint64((1 << _WORD_BITS) - 1)
        for k in range(1, self.order + 1):
            keys = part[f"keys{k}"]
            glob = np.zeros(keys.shape[0], dtype=np.uint64)
            for j in range(k):  # re-encode the partition's word ids as global ones
                shift = np.uint64(_WORD_BITS * (k - 1 - j))
                glob |= local[((keys >> shift) & mask).astype(np.int64)] << shift
            keys_all = np.concatenate([self.keys[k - 1], glob])
            order = np.argsort(keys_all, kind="stable")
            keys_all = keys_all[order]
            counts_all = np.concatenate([self.counts[k - 1], part[f"counts{k}"]])[order]
            del order
            starts = np.flatnonzero(np.concatenate([[True], keys_all[1:] != keys_all[:-1]]))
            self.keys[k - 1] = keys_all[starts]
            self.counts[k - 1] = np.add.reduceat(counts_all, starts) if starts.size else counts_all

    def frozen(self, n_documents: int) -> DocumentFrequencies:
        """The merged counts as :class:`DocumentFrequencies` (ids ordered as ``from_references``)."""
        vocab_words = list(self.words)
        # unigram ids are word ids: renumber words by their first-seen id (keys are sorted by id)
        uni = self.keys[0].astype(np.int64)
        if not np.array_equal(uni, np.arange(uni.shape[0])):
            raise ValueError("internal error: every reference word must be a unigram")
        prefix = [np.full(uni.shape[0], -1, dtype=np.int64)]
        last = [uni]
        offsets = [0, uni.shape[0]]
        for k in range(2, self.order + 1):
            keys = self.keys[k - 1]
            pos = np.searchsorted(self.keys[k - 2], keys >> np.uint64(_WORD_BITS))
            prefix.append(pos.astype(np.int64) + offsets[k - 2])
            last.append((keys & np.uint64((1 << _WORD_BITS) - 1)).astype(np.int64))
            offsets.append(offsets[-1] + keys.shape[0])
        return DocumentFrequencies(
            n_documents=n_documents,
            name="refs",
            n=self.order,
            vocab=tuple(vocab_words),
            prefix=np.concatenate(prefix),
            last_word=np.concatenate(last),
            offsets=np.asarray(offsets, dtype=np.int64),
            df=np.concatenate(self.counts).astype(np.float64),
        )


def _score_range(
    source: Source, lo: int, hi: int, n: int, metrics: dict[str, Metric], frequencies: Any, keep_items: bool
) -> dict[str, Any]:
    """Statistics rows (and optionally item scores) of every metric on one partition."""
    tokenized: dict[str, tuple[list[str], list[list[str]]]] = {}
    out: dict[str, Any] = {}
    for key, metric in metrics.items():
        name = metric.tokenizer.name
        if name not in tokenized:
            tokenized[name] = _tokenize_range(source, lo, hi, n, name)
        cands, refs = tokenized[name]
        prepared = frequencies if _counts_frequencies(metric) else metric.prepare(refs)
        stats = np.asarray(metric.item_stats(cands, refs, prepared), dtype=np.float64)
        out[key] = stats
        if keep_items:
            out[key + "/items"] = metric.item_outputs(stats)[metric.primary]
    return out


def _counts_frequencies(metric: Metric) -> bool:
    """Whether ``metric`` counts corpus data from the evaluated references (CIDEr's frequencies)."""
    return callable(getattr(metric.prepare([]), "frozen", None))


def evaluate_stream(
    source: Source,
    n_items: int,
    *,
    metrics: Iterable[str | Metric] | None = ("bleu", "rouge-l", "cider-d"),
    tokenizer: str = "ptb",
    partition_size: int = 50_000,
    client: Any = None,
    keep_items: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> StreamResult:
    """Score ``n_items`` items read through ``source`` one partition at a time.

    Args:
        source: ``source(lo, hi) -> (candidates, references)``, raw text of items ``lo..hi-1``;
            it must return the same items every time it is asked (it is asked twice).
        n_items: Number of items.
        metrics: Registry keys or metric instances (item-independent metrics and CIDEr).
        tokenizer: Tokenizer for metrics built here.
        partition_size: Items per partition (bounds the memory of each process).
        client: A ``distributed.Client`` to run the partitions on its workers (else in-process).
        keep_items: Also return every item's primary score (memory grows with the corpus).
        progress: Called as ``progress(pass_name, partitions_done, partitions_total)``.

    Returns:
        A :class:`StreamResult`.
    """
    if partition_size < 1:
        raise ValueError(f"partition_size must be >= 1, got {partition_size}")
    built = build_metrics(metrics, tokenizer=tokenizer)
    bounds = list(range(0, n_items, partition_size)) + [n_items]
    ranges = list(zip(bounds[:-1], bounds[1:], strict=True))
    timings: dict[str, float] = {}
    runner = _DaskRunner(client) if client is not None else _LocalRunner()

    frequencies: DocumentFrequencies | None = None
    counting = [m for m in built.values() if _counts_frequencies(m)]
    if counting:
        start = time.perf_counter()
        order = max(int(getattr(m, "n", 4)) for m in counting)
        merger = _FrequencyMerger(order)
        tok_name = counting[0].tokenizer.name
        for done, part in enumerate(
            runner.map(_partition_ngrams, [(source, lo, hi, n_items, tok_name, order) for lo, hi in ranges]), 1
        ):
            merger.add(part)
            if progress:
                progress("frequencies", done, len(ranges))
        frequencies = merger.frozen(n_items)
        del merger
        timings["frequencies"] = time.perf_counter() - start

    start = time.perf_counter()
    totals: dict[str, FloatArray] = {k: np.zeros(len(m.stat_names)) for k, m in built.items()}
    items: dict[str, list[FloatArray]] = {k: [] for k in built}
    shared = runner.share(frequencies)
    remote_metrics = runner.share(built)
    for done, part in enumerate(
        runner.map(_score_range, [(source, lo, hi, n_items, remote_metrics, shared, keep_items) for lo, hi in ranges]),
        1,
    ):
        for key in built:
            # the running total first, then the partition's rows: the additions of in-process
            # scoring's column sums, in the same order, so the corpus scores are the same bits
            totals[key] = np.concatenate([totals[key][None, :], part[key]]).sum(axis=0)
            if keep_items:
                items[key].append(part[key + "/items"])
        if progress:
            progress("score", done, len(ranges))
    timings["score"] = time.perf_counter() - start
    return StreamResult(
        scores={k: m.compute(totals[k]) for k, m in built.items()},
        totals=totals,
        n_items=n_items,
        timings=timings,
        item_scores={k: np.concatenate(v) for k, v in items.items()} if keep_items else {},
    )


class _LocalRunner:
    def share(self, value: Any) -> Any:
        return value

    def map(self, func: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> Iterable[Any]:
        for args in calls:
            yield func(*args)


class _DaskRunner:
    """Runs the calls on a Dask cluster, a bounded number in flight, results in call order.

    Each result is fetched to the client as soon as it is finished, whatever its place in the
    order, so a worker never holds finished partitions while an earlier one is still running: the
    out-of-order results wait in the client (at most ``in_flight`` of them).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.in_flight = max(2, 2 * sum(client.nthreads().values()))

    def share(self, value: Any) -> Any:
        return self.client.scatter(value, broadcast=True) if value is not None else None

    def map(self, func: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> Iterable[Any]:
        from distributed import wait

        running: dict[Any, int] = {}  # future -> call index
        finished: dict[int, Any] = {}  # call index -> result, fetched, not yet yielded
        next_call = next_yield = 0
        while next_yield < len(calls):
            while next_call < len(calls) and len(running) + len(finished) < self.in_flight:
                running[self.client.submit(func, *calls[next_call], pure=False)] = next_call
                next_call += 1
            if next_yield not in finished:
                done = wait(list(running), return_when="FIRST_COMPLETED").done  # type: ignore[no-untyped-call]
                for future in done:
                    finished[running.pop(future)] = future.result()
                    future.release()
                continue
            yield finished.pop(next_yield)
            next_yield += 1
