"""Meta-evaluation timings: the published tables (``capeval reproduce``) and the statistics under them.

1. Kendall tau-b at n = 47,830 rows (the size of Flickr8K-CF), side by side: capeval's
   O(n log n) count, the pairwise O(n^2) definition (blocked numpy, what capeval used before)
   and ``scipy.stats.kendalltau``; the three values must agree.
2. Each protocol whose files are in ``--data`` (one directory per protocol, distributed file
   names): wall time of ``reproduce`` and the part spent in the metrics, and the largest
   difference to the published values.

Usage::

    python bench/bench_meta_eval.py [--flickr8k ../shared/data/flickr8k-raw-dev]
        [--pascal50s ../shared/data/pascal50s] [--thumb ../shared/data/thumb] [--skip-pairwise]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from capeval.cli.cmd_reproduce import EngineScorer
from capeval.meta_eval import kendall_tau
from capeval.meta_eval.protocols import CLASSIC_METRICS, reproduce

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
#: Rows of Flickr8K-CF (one per judgment).
CF_ROWS = 47_830


def _pairwise_s(x: np.ndarray, y: np.ndarray, block: int = 1024) -> float:
    total = 0
    for start in range(0, x.size, block):
        sx = np.sign(x[start : start + block, None] - x[None, :])
        sy = np.sign(y[start : start + block, None] - y[None, :])
        total += int(np.sum(sx * sy, dtype=np.int64))
    return total / 2.0


def bench_kendall(skip_pairwise: bool) -> None:
    rng = np.random.default_rng(0)
    x = np.round(rng.random(CF_ROWS), 3)  # metric scores with ties
    y = np.round(np.clip(x + rng.normal(0, 0.4, CF_ROWS), 0, 1) * 3) / 3  # fraction of 3 "yes" votes
    start = time.perf_counter()
    ours = kendall_tau(x, y, variant="b")
    t_ours = time.perf_counter() - start
    print(f"Kendall tau-b, n = {CF_ROWS:,}: capeval {t_ours:.3f} s (tau = {ours.coefficient:.12f})")
    try:
        from scipy.stats import kendalltau

        start = time.perf_counter()
        ref = kendalltau(x, y)
        t_scipy = time.perf_counter() - start
        print(f"  scipy.stats.kendalltau {t_scipy:.3f} s, |difference| = {abs(ref.statistic - ours.coefficient):.1e}")
    except ImportError:
        print("  scipy not installed")
    if not skip_pairwise:
        from capeval.meta_eval.correlation import _concordance

        start = time.perf_counter()
        s_pairs = _pairwise_s(x, y)
        t_pairs = time.perf_counter() - start
        same = s_pairs == _concordance(x, y)
        print(f"  pairwise O(n^2) count {t_pairs:.1f} s (P - Q identical: {same}); ratio {t_pairs / t_ours:.0f}x")


def bench_protocols(dirs: dict[str, Path]) -> None:
    print("\nprotocol               items  total s  metrics s  max |ours - published|")
    for name, directory in dirs.items():
        if not directory.is_dir():
            print(f"{name:20s} skipped: {directory} not found")
            continue
        scorer = EngineScorer(list(CLASSIC_METRICS))
        result = reproduce(name, directory, scorer)
        diffs = [abs(r.difference) for r in result.rows if r.difference is not None]
        worst = f"{max(diffs):.2f}" if diffs else "-"
        items = result.notes[0].split(" items")[0].split(" pairs")[0]
        print(f"{name:20s} {items:>9s}  {result.seconds:7.1f}  {scorer.metric_seconds:9.1f}  {worst}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flickr8k", type=Path, default=SHARED / "flickr8k-raw-dev")
    parser.add_argument("--pascal50s", type=Path, default=SHARED / "pascal50s")
    parser.add_argument("--thumb", type=Path, default=SHARED / "thumb")
    parser.add_argument("--skip-pairwise", action="store_true", help="do not time the O(n^2) count (about 40 s)")
    args = parser.parse_args()
    bench_kendall(args.skip_pairwise)
    bench_protocols(
        {
            "flickr8k-expert": args.flickr8k,
            "flickr8k-cf": args.flickr8k,
            "pascal50s-spice": args.pascal50s,
            "pascal50s-clipscore": args.pascal50s,
            "thumb": args.thumb,
        }
    )


if __name__ == "__main__":
    main()
