"""Score a corpus on a Dask cluster, with the same results as in-process scoring.

The corpus is cut into contiguous partitions of items. Each partition is tokenized on a
worker — with the next few captions appended as read-ahead context, because the official
tokenizer can change the last token of a caption depending on the start of the next one.
Then the executor (:mod:`capeval.engines.executor`) runs as everywhere else: corpus-level
reference data (CIDEr-D document frequencies) is prepared once from all tokenized
references and broadcast, each partition's statistics rows and per-item details (SPICE's
tuples) are computed on a worker, and they come back in order to be reduced exactly as in
:func:`capeval.engines.local.evaluate`. Metrics that keep their items in one process
(``parallel_safe = False``) and metrics built from others (SPIDEr, NNEval) run in the client
process on the results.

Requires the ``dask`` extra (``dask[distributed]``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from capeval.engines.executor import READ_AHEAD, Backend, Rows, concat_rows, item_rows, run, shard_bounds
from capeval.engines.local import Evaluation, build_metrics, tokenized_texts
from capeval.io import Corpus
from capeval.metrics.base import Metric, check_inputs
from capeval.tokenizers.base import get_tokenizer

__all__ = ["DaskBackend", "evaluate_dask"]


def _tokenize_partition(tokenizer_name: str, texts: Sequence[str], context: Sequence[str]) -> list[str]:
    """Tokenize ``texts`` followed by ``context``; return the tokens of ``texts`` only."""
    tokenizer = get_tokenizer(tokenizer_name)
    return tokenizer.tokenize([*texts, *context])[: len(texts)]


def _freeze(prepared: Any) -> Any:
    """Corpus data computed lazily in-process must be materialized before it is shipped."""
    frozen = getattr(prepared, "frozen", None)
    return frozen() if callable(frozen) else prepared


class DaskBackend(Backend):
    """Partitions tokenized and scored on the workers of a ``distributed.Client``.

    Args:
        client: The client.
        partitions: Number of item partitions (default: two per worker thread).
    """

    name = "dask"

    def __init__(self, client: Any, *, partitions: int | None = None) -> None:
        super().__init__()
        self.client = client
        self.partitions = partitions if partitions is not None else max(1, 2 * sum(client.nthreads().values()))

    def tokenize(
        self, metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]]
    ) -> tuple[list[str], list[list[str]]]:
        """Tokenize each partition on a worker, with read-ahead context across its end."""
        tok_name = metric.tokenizer.name
        cand_futures, ref_futures = [], []
        for lo, hi in shard_bounds(len(candidates), self.partitions):
            after = candidates[hi : hi + READ_AHEAD]
            cand_futures.append(self.client.submit(_tokenize_partition, tok_name, candidates[lo:hi], after, pure=False))
            flat = [r for refs in references[lo:hi] for r in refs]
            following = [r for refs in references[hi : hi + READ_AHEAD] for r in refs][:READ_AHEAD]
            ref_futures.append(self.client.submit(_tokenize_partition, tok_name, flat, following, pure=False))
        cands: list[str] = [c for part in self.client.gather(cand_futures) for c in part]
        flat_refs = iter([r for part in self.client.gather(ref_futures) for r in part])
        return cands, [[next(flat_refs) for _ in item] for item in references]

    def rows(
        self, metric: Metric, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> Rows:
        """Rows and details per partition on the workers (in this process if not ``parallel_safe``)."""
        if not metric.parallel_safe:
            return super().rows(metric, candidates, references, prepared)
        shipped = self.client.scatter(_freeze(prepared), broadcast=True, hash=False) if prepared is not None else None
        remote_metric = self.client.scatter(metric, broadcast=True, hash=False)
        futures = [
            self.client.submit(item_rows, remote_metric, candidates[lo:hi], references[lo:hi], shipped, pure=False)
            for lo, hi in shard_bounds(len(candidates), self.partitions)
        ]
        return concat_rows(metric, self.client.gather(futures))


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

    client = client or default_client()  # type: ignore[no-untyped-call]
    check_inputs(corpus.candidates, corpus.references, corpus.ids)
    backend = DaskBackend(client, partitions=partitions)
    built = build_metrics(metrics, tokenizer=tokenizer)
    timings: dict[str, float] = {}
    texts = tokenized_texts(backend, corpus.candidates, corpus.references, timings)
    ids: tuple[Hashable, ...] = corpus.ids
    results = run(built, texts, ids=ids, backend=backend, timings=timings)
    return Evaluation(ids=ids, results=results, timings=timings, metrics=built)
