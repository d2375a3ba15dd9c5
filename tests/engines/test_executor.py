"""The executor: requirements resolved once and shared, reuse of earlier results, details carried."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pytest

from capeval.engines import evaluate
from capeval.engines.executor import ForkedBackend, SerialBackend, run
from capeval.metrics.base import MeanMetric, Metric
from capeval.types import FloatArray

CANDS = ["a b c", "a b", "c d e f", "b"]
REFS = [["a b c", "a c"], ["a b d"], ["c d", "e f g"], ["a"]]


class Overlap(MeanMetric):
    """Share of candidate words found in the references; counts its batches; details: the words."""

    name: ClassVar[str] = "overlap"
    outputs = ("overlap",)
    calls: ClassVar[list[int]] = []

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        Overlap.calls.append(len(candidates))
        out = []
        for cand, refs in zip(candidates, references, strict=True):
            words = cand.split()
            known = {w for r in refs for w in r.split()}
            out.append(sum(w in known for w in words) / len(words) if words else 0.0)
        return np.asarray(out, dtype=np.float64)

    def item_details(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> list[Any]:
        return [sorted(set(c.split())) for c in candidates]


class Twice(MeanMetric):
    """Built from Overlap: twice its per-item value."""

    name: ClassVar[str] = "twice"
    outputs = ("twice",)

    def __init__(self) -> None:
        super().__init__(tokenizer="none")
        self.base = Overlap(tokenizer="none")

    @property
    def requires(self) -> Mapping[str, Metric]:
        return {"overlap": self.base}

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        return self.item_stats_from(self.required_outputs(candidates, references, prepared))[:, 0]

    def item_stats_from(self, required: Mapping[str, Mapping[str, FloatArray]]) -> FloatArray:
        values = 2.0 * np.asarray(required["overlap"]["overlap"])
        return np.column_stack([values, np.ones_like(values)])


def _run(metrics: dict[str, Metric], backend: Any = None, **kw: Any) -> dict[str, Any]:
    return run(metrics, lambda _: (CANDS, REFS), ids=None, backend=backend or SerialBackend(), **kw)


def test_requirement_is_scored_once_and_shared() -> None:
    Overlap.calls.clear()
    results = _run({"twice": Twice(), "overlap": Overlap(tokenizer="none")})
    assert Overlap.calls == [4]  # one batch of four items for both metrics
    np.testing.assert_array_equal(results["twice"].item_scores, 2 * results["overlap"].item_scores)
    # the requested metric's own result (with its details) is the shared one
    assert results["overlap"].details == tuple(sorted(set(c.split())) for c in CANDS)


def test_every_metric_is_prefetched_before_anything_is_scored() -> None:
    events: list[str] = []

    class Recording(Overlap):
        def prefetch(self) -> None:
            events.append(f"prefetch {self.label}")

        def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> Any:
            events.append(f"score {self.label}")
            return super().item_values(candidates, references, prepared)

    first, second = Recording(tokenizer="none"), Recording(tokenizer="none")
    first.label, second.label = "a", "b"  # type: ignore[attr-defined]
    second.name = "overlap2"  # type: ignore[misc]
    _run({"a": first, "b": second})
    assert events[:2] == ["prefetch a", "prefetch b"]
    assert sorted(events[2:]) == ["score a", "score b"]


def test_template_gives_the_executor_result() -> None:
    direct = Twice().score_tokenized(candidates=CANDS, references=REFS)
    assert direct.score == pytest.approx(2 * Overlap(tokenizer="none").score(candidates=CANDS, references=REFS).score)
    # item_stats of a built metric computes its requirements on the batch itself
    np.testing.assert_array_equal(Twice().item_stats(CANDS, REFS, None), direct.stats)


def test_reuse_takes_matching_results_only() -> None:
    earlier = Overlap(tokenizer="none").score_tokenized(candidates=CANDS, references=REFS)
    other = Overlap(tokenizer="ws").score_tokenized(candidates=CANDS, references=REFS)  # another tokenizer
    Overlap.calls.clear()
    reused = Twice().score_tokenized(candidates=CANDS, references=REFS, reuse={"overlap": earlier})
    assert Overlap.calls == []
    assert reused.score == pytest.approx(2 * earlier.score)
    Twice().score_tokenized(candidates=CANDS, references=REFS, reuse={"overlap": other})
    assert Overlap.calls == [4]
    with pytest.warns(DeprecationWarning, match="reuse="):
        Twice().score_tokenized(candidates=CANDS, references=REFS, features={"overlap": earlier})


def test_forked_workers_carry_details() -> None:
    serial = _run({"overlap": Overlap(tokenizer="none")})["overlap"]
    forked = _run({"overlap": Overlap(tokenizer="none")}, ForkedBackend(2, min_items=2))["overlap"]
    np.testing.assert_array_equal(forked.stats, serial.stats)
    assert forked.details == serial.details


def test_evaluate_workers_and_progress_give_the_same_results(demo_tokenized: Any) -> None:
    _, cands, refs = demo_tokenized
    serial = evaluate(candidates=cands, references=refs, metrics=["bleu", "cider-d"], tokenizer="none")
    forked = evaluate(candidates=cands, references=refs, metrics=["bleu", "cider-d"], tokenizer="none", workers=2)
    for key in ("bleu", "cider-d"):
        np.testing.assert_array_equal(forked.results[key].stats, serial.results[key].stats)
    from capeval.engines import executor

    chunked = executor.SerialBackend(progress=True)
    old = executor.PROGRESS_CHUNK
    executor.PROGRESS_CHUNK = 64
    try:
        rows, _ = chunked.rows(serial.metrics["bleu"], cands, refs, None)
    finally:
        executor.PROGRESS_CHUNK = old
    np.testing.assert_array_equal(rows, serial.results["bleu"].stats)


def test_package_level_entry_point() -> None:
    import capeval

    ev = capeval.evaluate(candidates=CANDS, references=REFS, metrics=["rouge-l"], tokenizer="none")
    assert isinstance(ev, capeval.Evaluation) and ev.results["rouge-l"].n_items == len(CANDS)


class _Local(Overlap):
    """Overlap, never forked (scored in this process)."""

    name: ClassVar[str] = "local"
    parallel_safe = False


class _Failing(_Local):
    name: ClassVar[str] = "failing"

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        raise RuntimeError("this metric fails")


class _Recording(ForkedBackend):
    """Forked workers; records which metric each start call was for and when it returned."""

    def __init__(self) -> None:
        super().__init__(2, min_items=2)
        self.started: list[str] = []

    def start(self, metric: Metric, *args: Any, alongside: bool = False) -> Any:
        pending = super().start(metric, *args, alongside=alongside)
        self.started.append(f"{metric.name}{' alongside' if alongside else ''}")
        return pending


def test_metrics_scored_elsewhere_start_first_and_match_serial() -> None:
    backend = _Recording()
    metrics = {"local": _Local(tokenizer="none"), "overlap": Overlap(tokenizer="none")}
    results = _run(metrics, backend)
    assert backend.started == ["overlap alongside", "local"]  # the forked one runs while "local" is scored here
    alone = _Recording()
    _run({"overlap": Overlap(tokenizer="none")}, alone)
    assert alone.started == ["overlap"]  # nothing else to do here: all the workers
    assert list(results) == ["local", "overlap"]  # results keep the requested order
    serial = _run({"local": _Local(tokenizer="none"), "overlap": Overlap(tokenizer="none")})
    for key in metrics:
        np.testing.assert_array_equal(results[key].stats, serial[key].stats)
    assert results["overlap"].details == serial["overlap"].details


def test_an_error_here_stops_after_the_forked_workers_are_done() -> None:
    import multiprocessing

    metrics = {"overlap": Overlap(tokenizer="none"), "failing": _Failing(tokenizer="none")}
    before = set(multiprocessing.active_children())
    with pytest.raises(RuntimeError, match="this metric fails"):
        _run(metrics, ForkedBackend(2, min_items=2))
    assert set(multiprocessing.active_children()) - before == set()  # no worker left behind


def test_timings_cover_metrics_scored_elsewhere() -> None:
    timings: dict[str, float] = {}
    _run({"overlap": Overlap(tokenizer="none"), "local": _Local(tokenizer="none")}, _Recording(), timings=timings)
    assert set(timings) == {"overlap", "local"} and all(t >= 0 for t in timings.values())


class CountedPrepare(Overlap):
    """Overlap whose ``prepare`` counts its calls."""

    prepares: ClassVar[list[int]] = []

    def prepare(self, references: Sequence[Sequence[str]]) -> Any:
        CountedPrepare.prepares.append(len(references))
        return super().prepare(references)


def test_prepared_references_give_the_same_results_and_are_prepared_once() -> None:
    """``prepare_references`` tokenizes and prepares once; ``evaluate(prepared=...)`` then scores any
    candidates against them with the results of a plain ``evaluate``, preparing nothing again."""
    from capeval.engines import prepare_references

    CountedPrepare.prepares.clear()
    shared = CountedPrepare(tokenizer="none")
    twice = Twice()
    twice.base = shared
    prepared = prepare_references(REFS, metrics=[shared, twice, "bleu", "cider-d"], tokenizer="ws")
    assert CountedPrepare.prepares == [4]  # the requirement and the requested metric: one preparation
    for candidates in (CANDS, list(reversed(CANDS))):
        Overlap.calls.clear()
        fast = evaluate(candidates=candidates, references=REFS, prepared=prepared)
        assert Overlap.calls == [4]
        plain = evaluate(
            candidates=candidates,
            references=REFS,
            metrics=[Overlap(tokenizer="none"), Twice(), "bleu", "cider-d"],
            tokenizer="ws",
        )
        assert fast.scores() == plain.scores() and fast.signatures() == plain.signatures()
        for key in plain.results:
            np.testing.assert_array_equal(fast.results[key].stats, plain.results[key].stats)
    assert CountedPrepare.prepares == [4]
    with pytest.raises(ValueError, match="not the ones prepared"):
        evaluate(candidates=CANDS, references=[["x"]] * 4, prepared=prepared)
    with pytest.raises(ValueError, match="leave metrics out"):
        evaluate(candidates=CANDS, references=REFS, prepared=prepared, metrics=["bleu"])
