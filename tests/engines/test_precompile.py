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


@pytest.mark.slow
def test_a_second_wheel_build_takes_every_kernel_from_the_store(tmp_path: Path) -> None:
    """What the wheel build runs (hatch_build.py), twice on fresh copies of the package: the second
    run, as when a user adds an extra with ``pip install '.[extra]'``, compiles nothing and leaves
    the same cache files for the wheel."""
    import os
    import shutil
    import subprocess
    import sys

    import capeval

    source = Path(capeval.__file__).resolve().parent
    kept = tmp_path / "store"
    listings = []
    for build in ("first", "second"):
        root = tmp_path / build
        shutil.copytree(source, root / "capeval", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env.update(PYTHONPATH=str(root), CAPEVAL_CACHE_DIR=str(root / "cache"))
        done = subprocess.run(
            [sys.executable, "-m", "capeval.engines.precompile", "--store", str(kept)],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        listings.append(sorted(str(p.relative_to(root)) for p in root.rglob("__pycache__/*.nb[ic]")))
        if build == "second":
            assert "none compiled" in done.stderr, done.stderr
    assert listings[0] == listings[1] and len(listings[0]) >= 14
