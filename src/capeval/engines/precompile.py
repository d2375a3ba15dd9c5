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
"""

from __future__ import annotations

import argparse
import sys
import time

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


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (used by the wheel build)."""
    parser = argparse.ArgumentParser(prog="python -m capeval.engines.precompile", description=__doc__.split("\n")[0])
    parser.parse_args(argv)
    start = time.perf_counter()
    if not precompile():
        print("numba is not installed: nothing to compile", file=sys.stderr)  # noqa: T201
        return 0
    print(f"kernels compiled in {time.perf_counter() - start:.1f} s", file=sys.stderr)  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
