"""Score a corpus on a Dask cluster, with the same numbers as in-process scoring.

The corpus is cut into contiguous partitions of items. Each partition is tokenized on a
worker — with the next few captions appended as read-ahead context, because the official
tokenizer can change the last token of a caption depending on the start of the next one —
and scored there. Corpus-level reference data (CIDEr-D document frequencies) is computed
once from all tokenized references and broadcast; the per-item statistics come back and are
reduced exactly as :func:`capeval.engines.local.evaluate` reduces them.

Requires the ``dask`` extra (``dask[distributed]``).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from capeval.engines.local import Evaluation, build_metrics
from capeval.io import Corpus
from capeval.metrics.base import CorpusResult, FloatArray, Metric, check_inputs
from capeval.tokenizers.base import get_tokenizer

__all__ = ["evaluate_dask"]

#: Captions of read-ahead context given to each partition's tokenizer (lookahead never spans one).
READ_AHEAD = 3


def _tokenize_partition(tokenizer_name: str, texts: Sequence[str], context: Sequence[str]) -> list[str]:
    """Tokenize ``texts`` followed by ``context``; return the tokens of ``texts`` only."""
    tokenizer = get_tokenizer(tokenizer_name)
    return tokenizer.tokenize([*texts, *context])[: len(texts)]


def _score_partition(
    metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
) -> FloatArray:
    return np.asarray(metric.item_stats(candidates, references, prepared), dtype=np.float64)


def _freeze(prepared: Any) -> Any:
    """Corpus data computed lazily in-process must be materialized before it is shipped."""
    frozen = getattr(prepared, "frozen", None)
    return frozen() if callable(frozen) else prepared


def evaluate_dask(
    corpus: Corpus,
    *,
    metrics: Iterable[str | Metric] | None = None,
    tokenizer: str = "ptb",
    client: Any = None,
    partitions: int | None = None,
) -> Evaluation:
    """Score ``corpus`` on a Dask cluster.

    Args:
        corpus: Aligned corpus (:func:`capeval.io.load_corpus`).
        metrics: Registry keys or metric instances (default: the COCO metrics installed).
        tokenizer: Tokenizer name, as for :func:`~capeval.engines.local.evaluate`.
        client: A ``distributed.Client``; the current default client if omitted.
        partitions: Number of item partitions (default: two per worker thread).

    Returns:
        An :class:`~capeval.engines.local.Evaluation` equal to the in-process one.
    """
    from distributed import default_client

    client = client or default_client()
    check_inputs(corpus.candidates, corpus.references, corpus.ids)
    n = len(corpus)
    if partitions is None:
        partitions = max(1, 2 * sum(client.nthreads().values()))
    partitions = max(1, min(partitions, n))
    bounds = np.linspace(0, n, partitions + 1).astype(int).tolist()

    built = build_metrics(metrics, tokenizer=tokenizer)
    timings: dict[str, float] = {}

    # 1. Tokenize each partition on the workers, once per tokenizer.
    start = time.perf_counter()
    tokenized: dict[str, tuple[list[str], list[list[str]]]] = {}
    for tok_name in {m.tokenizer.name for m in built.values()}:
        cand_futures, ref_futures = [], []
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            cand_futures.append(
                client.submit(
                    _tokenize_partition,
                    tok_name,
                    corpus.candidates[lo:hi],
                    corpus.candidates[hi : hi + READ_AHEAD],
                    pure=False,
                )
            )
            flat = [r for refs in corpus.references[lo:hi] for r in refs]
            following = [r for refs in corpus.references[hi : hi + READ_AHEAD] for r in refs][:READ_AHEAD]
            ref_futures.append(client.submit(_tokenize_partition, tok_name, flat, following, pure=False))
        cands: list[str] = [c for part in client.gather(cand_futures) for c in part]
        flat_refs = iter([r for part in client.gather(ref_futures) for r in part])
        refs = [[next(flat_refs) for _ in item] for item in corpus.references]
        tokenized[tok_name] = (cands, refs)
    timings["tokenize"] = time.perf_counter() - start

    # 2. Corpus-level reference data once, then per-partition statistics on the workers.
    results: dict[str, CorpusResult] = {}
    ids: tuple[Hashable, ...] = corpus.ids
    for key, metric in built.items():
        start = time.perf_counter()
        cands, refs = tokenized[metric.tokenizer.name]
        prepared = metric.prepare(refs)
        shipped = client.scatter(_freeze(prepared), broadcast=True) if prepared is not None else None
        remote_metric = client.scatter(metric, broadcast=True)
        futures = [
            client.submit(_score_partition, remote_metric, cands[lo:hi], refs[lo:hi], shipped, pure=False)
            for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
        ]
        stats = np.concatenate(client.gather(futures)) if futures else np.zeros((0, len(metric.stat_names)))
        results[key] = metric.result_from_stats(stats, prepared=prepared, references=refs, ids=ids)
        timings[key] = time.perf_counter() - start
    return Evaluation(ids=ids, results=results, timings=timings, metrics=built)
