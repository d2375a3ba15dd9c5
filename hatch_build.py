"""Wheel build step: ship numba's cache of capeval's kernels in the wheel.

Runs ``python -m capeval.engines.precompile`` on a copy of the package and adds the cache files
it writes (``capeval/**/__pycache__/*.nbi``, ``*.nbc``) to the wheel, so that a new installation
loads the kernels instead of compiling them on its first run. numba uses them only where the
source, Python, numba and CPU match the build's (as when ``pip install .`` builds the wheel on the
machine it installs on) and compiles on first use anywhere else.

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
        env = dict(os.environ, PYTHONPATH=self._tmp)
        for name in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "CAPEVAL_CACHE_DIR"):
            env.pop(name, None)
        env["CAPEVAL_CACHE_DIR"] = str(Path(self._tmp) / "capeval-cache")
        self.app.display_info("compiling capeval's numba kernels for the wheel (about 30 s)")
        done = subprocess.run(
            [sys.executable, "-m", "capeval.engines.precompile"],
            cwd=self._tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stderr or "").strip().splitlines()[-5:])
            self.app.display_warning(f"kernel precompilation failed; the wheel compiles them on first use:\n{tail}")
            return
        for path in sorted(package.rglob("__pycache__/*")):
            if path.suffix in (".nbi", ".nbc"):
                build_data["force_include"][str(path)] = str(Path("capeval") / path.relative_to(package))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_tmp", None):
            shutil.rmtree(self._tmp, ignore_errors=True)
