"""Cached kernels load without numba's compiler being prepared (``capeval.metrics._numba``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from capeval.engines import precompile

pytest.importorskip("numba")

_CHILD = textwrap.dedent(
    """
    import sys
    import numpy as np
    from capeval.data import demo_paths
    from capeval.engines import evaluate
    from capeval.io import load_corpus

    corpus = load_corpus(*demo_paths())
    metrics = ["bleu", "rouge-l", "cider-d"]
    first = evaluate(corpus, metrics=metrics).official_scores()
    # loading the cached kernels did not import numba's typing and lowering registries
    print("registries imported:", "numba.np.arraymath" in sys.modules)

    import numba

    @numba.njit
    def new_kernel(a):  # not cached anywhere: numba compiles it, preparing its compiler first
        return np.sort(a)[::-1].sum()

    print("compiled:", new_kernel(np.arange(5.0)))
    again = evaluate(corpus, metrics=metrics).official_scores()
    print("same:", first == again, round(first["CIDEr"], 4))
    """
)


def test_cached_kernels_load_lightly_and_compiling_still_works() -> None:
    precompile.precompile()  # the kernels are in numba's cache
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "registries imported: False" in done.stdout
    assert "compiled: 10.0" in done.stdout
    assert "same: True 0.5998" in done.stdout
