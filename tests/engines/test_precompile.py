"""``capeval.engines.precompile``: what the wheel build compiles covers a scoring run."""

from __future__ import annotations

import gzip
import importlib
from pathlib import Path
from typing import Any

import pytest

from capeval.data import demo_paths
from capeval.engines import evaluate
from capeval.engines import precompile as pre
from capeval.io import load_corpus
from capeval.metrics.meteor import _resources
from capeval.metrics.meteor._resources import MeteorDataError, load_meteor_data

numba = pytest.importorskip("numba")

KERNEL_MODULES = (
    "capeval.metrics._bleu_kernel",
    "capeval.metrics._cider_kernel",
    "capeval.metrics.rouge",
    "capeval.metrics.ngrams",
    "capeval.metrics.meteor._kernel",
    "capeval.metrics.meteor._batch",
    "capeval.metrics.meteor._convert",
)


def _signatures() -> dict[str, list[Any]]:
    from numba.core.registry import CPUDispatcher

    out: dict[str, list[Any]] = {}
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher):
                out[f"{name}.{attr}"] = list(value.signatures)
    return out


def test_the_demo_needs_no_kernel_the_precompilation_left_out() -> None:
    try:
        load_meteor_data()
    except MeteorDataError as exc:
        pytest.skip(str(exc))
    assert pre.main([]) == 0
    before = _signatures()
    assert len(before) >= 15
    evaluation = evaluate(load_corpus(*demo_paths()), metrics=["bleu", "meteor", "rouge-l", "cider-d"])
    assert round(evaluation.official_scores()["CIDEr"], 4) == 0.5998
    assert _signatures() == before  # nothing was compiled for new argument types


def test_the_table_conversion_needs_no_kernel_the_precompilation_left_out(tmp_path: Path) -> None:
    # the first use's conversion (a background process) calls the parser on the inflated file
    assert pre.main([]) == 0
    before = _signatures()
    table = tmp_path / "paraphrase-en.gz"
    table.write_bytes(gzip.compress(b"0.5\na dog\nthe dog\n0.25\na dog\na puppy\n"))
    arrays = _resources._build_paraphrase_arrays(table)
    assert str(arrays["vocab"]).split("\n") == ["a", "dog", "the", "puppy"]
    assert _signatures() == before
