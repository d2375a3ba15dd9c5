"""The metric contract, for every registered metric on every executor (serial, forked, Dask).

Every metric in the registry must be listed in :data:`FACTORIES` (a new metric fails
:func:`test_every_registered_metric_is_checked` until it is). For each metric and executor:

* the results (scores, statistics, per-item outputs, details, signature) are identical to the
  serial run's, whichever backend computes the rows;
* halves merge to the whole: the statistics of two halves scored with the whole corpus's
  ``prepare()`` concatenate to the whole's statistics and give the same corpus score; the
  details concatenate likewise;
* item order only permutes the per-item values; bad input is rejected naming the item.

Inputs are small (40 demo images), so the heavy metrics (METEOR, SPICE's parser, NNEval's
features) stay fast; the Dask cluster is one per session.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from tests.spice.grammar_fixture import default_grammar

from capeval.engines.executor import Backend, ForkedBackend, SerialBackend, run
from capeval.metrics.base import CorpusResult, Metric
from capeval.registry import get_metric, list_metrics
from capeval.signature import Signature

N_ITEMS = 40


def _spice_options() -> dict[str, Any]:
    default_grammar()  # SPICE's default parser is the exact one: its grammar, or a skip
    return {"cache": False}


#: Registry key -> test configuration (the registry default, without on-disk caches).
FACTORIES: dict[str, Callable[[], Metric]] = {
    "bleu": lambda: get_metric("bleu", tokenizer="none"),
    "meteor": lambda: get_metric("meteor", tokenizer="none", n_threads=1),
    "rouge-l": lambda: get_metric("rouge-l", tokenizer="none"),
    "cider-d": lambda: get_metric("cider-d", tokenizer="none"),
    "cider-original": lambda: get_metric("cider-original", tokenizer="none"),
    "rouge-n": lambda: get_metric("rouge-n", tokenizer="none"),
    "rouge-s": lambda: get_metric("rouge-s", tokenizer="none"),
    "spice": lambda: get_metric("spice", tokenizer="none", **_spice_options()),
    "spider": lambda: get_metric("spider", tokenizer="none", **_spice_options()),
    "wmd": lambda: get_metric("wmd", tokenizer="none"),
    "nneval": lambda: get_metric("nneval", tokenizer="none", feature_options={"spice": _spice_options()}),
    "nneval-v2": lambda: get_metric("nneval-v2", tokenizer="none", feature_options={"spice": _spice_options()}),
}
#: Optional modules a metric needs (skipped without them, except under CAPEVAL_NO_SKIP=1 in CI).
NEEDS: dict[str, tuple[str, ...]] = {
    "wmd": ("scipy",),
    "nneval": ("scipy",),
    "nneval-v2": ("scipy",),
}
EXECUTORS = ("serial", "forked", "dask")


def _build(name: str) -> Metric:
    missing = [m for m in NEEDS.get(name, ()) if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{name} needs {', '.join(missing)}")
    return FACTORIES[name]()


def _backend(executor: str, request: pytest.FixtureRequest) -> Backend:
    if executor == "serial":
        return SerialBackend()
    if executor == "forked":
        return ForkedBackend(2, min_items=2)  # fork even for this small corpus
    from capeval.engines.dask import DaskBackend

    return DaskBackend(request.getfixturevalue("dask_client"), partitions=3)


def _score(
    metric: Metric,
    cands: list[str],
    refs: list[list[str]],
    backend: Backend,
    prepared: Any = None,
) -> CorpusResult:
    given = {metric.name: prepared} if prepared is not None else None
    return run({metric.name: metric}, lambda _: (cands, refs), ids=None, backend=backend, prepared=given)[metric.name]


@pytest.fixture(scope="module")
def corpus(demo_tokenized: Any) -> tuple[list[str], list[list[str]]]:
    _, cands, refs = demo_tokenized
    return list(cands[:N_ITEMS]), [list(r) for r in refs[:N_ITEMS]]


_serial_results: dict[str, CorpusResult] = {}


def _serial(name: str, corpus: Any) -> CorpusResult:
    if name not in _serial_results:
        _serial_results[name] = _score(_build(name), *corpus, SerialBackend())
    return _serial_results[name]


def _assert_same(a: CorpusResult, b: CorpusResult) -> None:
    assert a.metric == b.metric and a.stat_names == b.stat_names
    np.testing.assert_allclose(a.stats, b.stats, rtol=0, atol=1e-12)
    assert set(a.scores) == set(b.scores)
    for key in a.scores:
        assert a.scores[key] == pytest.approx(b.scores[key], rel=1e-12, abs=1e-15, nan_ok=True), key
    for key in a.item_table:
        np.testing.assert_allclose(a.item_table[key], b.item_table[key], rtol=0, atol=1e-12, equal_nan=True)
    assert a.details == b.details
    assert str(a.signature) == str(b.signature)


def test_every_registered_metric_is_checked() -> None:
    assert set(FACTORIES) == set(list_metrics())


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_executors_agree_and_halves_merge(
    name: str, executor: str, corpus: Any, request: pytest.FixtureRequest
) -> None:
    cands, refs = corpus
    serial = _serial(name, corpus)
    metric = _build(name)
    backend = _backend(executor, request)

    whole = _score(metric, cands, refs, backend)
    _assert_same(whole, serial)
    if name == "spice":
        assert whole.details is not None and len(whole.details) == len(cands)
        assert {"test_tuples", "ref_tuples", "scores"} <= set(whole.details[0])

    prepared = metric.prepare(refs)
    half = len(cands) // 2
    first = _score(metric, cands[:half], refs[:half], backend, prepared)
    second = _score(metric, cands[half:], refs[half:], backend, prepared)
    merged = metric.result_from_stats(
        np.vstack([first.stats, second.stats]),
        prepared=prepared,
        references=refs,
        details=None if first.details is None else [*first.details, *(second.details or ())],
    )
    _assert_same(merged, serial)
    assert metric.corpus_score(whole.stats.sum(axis=0)) == whole.score


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_item_order_only_permutes_items(name: str, corpus: Any) -> None:
    cands, refs = corpus
    base = _serial(name, corpus)
    perm = np.random.default_rng(7).permutation(len(cands))
    shuffled = _score(_build(name), [cands[i] for i in perm], [refs[i] for i in perm], SerialBackend())
    np.testing.assert_allclose(shuffled.item_scores, base.item_scores[perm], rtol=0, atol=1e-12)
    assert shuffled.score == pytest.approx(base.score, rel=1e-12, abs=1e-15)
    if base.details is not None:
        assert list(shuffled.details or ()) == [base.details[i] for i in perm]


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_signature_and_shapes(name: str, corpus: Any) -> None:
    result = _serial(name, corpus)
    assert Signature.parse(str(result.signature)) == result.signature
    assert str(result.signature).startswith(name + "|") and "|v:" in str(result.signature)
    assert result.stats.shape == (N_ITEMS, len(result.stat_names))
    assert result.metric == name and result.n_items == N_ITEMS
    assert result.item_scores.shape == (N_ITEMS,)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_misaligned_or_malformed_input_is_rejected(name: str) -> None:
    metric = _build(name)
    with pytest.raises(ValueError, match="2 candidates but 1 reference lists"):
        metric.score(candidates=["a", "b"], references=[["a"]])
    with pytest.raises(ValueError, match="item 0: no reference captions"):
        metric.score(candidates=["a"], references=[[]])
    with pytest.raises(ValueError, match="item 1.*must be a list of strings"):
        metric.score(candidates=["a", "b"], references=[["a"], "b"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="item 0.*candidate must be a string"):
        metric.score(candidates=[None], references=[["a"]])  # type: ignore[list-item]


def test_template_methods_are_not_overridden() -> None:
    """Metrics declare statistics; running them (score, score_tokenized, results) is the executor's."""
    from capeval.registry import metric_class

    template = ("score", "score_tokenized", "result_from_stats", "signature", "tokenize", "corpus_score")
    for name in list_metrics():
        cls = metric_class(name)
        for method in template:
            assert getattr(cls, method) is getattr(Metric, method), f"{cls.__name__} overrides {method}"


def test_spice_shards_in_forked_workers_keep_their_tuples(corpus: Any) -> None:
    """SPICE's items are independent: sharded in forked workers (each parsing with the exact
    default parser) they give the same statistics and the same per-item tuples."""
    cands, refs = corpus
    metric = _build("spice")
    metric.parallel_safe = True
    sharded = _score(metric, cands, refs, ForkedBackend(2, min_items=2))
    _assert_same(sharded, _serial("spice", corpus))
