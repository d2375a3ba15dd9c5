"""Compile numba's kernels for a scoring run ahead of time: ``python -m capeval.engines.precompile``.

numba compiles capeval's kernels on their first call and caches the machine code next to each
module (``__pycache__/*.nbi``, ``*.nbc``), or in its user cache directory where the package is
read-only. Building a wheel runs this module on a copy of the package, so that the wheel carries
the cache and a new installation's first run loads the kernels instead of compiling them (about
20 s of CPU). numba uses a cached kernel only where the source file's content, the Python and
numba versions and the CPU (name and features) are those it was compiled for; anywhere else it
compiles on first use, as without the shipped cache, and the numbers are the same either way.

What is compiled: every kernel that ``capeval demo`` calls, with the argument types of real
use: BLEU, ROUGE-L and CIDEr-D score the built-in demo data through the scoring engine; METEOR's
aligner and score functions run on an empty job of the real types (its tables are converted on
first use and are not needed here), and its word index, input segmenting and paraphrase-table
parser on a few words.

``--store DIR`` (the wheel build passes the user's cache, ``~/.cache/capeval/kernels``) keeps the
compiled kernels between builds: each module's cache files are taken from ``DIR`` when its key
(its source, the sources it imports, Python, numba and the CPU; see
:mod:`capeval.engines._kernel_store`) matches, and saved there afterwards. Adding an extra with
``pip install '.[extra]'``, which builds the wheel again from the same sources, then compiles
nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

__all__ = ["precompile"]


def _meteor() -> None:
    from capeval.metrics.meteor import _convert, _firstrun, _resources

    _firstrun.load_kernels()  # the word index, the input segmenting, the aligner and score functions
    _convert.parse_paraphrases(_resources.warm_paraphrase_text(), _resources.TOKEN_BITS, _resources.TOKENS_PER_WORD)


def _spice_parser() -> None:
    """The exact SPICE parser's chart kernels, on a toy grammar (CoreNLP's grammar is never shipped)."""
    from capeval.metrics.spice.corenlp.chart import compile_kernels

    compile_kernels()


def _classic() -> None:
    from capeval.data import demo_paths
    from capeval.engines.local import evaluate
    from capeval.io import load_corpus

    corpus = load_corpus(*demo_paths())
    evaluate(corpus, metrics=["bleu", "rouge-l", "cider-d"], tokenizer="ptb")


def precompile() -> bool:
    """Compile (or load from numba's cache) the kernels of a scoring run; False without numba."""
    from capeval.metrics._numba import HAVE_NUMBA

    if not HAVE_NUMBA:
        return False
    _classic()
    _meteor()
    _spice_parser()
    return True


def _snapshot(package_dir: Path) -> dict[Path, tuple[int, int]]:
    return {
        p: (p.stat().st_size, p.stat().st_mtime_ns)
        for p in package_dir.rglob("__pycache__/*")
        if p.suffix in (".nbi", ".nbc")
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (used by the wheel build)."""
    parser = argparse.ArgumentParser(prog="python -m capeval.engines.precompile", description=__doc__.split("\n")[0])
    parser.add_argument("--store", metavar="DIR", help="take compiled kernels from DIR and keep them there")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    from capeval.metrics._numba import HAVE_NUMBA

    if not HAVE_NUMBA:
        print("numba is not installed: nothing to compile", file=sys.stderr)  # noqa: T201
        return 0
    import capeval

    package_dir = Path(capeval.__file__).resolve().parent
    restored: list[str] = []
    if args.store:
        from capeval.engines import _kernel_store

        environment = _kernel_store.environment_key()
        try:
            restored = _kernel_store.restore(package_dir, args.store, environment)
        except OSError as exc:  # an unreadable cache: compile everything
            print(f"compiled kernels not taken from {args.store}: {exc}", file=sys.stderr)  # noqa: T201
    before = _snapshot(package_dir)
    precompile()
    after = _snapshot(package_dir)
    compiled = sorted(
        {
            (p.parent.parent.relative_to(package_dir) / p.name.split(".", 1)[0]).as_posix()
            for p, stamp in after.items()
            if before.get(p) != stamp
        }
    )
    if args.store:
        try:
            _kernel_store.save(package_dir, args.store, environment)
        except OSError as exc:  # a read-only or full cache: the build goes on without it
            print(f"compiled kernels not stored in {args.store}: {exc}", file=sys.stderr)  # noqa: T201
    what = f"compiled ({', '.join(compiled)})" if compiled else "none compiled"
    stored = f"; {len(restored)} modules' kernels from {args.store}" if args.store else ""
    print(f"kernels ready in {time.perf_counter() - start:.1f} s: {what}{stored}", file=sys.stderr)  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
