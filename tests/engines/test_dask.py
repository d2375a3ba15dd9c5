"""The Dask engine gives exactly the in-process numbers, on a real local cluster of worker processes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tests.spice.grammar_fixture import default_grammar

from capeval.data import demo_paths
from capeval.engines.local import evaluate
from capeval.io import load_corpus

distributed = pytest.importorskip("distributed")

METRICS = ["bleu", "rouge-l", "cider-d"]


@pytest.fixture(scope="module")
def client(dask_client: Any) -> Any:
    return dask_client


def test_dask_equals_in_process(client: Any) -> None:
    from capeval.engines.dask import evaluate_dask

    corpus = load_corpus(*demo_paths())
    local = evaluate(corpus, metrics=METRICS)
    remote = evaluate_dask(corpus, metrics=METRICS, client=client, partitions=7)
    assert remote.ids == local.ids
    # BLEU's statistics are counts (exact); float sums may differ in the last place with the
    # order in which a partition meets its n-grams.
    np.testing.assert_array_equal(remote.results["bleu"].stats, local.results["bleu"].stats)
    for key in METRICS:
        np.testing.assert_allclose(remote.results[key].stats, local.results[key].stats, rtol=0, atol=1e-12)
        assert remote.results[key].score == pytest.approx(local.results[key].score, rel=1e-13)
        assert str(remote.results[key].signature) == str(local.results[key].signature)


def test_partition_boundaries_keep_tokenizer_lookahead(client: Any) -> None:
    """A caption's last token can depend on the next caption; partitions must not change it."""
    from capeval.engines.dask import evaluate_dask
    from capeval.io import Corpus

    cands = ("The letter B.", "A sign on a wall.", "Photo of the letter I.", "It is red.", "a dog", "a cat")
    refs = tuple((c, "a b c") for c in cands)
    corpus = Corpus(tuple(range(len(cands))), cands, refs)
    local = evaluate(corpus, metrics=["bleu"])
    for partitions in (2, 3, 6):
        remote = evaluate_dask(corpus, metrics=["bleu"], client=client, partitions=partitions)
        np.testing.assert_array_equal(remote.results["bleu"].stats, local.results["bleu"].stats)


def test_cli_dask_local(capsys: Any) -> None:
    from capeval.cli.main import main

    results, refs = demo_paths()
    assert (
        main(
            [
                "score",
                "--results",
                str(results),
                "--references",
                str(refs),
                "--metrics",
                "bleu",
                "--dask",
                "local",
                "--workers",
                "2",
                "--format",
                "json",
                "--quiet",
            ]
        )
        == 0
    )
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["Bleu_4"] == pytest.approx(0.1908290437674253, abs=1e-12)


def test_spice_details_survive_dask(client: Any) -> None:
    """SPICE's per-item tuples and category scores come back from a Dask run, as in process."""
    default_grammar()  # the exact default parser's grammar, or a skip
    from capeval.engines.dask import evaluate_dask
    from capeval.io import Corpus

    corpus = load_corpus(*demo_paths())
    small = Corpus(corpus.ids[:12], corpus.candidates[:12], corpus.references[:12])
    options = {"spice": {"cache": False}}
    local = evaluate(small, metrics=["spice", "spider"], metric_options=options)
    from capeval.registry import get_metric

    built = [get_metric("spice", cache=False), get_metric("spider", cache=False)]
    remote = evaluate_dask(small, metrics=built, client=client, partitions=3)
    assert remote.results["spice"].details is not None and len(remote.results["spice"].details) == 12
    assert remote.results["spice"].details == local.results["spice"].details
    for key in ("spice", "spider"):
        np.testing.assert_allclose(remote.results[key].stats, local.results[key].stats, rtol=0, atol=1e-12)
        assert str(remote.results[key].signature) == str(local.results[key].signature)
