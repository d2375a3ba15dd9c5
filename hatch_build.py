"""Wheel build step: ship numba's cache of capeval's kernels in the wheel.

Runs ``python -m capeval.engines.precompile --store DIR`` on a copy of the package and adds the
cache files it leaves (``capeval/**/__pycache__/*.nbi``, ``*.nbc``) to the wheel, so that a new
installation loads the kernels instead of compiling them on its first run.

The compiled kernels are also kept in ``DIR`` (``$CAPEVAL_CACHE_DIR/kernels``, else
``$XDG_CACHE_HOME/capeval/kernels`` or ``~/.cache/capeval/kernels``), each module under a key made
of its source, the sources it imports, Python, numba and the CPU (see
``capeval.engines._kernel_store``): the next build of the same sources, as when a user adds an
extra with ``pip install '.[extra]'``, takes them from there and compiles nothing.
``CAPEVAL_NO_KERNEL_STORE=1`` builds without the store.

The wheel stays ``py3-none-any``: its code is pure Python and runs anywhere. The machine code in
it is a cache that numba checks on every load (source content, Python and numba versions, CPU name
and features, all in its cache key): where they differ, as when the wheel built on one machine is
installed on another, numba compiles the kernel on first use and the numbers are the same
(``tests/engines/test_kernel_store.py`` loads a cache made for another CPU).

Skipped for editable installs, with ``CAPEVAL_NO_PRECOMPILE=1``, and (with a warning) when the
compilation fails: the wheel is then the plain package, which compiles on first use.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _kernel_store() -> Path | None:
    """Where compiled kernels are kept between builds (capeval's cache directory, as
    ``capeval._cache.cache_root`` finds it), or None when disabled."""
    if os.environ.get("CAPEVAL_NO_KERNEL_STORE"):
        return None
    explicit = os.environ.get("CAPEVAL_CACHE_DIR")
    if explicit:
        return Path(explicit) / "kernels"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "capeval" / "kernels"


class KernelCacheHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._tmp: str | None = None
        if self.target_name != "wheel" or version == "editable" or os.environ.get("CAPEVAL_NO_PRECOMPILE"):
            return
        self._tmp = tempfile.mkdtemp(prefix="capeval-kernels-")
        package = Path(self._tmp) / "capeval"
        shutil.copytree(
            Path(self.root) / "src" / "capeval", package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
        store = _kernel_store()
        # pip's isolated build puts the build dependencies (numba, NumPy) on PYTHONPATH: keep them.
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [self._tmp, os.environ.get("PYTHONPATH")])))
        for name in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "CAPEVAL_CACHE_DIR"):
            env.pop(name, None)
        env["CAPEVAL_CACHE_DIR"] = str(Path(self._tmp) / "capeval-cache")
        command = [sys.executable, "-m", "capeval.engines.precompile"]
        if store is not None:
            command += ["--store", str(store)]
        self.app.display_info(f"capeval's numba kernels for the wheel (compiled kernels kept in {store})")
        done = subprocess.run(command, cwd=self._tmp, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or "").strip().splitlines()[-5:])
            self.app.display_warning(f"kernel precompilation failed; the wheel compiles them on first use:\n{tail}")
            return
        summary = [line for line in (done.stderr or "").splitlines() if line.startswith(("kernels ready", "compiled"))]
        for line in summary:
            self.app.display_info(line)
        for path in sorted(package.rglob("__pycache__/*")):
            if path.suffix in (".nbi", ".nbc"):
                build_data["force_include"][str(path)] = str(Path("capeval") / path.relative_to(package))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_tmp", None):
            shutil.rmtree(self._tmp, ignore_errors=True)
