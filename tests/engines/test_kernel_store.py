"""``capeval.engines._kernel_store``: compiled kernels kept between wheel builds, and numba's check of
a cached kernel against the CPU it runs on.

The kernels here belong to a small package written for the test (one ``cache=True`` kernel that
reads a constant from another module), so that each run compiles in a second; every run is a new
process, as a wheel build or a user's first run is.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import capeval
from capeval.engines import _kernel_store as store

pytest.importorskip("numba")

SRC = Path(capeval.__file__).resolve().parents[1]

KERNEL = textwrap.dedent(
    """
    import numpy as np
    from numba import njit

    from kpkg.consts import SCALE


    @njit(cache=True)
    def scaled_sum(values):
        total = 0.0
        for v in values:
            total += v
        return total * SCALE
    """
)

RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import numpy as np

    from capeval.engines import _kernel_store as store

    package, kept, environment = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if kept != "-":
        print("restored:", store.restore(package, kept, environment))
    from kpkg.kernel import scaled_sum

    print("value:", scaled_sum(np.arange(4.0)))
    if kept != "-":
        print("saved:", store.save(package, kept, environment))
    """
)


def _package(root: Path, scale: str = "2.0") -> Path:
    package = root / "kpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "consts.py").write_text(f"SCALE = {scale}\n")
    (package / "kernel.py").write_text(KERNEL)
    (package / "other.py").write_text("UNRELATED = 1\n")
    return package


def _run(package: Path, kept: Path | str = "-", environment: str = "env") -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(PYTHONPATH=os.pathsep.join([str(package.parent), str(SRC)]), NUMBA_DEBUG_CACHE="1")
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(package), str(kept), environment],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_module_keys_follow_the_imports(tmp_path: Path) -> None:
    package = _package(tmp_path / "a")
    first = store.module_keys(package, "kpkg")
    assert set(first) == {"kpkg", "kpkg.consts", "kpkg.kernel", "kpkg.other"}
    (package / "other.py").write_text("UNRELATED = 2\n")
    second = store.module_keys(package, "kpkg")
    assert second["kpkg.kernel"] == first["kpkg.kernel"] and second["kpkg.other"] != first["kpkg.other"]
    (package / "consts.py").write_text("SCALE = 3.0\n")  # imported by the kernel's module
    third = store.module_keys(package, "kpkg")
    assert third["kpkg.kernel"] != second["kpkg.kernel"]
    assert store.module_keys(package, "kpkg", only=["kpkg.kernel", "kpkg.missing"]) == {
        "kpkg.kernel": third["kpkg.kernel"]
    }


def test_a_second_build_of_the_same_sources_compiles_nothing(tmp_path: Path) -> None:
    kept = tmp_path / "store"
    first = _run(_package(tmp_path / "build1"), kept)
    assert "value: 12.0" in first and "[cache] data saved" in first
    assert "saved: ['kpkg.kernel']" in first
    # A fresh copy of the same sources (a new wheel build): every kernel comes from the store.
    second = _run(_package(tmp_path / "build2"), kept)
    assert "restored: ['kpkg.kernel']" in second and "value: 12.0" in second
    assert "[cache] data loaded" in second and "[cache] data saved" not in second
    # A module the kernel imports changed (numba freezes SCALE into the machine code, and its own
    # cache checks kernel.py only): the stored code is not used.
    third = _run(_package(tmp_path / "build3", scale="3.0"), kept)
    assert "restored: []" in third and "value: 18.0" in third and "[cache] data saved" in third
    # Another environment (Python, numba, CPU) has entries of its own.
    other = _run(_package(tmp_path / "build4"), kept, environment="other-cpu")
    assert "restored: []" in other and "[cache] data saved" in other
    assert len(list((kept / "env" / "kpkg.kernel").iterdir())) == 2  # SCALE 2.0 and 3.0


def test_at_most_a_few_keys_are_kept_per_module(tmp_path: Path) -> None:
    kept = tmp_path / "store"
    for i in range(store.KEEP_PER_MODULE + 2):
        package = _package(tmp_path / f"b{i}", scale=f"{i}.0")
        cache = package / "__pycache__"
        cache.mkdir()
        (cache / "kernel.scaled_sum-9.py311.nbi").write_bytes(b"index")
        (cache / "kernel.scaled_sum-9.py311.1.nbc").write_bytes(b"data")
        assert store.save(package, kept, "env") == ["kpkg.kernel"]
    assert len(list((kept / "env" / "kpkg.kernel").iterdir())) == store.KEEP_PER_MODULE
    # The newest is kept and restored into a copy of its sources.
    newest = tmp_path / "again"
    shutil.copytree(tmp_path / f"b{store.KEEP_PER_MODULE + 1}" / "kpkg", newest / "kpkg", ignore=_no_cache)
    assert store.restore(newest / "kpkg", kept, "env") == ["kpkg.kernel"]
    assert (newest / "kpkg" / "__pycache__" / "kernel.scaled_sum-9.py311.1.nbc").read_bytes() == b"data"


def _no_cache(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


def _move_to_another_cpu(package: Path, name: str | None = None, features: str | None = None) -> int:
    """Rewrite numba's cache index as if the kernels had been compiled on another CPU."""
    from numba.core.serialize import dumps

    changed = 0
    for index in (package / "__pycache__").glob("*.nbi"):
        with open(index, "rb") as fh:
            version = pickle.load(fh)
            stamp, overloads = pickle.loads(fh.read())
        moved = {}
        for (signature, (triple, cpu, cpu_features), code), data in overloads.items():
            moved[(signature, (triple, name or cpu, features or cpu_features), code)] = data
            changed += 1
        with open(index, "wb") as fh:
            pickle.dump(version, fh, protocol=-1)
            fh.write(dumps((stamp, moved)))
    return changed


@pytest.mark.parametrize(("name", "features"), [("another-cpu", None), (None, "+64bit,+sse2,-avx")])
def test_a_cache_made_for_another_cpu_is_compiled_again(tmp_path: Path, name: str, features: str) -> None:
    """What a wheel built on one machine does on another: numba's cache key holds the CPU name and
    features, so machine code made for another CPU is never run; the kernel is compiled and gives
    the same value."""
    package = _package(tmp_path)
    assert "[cache] data saved" in _run(package)
    assert "[cache] data loaded" in _run(package)  # the cache fits this CPU
    assert _move_to_another_cpu(package, name, features) == 1
    moved = _run(package)
    assert "value: 12.0" in moved and "[cache] data saved" in moved and "[cache] data loaded" not in moved
    assert "[cache] data loaded" in _run(package)  # compiled for this CPU, next to the other entry


def test_the_environment_key_names_this_cpu() -> None:
    key = store.environment_key()
    assert len(key) == 24 and key == store.environment_key()
