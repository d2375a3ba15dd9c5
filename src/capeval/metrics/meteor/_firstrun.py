"""METEOR's first use on a machine: convert the data tables and compile the aligner side by side.

Both are one-time costs (the paraphrase-table conversion, about 8 s of CPU, and numba's
compilation of the aligner, about 12 s, unless the installed wheel carries numba's cache of it:
see ``capeval.engines.precompile``). Done one after the other they dominate a new user's first
run; here the conversion runs in a separate process (a new interpreter calling
``load_meteor_data``, which writes the cache exactly as an in-process first use does) while this
process compiles the aligner on an empty job with the argument types of a real one. A scoring
run starts the conversion before it scores anything (:func:`start_first_use`, through
``METEOR.prefetch``), so that it also overlaps tokenizing and the other metrics. Anything
unexpected (no interpreter to start, the conversion failing) falls back to the in-process
conversion, which reports errors as before.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from capeval.metrics.meteor import _batch, _kernel, _resources

__all__ = ["compile_kernels", "load_kernels", "prepare_first_use", "start_first_use", "warm_job"]

logger = logging.getLogger("capeval")

#: The conversion started ahead of the first load by :func:`start_first_use` (one per process).
_started: subprocess.Popen[bytes] | None = None
_started_lock = threading.Lock()


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def warm_job() -> tuple[np.ndarray, ...]:
    """An empty job for :func:`capeval.metrics.meteor._kernel.meteor_item_stats` whose argument
    types (dtype, layout, read-only flag) are those of the jobs ``METEOR._prepare_job`` builds,
    so that compiling on it compiles the one specialization real jobs use (tested)."""
    i64 = np.zeros(0, dtype=np.int64)
    one = np.zeros(1, dtype=np.int64)
    return (
        i64,  # item_hyp
        one,  # ref_off
        i64.copy(),  # ref_sent
        one.copy(),  # sent_off
        i64.copy(),  # sent_words
        i64.copy(),  # word_para
        _readonly(np.zeros(0, dtype=np.uint64)),  # phrase_hi (memory-mapped cache file)
        _readonly(np.zeros(0, dtype=np.uint64)),  # phrase_lo
        i64.copy(),  # first_off
        i64.copy(),  # w_hash
        i64.copy(),  # w_stem
        np.zeros(0, dtype=np.uint64),  # w_sig
        np.zeros(0, dtype=np.bool_),  # w_func
        one.copy(),  # syn_off
        np.zeros(0, dtype=np.int32),  # syn_ids
        _readonly(np.zeros(1, dtype=np.int64)),  # group_off
        _readonly(np.zeros(0, dtype=np.int32)),  # group_dst
        _readonly(np.zeros(0, dtype=np.int8)),  # group_dlen
    )


def compile_kernels() -> None:
    """Compile (or load from numba's cache) the aligner and the score functions."""
    if not _kernel.HAVE_NUMBA:
        return
    _kernel.meteor_item_stats(*warm_job())
    _kernel.segment_scores(np.zeros((0, _kernel.N_STATS), dtype=np.float64))
    _kernel.segment_score(np.zeros(_kernel.N_STATS, dtype=np.float64))


def load_kernels() -> None:
    """Load (or compile) the kernels of a scoring run in the order it first needs them: the word
    index and the input segmenting (which the tables and the first block's preparation wait
    for), then the aligner and the score functions (see :func:`compile_kernels`)."""
    if not _kernel.HAVE_NUMBA:
        return
    _batch.segment_tokens(["a b"], {}, _batch.WordIndex.of_lines("a"))
    compile_kernels()


def _start_conversion() -> subprocess.Popen[bytes] | None:
    if not sys.executable or not os.path.exists(sys.executable):
        return None
    # the same capeval as this process, wherever it was imported from
    root = str(Path(_resources.__file__).resolve().parents[3])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    try:
        return subprocess.Popen(
            [sys.executable, "-c", "from capeval.metrics.meteor._resources import load_meteor_data as f; f()"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def _needs_conversion() -> bool:
    """Whether the tables are still to be converted (and can be: the official package is there)."""
    if (_resources.cache_dir() / "manifest.json").is_file() or not _kernel.HAVE_NUMBA:
        return False
    try:
        _resources.locate_pycocoevalcap()
    except _resources.MeteorDataError:
        return False  # the caller's load reports it at once, without compiling first
    return True


def _start_logged() -> subprocess.Popen[bytes] | None:
    proc = _start_conversion()
    if proc is not None:
        logger.info(
            "converting the METEOR paraphrase table once into %s in the background (about 8 s, first use only)",
            _resources.cache_dir(),
        )
    return proc


def start_first_use() -> None:
    """If the METEOR tables are not converted yet, start converting them in a background process
    now (at most one per process; :func:`prepare_first_use` waits for it)."""
    global _started
    with _started_lock:
        if _started is None and _needs_conversion():
            _started = _start_logged()


def prepare_first_use() -> None:
    """Before a process first loads the METEOR tables: if they are not converted yet, convert
    them in a background process (or wait for the one :func:`start_first_use` started) while
    this one compiles the aligner; then return (the caller loads the tables, converting them
    itself if the background conversion failed)."""
    global _started
    with _started_lock:
        proc, _started = _started, None
    if proc is None:
        if not _needs_conversion():
            return
        proc = _start_logged()
        if proc is None:
            return
    try:
        compile_kernels()
        code = proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if code != 0:
        logger.debug("background METEOR conversion exited with %s; converting in this process", code)
