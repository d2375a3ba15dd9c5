"""The exact parser's wrapper (``CoreNLPParser``) and ``SPICE(parser=...)``, with a stand-in
stages provider that serves the official pipeline's own stages (``tests/data/spice``)."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.spice.official import FakeStagesProvider, differences, fixture_official, fixture_stages

from capeval.engines.executor import ForkedBackend, SerialBackend, run
from capeval.metrics.spice import (
    DEFAULT_PARSER,
    PARSERS,
    SPICE,
    ApproximateParserWarning,
    CoreNLPParser,
    corenlp_parser,
    tuples_from_stage,
)


@pytest.fixture(scope="module")
def stages() -> dict[str, dict[str, Any]]:
    return fixture_stages()


@pytest.fixture(scope="module")
def official() -> list[dict[str, Any]]:
    return fixture_official()[:40]


def _run(metric: SPICE, cands: list[str], refs: list[list[str]], backend: Any) -> Any:
    return run({"spice": metric}, lambda _: (cands, refs), ids=None, backend=backend)["spice"]


def _metric(stages: dict[str, dict[str, Any]], **options: Any) -> SPICE:
    return SPICE(tokenizer="none", parser=CoreNLPParser(FakeStagesProvider(stages)), cache=False, **options)


def test_parser_turns_stages_into_the_jars_tuples(stages: dict[str, dict[str, Any]]) -> None:
    captions = sorted(stages)[:50]
    parser = CoreNLPParser(FakeStagesProvider(stages))
    assert parser.parse(captions) == [tuples_from_stage(stages[c]) for c in captions]
    assert parser.fingerprint == f"corenlp-3.6.0+fake-stages+rules{corenlp_parser.RULES_VERSION}"


def test_bad_providers_are_named() -> None:
    with pytest.raises(TypeError, match="annotate_many"):
        CoreNLPParser(object())  # type: ignore[arg-type]

    class Short(FakeStagesProvider):
        def annotate_many(self, texts: Any) -> list[dict[str, Any]]:
            return super().annotate_many(texts)[:-1]

    class Wrong(FakeStagesProvider):
        def annotate_many(self, texts: Any) -> list[dict[str, Any]]:
            return list(reversed(super().annotate_many(texts)))

    stage = {"sentences": [{"tokens": [["x", "NN", "x"]], "ccprocessed": [["root", 0, 1]]}]}
    two = {"a": {**stage, "caption": "a"}, "b": {**stage, "caption": "b"}}
    with pytest.raises(ValueError, match="returned 1 stage dicts for 2 captions"):
        CoreNLPParser(Short(two)).parse(["a", "b"])
    with pytest.raises(ValueError, match="not the stage dict of caption 'a'"):
        CoreNLPParser(Wrong(two)).parse(["a", "b"])
    nameless = FakeStagesProvider(two, fingerprint="")
    with pytest.raises(TypeError, match="fingerprint"):
        _ = CoreNLPParser(nameless).fingerprint
    with pytest.raises(ValueError, match="sentence 0 of 'bad'"):
        CoreNLPParser(FakeStagesProvider({"bad": {"caption": "bad", "sentences": [{"tokens": []}]}})).parse(["bad"])


def test_default_pipeline_is_imported_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = CoreNLPParser()  # nothing loaded yet
    state = pickle.loads(pickle.dumps(parser)).__getstate__()
    assert state == {"pipeline": None, "grammar": None, "download": True}
    chosen = pickle.loads(pickle.dumps(CoreNLPParser(grammar=Path("models.jar"), download=False)))
    assert chosen.__getstate__() == {"pipeline": None, "grammar": "models.jar", "download": False}
    with pytest.raises(TypeError, match="grammar is an option of the default pipeline"):
        CoreNLPParser(FakeStagesProvider({}), grammar="models.jar")
    monkeypatch.setattr(corenlp_parser, "DEFAULT_PIPELINE", "capeval.no_such_module:Pipeline")
    with pytest.raises(ImportError, match="parser='spacy'"):
        parser.parse(["a dog"])


def test_metric_from_provider_equals_the_jar(stages: dict[str, dict[str, Any]], official: list[dict[str, Any]]) -> None:
    result = _metric(stages).score(candidates=[i["test"] for i in official], references=[i["refs"] for i in official])
    assert result.details is not None
    assert not [i["image_id"] for i, d in zip(official, result.details, strict=True) if differences(d, i)]
    assert ("parser", "corenlp-3.6.0+fake-stages+rules" + corenlp_parser.RULES_VERSION) in tuple(
        result.signature.fields
    )


def test_parser_names() -> None:
    assert DEFAULT_PARSER in PARSERS == ("corenlp", "spacy")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximateParserWarning)
        assert isinstance(SPICE(parser="corenlp", cache=False).parser, CoreNLPParser)  # built, not loaded
    with pytest.warns(ApproximateParserWarning, match="approximation"):
        SPICE(parser="spacy", cache=False)
    with pytest.raises(ValueError, match="unknown SPICE parser 'stanford'"):
        SPICE(parser="stanford")


def test_cache_is_keyed_by_the_pipelines_fingerprint(stages: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    captions = sorted(stages)[:5]
    first = FakeStagesProvider(stages, fingerprint="grammar-a")
    SPICE(tokenizer="none", parser=CoreNLPParser(first), cache=tmp_path / "c.sqlite").parse(captions)
    again = FakeStagesProvider(stages, fingerprint="grammar-a")
    SPICE(tokenizer="none", parser=CoreNLPParser(again), cache=tmp_path / "c.sqlite").parse(captions)
    other = FakeStagesProvider(stages, fingerprint="grammar-b")
    SPICE(tokenizer="none", parser=CoreNLPParser(other), cache=tmp_path / "c.sqlite").parse(captions)
    assert (first.calls, again.calls, other.calls) == (1, 0, 1)


def test_pickled_metric_scores_the_same(stages: dict[str, dict[str, Any]], official: list[dict[str, Any]]) -> None:
    metric = _metric(stages)
    cands, refs = [i["test"] for i in official], [i["refs"] for i in official]
    before = metric.score(candidates=cands, references=refs)
    clone = pickle.loads(pickle.dumps(metric))
    after = clone.score(candidates=cands, references=refs)
    np.testing.assert_array_equal(after.stats, before.stats)
    assert after.details == before.details


def test_forked_shards_equal_in_process(stages: dict[str, dict[str, Any]], official: list[dict[str, Any]]) -> None:
    cands, refs = [i["test"] for i in official], [i["refs"] for i in official]
    assert SPICE.parallel_safe
    serial = _run(_metric(stages), cands, refs, SerialBackend())
    forked = _run(_metric(stages), cands, refs, ForkedBackend(3, min_items=2))
    np.testing.assert_array_equal(forked.stats, serial.stats)
    assert forked.details == serial.details


def test_dask_shards_equal_in_process(
    stages: dict[str, dict[str, Any]], official: list[dict[str, Any]], dask_client: Any
) -> None:
    from capeval.engines.dask import DaskBackend

    cands, refs = [i["test"] for i in official], [i["refs"] for i in official]
    serial = _run(_metric(stages), cands, refs, SerialBackend())
    remote = _run(_metric(stages), cands, refs, DaskBackend(dask_client, partitions=5))
    np.testing.assert_array_equal(remote.stats, serial.stats)
    assert remote.details == serial.details
