"""Readings of Hodosh et al.'s (2013) text kernels, compared on the Flickr8K dev split only.

The paper leaves details of its text kernels open (term weighting; how the trigram kernel
combines unigrams, bigrams and trigrams; TagRank's weights). This runs each reading through
the same KCCA grid as ``capeval rank-systems`` against the same image kernel, selects and
scores on the 1,000 dev images only (the test split is never read), and prints for each the
selection criterion of its best model (mean over both directions of (R@1 + R@5 + R@10) / 3),
the mean of its 15 best, and the best model's R@10 and median rank in both directions. The
readings the systems use (``capeval.ranking.systems.TEXT_KERNELS``) were chosen from this table.

It then prints, for a few subject and scene words, where captions mention them (mean relative
position of the first mention, 0 = first word, 1 = last) and how well the image kernel sees them
(lift: how much more often a dev image's word occurs in the captions of its 10 nearest training
images under the image kernel than in a random training image's).

The images as for ``bench_rank_systems.py``; with the same ``--cache-dir`` the visual words and
the image kernel come from that run's cache.

Usage::

    python bench/bench_rank_text_kernels.py --images PATH/data/images --cache-dir DIR
        [--data ../shared/data/flickr8k-raw-dev] [--only NAME,NAME]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from capeval.ranking.systems import KCCAGrid, extract_visual_words, read_flickr8k, run_systems
from capeval.ranking.systems import kernels as K
from capeval.ranking.systems.data import Flickr8K
from capeval.ranking.systems.image_features import ImageFeatures
from capeval.ranking.systems.pipeline import TEXT_KERNELS, TextKernelSpec

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "flickr8k-raw-dev"

#: name -> (reading, text kernel)
READINGS: dict[str, tuple[str, TextKernelSpec]] = {
    "bow5-counts": ("BoW5, raw counts", TextKernelSpec("bow", 5, "none")),
    "bow5": ("BoW5, IDF (the system)", TEXT_KERNELS["bow5"]),
    "tagrank-plain": ("TagRank, unweighted", TextKernelSpec("tagrank", 5, "none")),
    "tagrank": ("TagRank, IDF (the system)", TEXT_KERNELS["tagrank"]),
    "tri5-avg-counts": ("TRI5, orders' cosines averaged, counts", TextKernelSpec("tri", 5, "none")),
    "tri5-avg-sqrtidf": ("TRI5, orders' cosines averaged, sqrt-IDF", TextKernelSpec("tri", 5, "sqrt-idf")),
    "tri5-avg-idf": ("TRI5, orders' cosines averaged, IDF", TextKernelSpec("tri", 5, "idf")),
    "tri5-blend-counts": ("TRI5, blended 0.3, counts", TextKernelSpec("tri", 5, "none", 0.3)),
    "tri5-blend1-idf": ("TRI5, blended 1.0, IDF", TextKernelSpec("tri", 5, "idf", 1.0)),
    "tri5-blend.5-idf": ("TRI5, blended 0.5, IDF", TextKernelSpec("tri", 5, "idf", 0.5)),
    "tri5": ("TRI5, blended 0.3, IDF (the system)", TEXT_KERNELS["tri5"]),
    "tri5-sqrtidf": ("TRI5, blended 0.3, sqrt-IDF", TEXT_KERNELS["tri5-sqrtidf"]),
    "tri5sem-avg-sqrtidf": ("TRI5SEM, averaged, sqrt-IDF", TextKernelSpec("trisem", 5, "sqrt-idf")),
    "tri5sem": ("TRI5SEM, blended 0.3, IDF (the system)", TEXT_KERNELS["tri5sem"]),
}


#: Words of the position diagnostic: subjects (mentioned early) and scenes (mentioned late).
WORDS = ("man", "dog", "woman", "boy", "girl", "child", "snow", "water", "grass", "beach", "field", "street", "pool")


def word_diagnostic(data: Flickr8K, features: ImageFeatures, neighbours: int = 10) -> None:
    """Where captions mention each of :data:`WORDS`, and its lift among the image kernel's nearest neighbours."""
    rows = K.intersection_kernel(
        K.image_feature_matrix(features.subset(data.dev.images)),
        K.image_feature_matrix(features.subset(data.train.images)),
    )
    nearest = np.argsort(-rows, axis=1, kind="stable")[:, :neighbours]
    train_words = [{t for c in caps for t in K.tokenize(c)} for caps in data.train.lemmas]
    dev_words = [{t for c in caps for t in K.tokenize(c)} for caps in data.dev.lemmas]
    positions: dict[str, list[float]] = {w: [] for w in WORDS}
    for caption in data.train.flat_lemmas():
        toks = K.tokenize(caption)
        for w in WORDS:
            if w in toks:
                positions[w].append(toks.index(w) / max(len(toks) - 1, 1))
    print(f"\n{'word':8} | {'position':>8} | {'lift':>5} | dev images")
    for w in WORDS:
        base = float(np.mean([w in s for s in train_words]))
        having = [i for i, s in enumerate(dev_words) if w in s]
        if not having or base == 0:
            continue
        hit = np.mean([np.mean([w in train_words[j] for j in nearest[i]]) for i in having])
        print(f"{w:8} | {np.mean(positions[w]):8.2f} | {hit / base:5.2f} | {len(having)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", required=True, help="folder of the Flickr8K images")
    parser.add_argument("--data", default=str(SHARED), help="folder of the Flickr8K distribution files")
    parser.add_argument("--cache-dir", help="visual words and kernels cache (default: a temporary folder)")
    parser.add_argument("--only", help="comma-separated reading names (default: all)")
    args = parser.parse_args()
    names = [n for n in (args.only or ",".join(READINGS)).split(",") if n]
    unknown = [n for n in names if n not in READINGS]
    if unknown:
        parser.error(f"unknown reading {unknown[0]!r}; known: {', '.join(READINGS)}")
    start = time.perf_counter()
    cache = Path(args.cache_dir or tempfile.mkdtemp(prefix="capeval-text-kernels-"))
    data = read_flickr8k(args.data)
    images = list(data.train.images + data.dev.images + data.test.images)
    features = extract_visual_words(args.images, images, data.train.images, cache_dir=cache)
    specs = {f"dev-{n}": READINGS[n][1] for n in names}
    with tempfile.TemporaryDirectory(prefix="capeval-text-kernels-out-") as out:
        manifest = run_systems(
            data,
            features,
            out,
            systems=list(specs),
            evaluate="dev",
            grid=KCCAGrid(),
            cache_dir=cache,
            text_kernels=specs,
            progress=False,
        )
    print(
        f"\nFlickr8K dev ({len(data.dev.images):,} images x {5 * len(data.dev.images):,} captions); "
        "best single model of each reading; R@10 in %"
    )
    header = (
        f"{'reading':42} | {'best':>6} {'top15':>6} | {'ann R@10':>8} {'med':>5} | {'sea R@10':>8} {'med':>5} | model"
    )
    print(header)
    print("-" * len(header))
    for n in names:
        chosen = manifest["systems"][f"dev-{n}"]["selected"]
        b = chosen[0]
        top = float(np.mean([m["dev"] for m in chosen]))
        a, s = b["annotation"], b["search"]
        model = f"p{b['power']} shift {b['shift']:g} kappa {b['kappa']:g} dims {b['dims']}"
        print(
            f"{READINGS[n][0]:42} | {b['dev']:6.4f} {top:6.4f} | {100 * a['R@10']:8.1f} {a['median']:5.0f} | "
            f"{100 * s['R@10']:8.1f} {s['median']:5.0f} | {model}"
        )
    word_diagnostic(data, features)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nwall time {time.perf_counter() - start:.0f} s, peak memory {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
