"""Start-up and first run: ``capeval demo`` warm, and a fresh install's first run, against the targets.

Measures, each in a fresh process:

* ``warm``: ``capeval demo`` with every one-time set-up done (METEOR data converted, numba
  kernels compiled and cached): the median wall time of ``--repeat`` runs of the code in this
  tree, in this Python environment (an untimed run first fills the caches);
* ``fresh install``: a wheel built from this tree, installed into a new virtual environment
  under a temporary directory, and ``capeval demo`` run from outside the tree with a new
  ``HOME`` (so an empty numba user cache) and an empty capeval cache (``CAPEVAL_CACHE_DIR``):
  the wall time from the start of the process to the first printed
  score, the whole process, its CPU time and its peak resident memory; then the same install's
  warm runs (the installed wheel, which has only capeval's own dependencies: no scipy).

The demo is run with unbuffered output, so the time a score line appears on stdout is the time
it is printed. Every run's scores are checked against the official demo figures.

Targets (issue 16): warm <= 0.7 s; first run to the first score <= 10 s; first-run peak <= 1 GB.

Usage:  python bench/bench_startup.py [--repeat 5] [--fresh-runs 1] [--no-fresh] [--keep DIR]
Needs network access to a package index (or a local one) to install the fresh environment.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What ``capeval demo`` prints for the COCO demo (the official code's numbers, to 4 places).
EXPECTED = {
    "Bleu_1": "0.5794",
    "Bleu_2": "0.4044",
    "Bleu_3": "0.2785",
    "Bleu_4": "0.1908",
    "METEOR": "0.1953",
    "ROUGE_L": "0.3963",
    "CIDEr": "0.5998",
}
TARGET_WARM_S = 0.7
TARGET_FIRST_SCORE_S = 10.0
TARGET_FIRST_PEAK_MIB = 1024.0

_SCORE_LINE = re.compile(r"^\S+\s+(Bleu_\d|METEOR|ROUGE_L|CIDEr)\s+(\d\.\d{4})\s*$")
#: The console script's entry point, run by the interpreter of the environment measured.
_ENTRY = "import sys; from capeval.cli.main import console; sys.exit(console())"


@dataclass
class Run:
    wall: float
    first_score: float
    cpu: float
    peak_mib: float
    tree_peak_mib: float
    scores: dict[str, str]
    #: kernels numba compiled and cached in this run (counted with ``NUMBA_DEBUG_CACHE``, fresh runs)
    compiled: int = 0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _tree_rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants (Linux /proc), MiB."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/statm", encoding="ascii") as fh:
                total += int(fh.read().split()[1]) * _PAGE
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    stack.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total / 2**20


class _TreeSampler(threading.Thread):
    """Largest sum of the resident memory of a process tree, sampled every 20 ms."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, _tree_rss_mib(self.pid))


def _run_demo(python: str, env: dict[str, str], cwd: str) -> Run:
    """One ``capeval demo``: wall time, time to the first score line, CPU, peak memory, scores."""
    env = dict(env, PYTHONUNBUFFERED="1")
    start = time.perf_counter()
    proc = subprocess.Popen(
        [python, "-c", _ENTRY, "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        text=True,
    )
    sampler = _TreeSampler(proc.pid)
    sampler.start()
    first = float("nan")
    scores: dict[str, str] = {}
    compiled = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        compiled += line.startswith("[cache] data saved")
        match = _SCORE_LINE.match(line)
        if match:
            if not scores:
                first = time.perf_counter() - start
            scores[match.group(1)] = match.group(2)
    sampler.done.set()  # stdout closed: the process is exiting
    sampler.join()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    if code != 0:
        raise RuntimeError(f"capeval demo failed ({code}):\n{stderr[-3000:]}")
    if scores != EXPECTED:
        raise RuntimeError(f"capeval demo printed {scores}, expected {EXPECTED}")
    return Run(wall, first, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, sampler.peak, scores, compiled)


def _this_tree_env() -> dict[str, str]:
    src = str(ROOT / "src")
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [src, os.environ.get("PYTHONPATH", "")] if p))


def _fresh_env(base: Path, k: int) -> dict[str, str]:
    """A new user: new HOME, empty capeval and numba user caches, nothing of this tree on the path.

    The installed wheel's own kernel cache (compiled when the wheel was built) is what a new user
    has; numba reports each kernel it compiles and caches (``NUMBA_DEBUG_CACHE``), which is counted.
    """
    env = {key: v for key, v in os.environ.items() if not key.startswith(("PYTHON", "NUMBA_", "CAPEVAL_", "XDG_"))}
    home = base / f"home{k}"
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        CAPEVAL_CACHE_DIR=str(base / f"capeval-cache{k}"),
        NUMBA_DEBUG_CACHE="1",
    )
    return env


def _install(base: Path) -> tuple[str, float]:
    """Build the wheel of this tree and install it into a new virtual environment; its python."""
    start = time.perf_counter()
    dist = base / "dist"
    venv = base / "venv"
    python = str(venv / "bin" / "python")
    steps = [
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        [sys.executable, "-m", "venv", str(venv)],
        [python, "-m", "pip", "install", "-q", "WHEEL"],
    ]
    for cmd in steps:
        if cmd[-1] == "WHEEL":
            cmd[-1] = str(next(dist.glob("capeval-*.whl")))
        done = subprocess.run(cmd, cwd=base, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return python, time.perf_counter() - start


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def _verdict(value: float, target: float) -> str:
    return "met" if value <= target else "NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="warm runs (the median is shown)")
    parser.add_argument(
        "--fresh-runs",
        type=int,
        default=1,
        help=(
            "first runs of the fresh install, each with empty user caches (after the first, the install's"
            " own kernel cache also holds what earlier runs compiled)"
        ),
    )
    parser.add_argument("--no-fresh", action="store_true", help="only the warm runs of this tree")
    parser.add_argument("--keep", help="build the fresh install in this directory and keep it")
    args = parser.parse_args(argv)

    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine?)")
    tree_env = _this_tree_env()
    with tempfile.TemporaryDirectory(prefix="capeval-startup-") as scratch:
        _run_demo(sys.executable, tree_env, scratch)  # fills the caches
        warm = [_run_demo(sys.executable, tree_env, scratch) for _ in range(args.repeat)]
        rows = [("warm, this tree", warm)]
        if not args.no_fresh:
            base = Path(args.keep) if args.keep else Path(scratch) / "fresh"
            if base.exists():
                shutil.rmtree(base)
            base.mkdir(parents=True)
            python, install_s = _install(base)
            print(
                f"fresh install: wheel built (numba kernels compiled into it) and installed in {install_s:.1f} s"
                f" ({base / 'venv'})"
            )
            outside = base / "work"
            outside.mkdir()
            first = [_run_demo(python, _fresh_env(base, k), str(outside)) for k in range(args.fresh_runs)]
            installed_env = {k: v for k, v in _fresh_env(base, 0).items() if k != "NUMBA_DEBUG_CACHE"}
            installed = [_run_demo(python, installed_env, str(outside)) for _ in range(args.repeat)]
            rows += [("first run, fresh install", first), ("warm, fresh install", installed)]

    print(f"{'':26} {'runs':>4} {'wall s':>7} {'1st score s':>11} {'CPU s':>6} {'peak MiB':>8} {'tree MiB':>8}")
    for label, runs in rows:
        print(
            f"{label:26} {len(runs):4d} {_median([r.wall for r in runs]):7.2f} "
            f"{_median([r.first_score for r in runs]):11.2f} {_median([r.cpu for r in runs]):6.2f} "
            f"{_median([r.peak_mib for r in runs]):8.0f} {_median([r.tree_peak_mib for r in runs]):8.0f}"
        )
    print(
        "(medians; every run printed the official demo figures; CPU: user + system of the process tree;\n"
        " peak: largest resident set of one process; tree: largest sum over the process tree, sampled)"
    )
    warm_s = _median([r.wall for r in warm])
    verdict = _verdict(warm_s, TARGET_WARM_S)
    print(f"target: warm capeval demo <= {TARGET_WARM_S} s: {warm_s:.2f} s (this tree), {verdict}")
    if not args.no_fresh:
        installed_s = _median([r.wall for r in installed])
        print(f"        warm, fresh install: {installed_s:.2f} s, {_verdict(installed_s, TARGET_WARM_S)}")
        first_s = _median([r.first_score for r in first])
        peak = max(r.peak_mib for r in first)
        print(
            f"target: first run to the first score <= {TARGET_FIRST_SCORE_S:.0f} s: {first_s:.2f} s, "
            f"{_verdict(first_s, TARGET_FIRST_SCORE_S)}"
        )
        print(f"        kernels compiled on the first run(s): {', '.join(str(r.compiled) for r in first)}")
        tree = max(r.tree_peak_mib for r in first)
        print(
            f"target: first-run peak <= {TARGET_FIRST_PEAK_MIB:.0f} MiB: {peak:.0f} MiB in one process, "
            f"{_verdict(peak, TARGET_FIRST_PEAK_MIB)}; {tree:.0f} MiB summed over its processes, "
            f"{_verdict(tree, TARGET_FIRST_PEAK_MIB)}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
