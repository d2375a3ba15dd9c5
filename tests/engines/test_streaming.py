"""Streamed scoring (partition by partition, bounded memory) gives the in-process numbers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from capeval.data import demo_paths
from capeval.engines.local import evaluate
from capeval.engines.streaming import _DaskRunner, evaluate_stream
from capeval.io import load_corpus

METRICS = ["bleu", "rouge-l", "cider-d"]


@pytest.fixture(scope="module")
def corpus() -> Any:
    return load_corpus(*demo_paths())


def _source(corpus: Any) -> Any:
    def source(lo: int, hi: int) -> tuple[list[str], list[list[str]]]:
        return list(corpus.candidates[lo:hi]), [list(r) for r in corpus.references[lo:hi]]

    return source


def _check(streamed: Any, local: Any) -> None:
    for key in METRICS:
        result = local.results[key]
        # per-item scores are those of in-process scoring
        np.testing.assert_allclose(streamed.item_scores[key], result.item_scores, rtol=0, atol=1e-12)
        for name, value in result.scores.items():
            assert streamed.scores[key][name] == value, (key, name)
    # BLEU's statistics are counts: their sums are exact
    np.testing.assert_array_equal(streamed.totals["bleu"], local.results["bleu"].stats.sum(axis=0))


def test_streamed_equals_in_process(corpus: Any) -> None:
    local = evaluate(corpus, metrics=METRICS)
    seen: list[tuple[str, int, int]] = []
    streamed = evaluate_stream(
        _source(corpus),
        len(corpus),
        metrics=METRICS,
        partition_size=137,
        keep_items=True,
        progress=lambda *a: seen.append(a),
    )
    assert streamed.n_items == len(corpus)
    _check(streamed, local)
    assert ("frequencies", 8, 8) in seen and ("score", 8, 8) in seen


def test_streamed_rejects_an_empty_partition_size(corpus: Any) -> None:
    with pytest.raises(ValueError, match="partition_size"):
        evaluate_stream(_source(corpus), len(corpus), partition_size=0)


distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_streamed_on_dask_equals_in_process(corpus: Any, client: Any) -> None:
    local = evaluate(corpus, metrics=METRICS)
    streamed = evaluate_stream(
        _source(corpus), len(corpus), metrics=METRICS, partition_size=300, client=client, keep_items=True
    )
    _check(streamed, local)


def _late_first(i: int) -> int:
    if i == 0:
        time.sleep(0.5)
    return i


def test_dask_runner_yields_in_call_order_when_later_calls_finish_first(client: Any) -> None:
    # the later calls finish (and are fetched) while the first still runs; the order stays the calls'
    assert list(_DaskRunner(client).map(_late_first, [(i,) for i in range(10)])) == list(range(10))
