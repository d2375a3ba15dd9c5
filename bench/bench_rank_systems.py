"""Table 3 of Hodosh et al. (2013): the NN and KCCA ranking systems on the Flickr8K test split.

Trains every system with ``capeval.ranking.systems`` (the code behind ``capeval rank-systems``)
on the 6,000 training images, selects KCCA models on the 1,000 dev images, ranks the 1,000 test
images x 5,000 test captions, and prints R@1/5/10 and median rank for image annotation and
image search next to the published figures, with the wall time and peak memory of the run
(visual words and kernels are cached under ``--cache-dir``: a second run reuses them; pass a
fresh folder to time everything). It also prints S@k and R-precision on the test images with
expert judgments (relevant: gold captions and mean expert score >= 3) and on those with
CrowdFlower judgments (relevant: at least two thirds of the judges said yes), and significance
tests between systems adjacent in Table 3.

The images: any folder of the original Flickr8K images, or the 224x224 copies of the public
repository RlNZLER/Image-Text-Matching (``git clone`` it, then ``git checkout
56a15d913c3f290e2ee896386ece6076c1eea02e -- data/images``).

Usage::

    python bench/bench_rank_systems.py --images PATH/data/images
        [--data ../shared/data/flickr8k-raw-dev] [--out DIR] [--cache-dir DIR] [--systems nn,bow1,...]
        [--image-decomposition exact|cholesky]
    python bench/bench_rank_systems.py --evaluate-only --out DIR   # the tables of an earlier run's matrices
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from capeval.ranking import binarize, evaluate_ranking, r_precision, success_at_k
from capeval.ranking.io import blocks
from capeval.ranking.systems import KCCAGrid, extract_visual_words, read_flickr8k, run_systems
from capeval.ranking.systems.data import JUDGMENT_FILES
from capeval.stats import mcnemar, paired_permutation_test

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "flickr8k-raw-dev"

#: The figures of Hodosh et al. (2013) quoted here (R@1, R@5, R@10 in %, median rank); None: not quoted.
PUBLISHED: dict[str, dict[str, tuple[float, float, float, float] | None]] = {
    "nn": {"annotation": (2.5, 7.6, 9.7, 251), "search": None},
    "bow1": {"annotation": None, "search": None},
    "bow5": {"annotation": (6.2, 17.1, 24.3, 58), "search": None},
    "tagrank": {"annotation": None, "search": None},
    "tri5": {"annotation": (7.1, 17.2, 23.7, 53), "search": None},
    "tri5sem": {"annotation": (8.3, 21.6, 30.3, 34), "search": (7.6, 20.7, 30.1, 38)},
}
NAMES = {
    "nn": "NN5",
    "bow1": "BoW1",
    "bow5": "BoW5",
    "tagrank": "TagRank",
    "tri5": "TRI5",
    "tri5sem": "TRI5SEM",
    "tri5-sqrtidf": "TRI5 sqrtIDF",
}


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def _fmt(values: tuple[float, float, float, float] | None) -> str:
    if values is None:
        return f"{'-':>5} {'-':>5} {'-':>5} {'-':>5}"
    return f"{values[0]:5.1f} {values[1]:5.1f} {values[2]:5.1f} {values[3]:5g}"  # a median may end in .5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", help="folder of the Flickr8K images (not needed with --evaluate-only)")
    parser.add_argument("--data", default=str(SHARED), help="folder of the Flickr8K distribution files")
    parser.add_argument("--out", help="where the score matrices go (default: a temporary folder)")
    parser.add_argument("--cache-dir", help="visual words and kernels cache (default: inside --out)")
    parser.add_argument("--systems", default="nn,bow1,bow5,tagrank,tri5,tri5sem")
    parser.add_argument(
        "--image-decomposition",
        choices=("exact", "cholesky"),
        default="exact",
        help="exact (default) or the round-one incomplete Cholesky factor of 800 pivots",
    )
    parser.add_argument(
        "--evaluate-only", action="store_true", help="no training: print the tables of the matrices already in --out"
    )
    args = parser.parse_args()

    systems = [s for s in args.systems.split(",") if s]
    if args.evaluate_only and not args.out:
        parser.error("--evaluate-only needs --out (the folder of an earlier run)")
    if not args.evaluate_only and not args.images:
        parser.error("--images is required (unless --evaluate-only)")
    out = Path(args.out or tempfile.mkdtemp(prefix="capeval-rank-systems-"))
    cache = Path(args.cache_dir) if args.cache_dir else out / "cache"
    start = time.perf_counter()
    data = read_flickr8k(args.data)
    if args.evaluate_only:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        if manifest["images"] != list(data.test.images):
            raise SystemExit(f"{out}: the matrices are not for the test split of {args.data}")
        t_features = total = peak = None
    else:
        images = list(data.train.images + data.dev.images + data.test.images)
        features = extract_visual_words(args.images, images, data.train.images, cache_dir=cache)
        t_features = time.perf_counter() - start
        grid = KCCAGrid(image_decomposition=args.image_decomposition)
        manifest = run_systems(data, features, out, systems=systems, grid=grid, cache_dir=cache, log=print)
        total = time.perf_counter() - start
        peak = _peak_mb()

    gold = list(blocks(len(data.test.images) * 5, 5))
    print(f"\nFlickr8K test: {len(data.test.images):,} images x {len(gold):,} captions; R@k in %; ties pessimistic")
    header = (
        f"{'system':12} {'task':10} | {'ours R@1':>8} {'R@5':>5} {'R@10':>5} {'med':>5} | paper  R@1   R@5  R@10   med"
    )
    print(header)
    print("-" * len(header))
    results = {}
    for system in systems:
        for task in ("annotation", "search"):
            scores = np.load(out / f"{system}.{task}.npy")
            r = evaluate_ranking(scores, gold, task=task)
            results[(system, task)] = (r, scores)
            ours = (100 * r.recall[1], 100 * r.recall[5], 100 * r.recall[10], r.median_rank)
            paper = _fmt(PUBLISHED.get(system, {}).get(task))
            print(f"{NAMES.get(system, system):12} {task:10} | {_fmt(ours):>26} | {paper}")

    order = [s for s in ("nn", "bow1", "bow5", "tagrank", "tri5", "tri5sem") if s in systems]
    print("\nTable 3's ordering NN < BoW1 < BoW5 <= TagRank <= TRI5 < TRI5SEM (R@10 up, median rank down):")
    for task in ("annotation", "search"):
        broken = []
        for a, b in zip(order, order[1:], strict=False):
            ra, rb = results[(a, task)][0], results[(b, task)][0]
            if rb.recall[10] < ra.recall[10] or rb.median_rank > ra.median_rank:
                broken.append(
                    f"{NAMES[a]} {100 * ra.recall[10]:.1f}/{ra.median_rank:g} -> "
                    f"{NAMES[b]} {100 * rb.recall[10]:.1f}/{rb.median_rank:g}"
                )
        print(f"  {task:10}: " + ("holds" if not broken else "not at " + "; ".join(broken)))

    for source in JUDGMENT_FILES:
        path = Path(args.data) / source.file
        if not path.is_file():
            continue
        judgments, used = source.read(path, data.test.images, data.test.caption_ids)
        named = {line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
        judged = np.array([i for i, im in enumerate(data.test.images) if im in named], dtype=np.int64)
        relevant = binarize(judgments, source.threshold)
        print(f"\nS@k and R-precision, image annotation, on the {judged.size} test images judged in {source.file}")
        print(f"({used:,} judged pairs; relevant: gold or {source.rule})")
        print(f"{'system':12} | {'S@1':>5} {'S@5':>5} {'S@10':>5} | R-prec.")
        for system in systems:
            scores = results[(system, "annotation")][1][judged]
            rel = relevant[judged]
            s = [100 * success_at_k(scores, rel, k) for k in (1, 5, 10)]
            rp = 100 * r_precision(scores, rel)[0]
            print(f"{NAMES.get(system, system):12} | {s[0]:5.1f} {s[1]:5.1f} {s[2]:5.1f} | {rp:6.1f}")

    print("\nadjacent systems (McNemar on R@10, randomization test on the median rank, 10,000 trials, seed 0):")
    for a, b in zip(systems, systems[1:], strict=False):
        for task in ("annotation", "search"):
            ra, rb = results[(a, task)][0], results[(b, task)][0]
            m = mcnemar(ra.ranks <= 10, rb.ranks <= 10)
            p = paired_permutation_test(ra.ranks, rb.ranks, statistic="median", n_resamples=10_000, seed=0)
            print(f"  {a} vs {b} {task:10}: McNemar p = {m.p_value:.3g}, median-rank p = {p.p_value:.3g}")

    if t_features is not None:
        print(f"\nvisual words: {t_features:.0f} s; total wall time {total:.0f} s; peak memory {peak:,.0f} MB")
    print(f"image kernel: {manifest['grid'].get('image_decomposition', 'cholesky')} decomposition; timings of the run:")
    for name, t in manifest["timings_s"].items():
        print(f"  {name}: {t:.0f} s")
    print(f"matrices and manifest.json in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
