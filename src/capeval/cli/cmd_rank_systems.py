"""``capeval rank-systems``: train the ranking systems of Hodosh et al. (2013) and write score matrices.

From the Flickr8K distribution files (captions, lemmatized captions, splits) and a folder of
the images, it extracts visual words (cached), trains the nearest-neighbour baseline and the
KCCA systems on the training split, selects KCCA models on the dev split and writes, per
system, ``<system>.annotation.npy`` and ``<system>.search.npy`` (images x captions of the
evaluated split, five captions per image, image-major) for ``capeval rank``; with the
judgment files present, also ``judgments-expert.npy`` (mean expert score) and
``judgments-crowd.npy`` (CrowdFlower yes fraction) for S@k and R-precision.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from capeval.cli.main import CLIError

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Body of ``capeval rank-systems``."""
    import numpy as np

    from capeval._cache import cache_root
    from capeval.ranking.systems import SYSTEMS, KCCAGrid, extract_visual_words, read_flickr8k, run_systems
    from capeval.ranking.systems.data import JUDGMENT_FILES
    from capeval.ranking.systems.image_features import VisualWordConfig

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise CLIError(f"unknown system {unknown[0]!r}; choose from {', '.join(SYSTEMS)}")
    if not Path(args.images).is_dir():
        raise CLIError(f"{args.images}: image folder not found")
    data = read_flickr8k(args.data)
    cache = Path(args.cache_dir) if args.cache_dir else cache_root() / "ranking-systems"
    words = dict(zip(("colour", "texture", "sift"), _ints(args.words, "--words", 3), strict=True))
    config = VisualWordConfig(words=words, codebook_images=args.codebook_images, seed=args.seed)
    images = list(dict.fromkeys(data.train.images + data.dev.images + data.split(args.evaluate).images))
    quiet = args.quiet
    features = extract_visual_words(
        args.images, images, data.train.images, config=config, cache_dir=cache, progress=not quiet, workers=args.workers
    )
    grid = KCCAGrid(
        kappas=tuple(_floats(args.kappas, "--kappas")),
        dims=tuple(_ints(args.dims, "--dims")),
        image_rank=args.image_rank,
        text_rank=args.text_rank,
        image_decomposition=args.image_decomposition,
        top_models=args.top_models,
    )
    manifest = run_systems(
        data,
        features,
        args.out,
        systems=systems,
        evaluate=args.evaluate,
        grid=grid,
        cache_dir=cache,
        progress=not quiet,
        log=None if quiet else print,
    )
    out = Path(args.out)
    split = data.split(args.evaluate)
    for source in JUDGMENT_FILES:
        path = Path(args.data) / source.file
        if not path.is_file():
            continue
        judgments, used = source.read(path, split.images, split.caption_ids)
        if used:
            np.save(out / f"judgments-{source.kind}.npy", judgments)
            # expert: "file" and "expert_pairs" as before; crowd: "crowd_file" and "crowd_pairs"
            prefix = "" if source.kind == "expert" else f"{source.kind}_"
            manifest.setdefault("judgments", {}).update(
                {f"{prefix}file": f"judgments-{source.kind}.npy", f"{source.kind}_pairs": used}
            )
    if "judgments" in manifest:
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    if not quiet:
        print(f"wrote {len(systems)} systems to {out} (manifest.json lists the files); evaluate with:")
        print(f"  capeval rank --task annotation --captions-per-image 5 --scores {out}/*.annotation.npy")
        print(f"  capeval rank --task search --captions-per-image 5 --scores {out}/*.search.npy")
    return 0


def _ints(text: str, flag: str, count: int | None = None) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise CLIError(f"{flag} must be comma-separated integers, got {text!r}") from None
    if not values or any(v < 1 for v in values) or (count is not None and len(values) != count):
        raise CLIError(f"{flag} needs {count or 'some'} positive integers, got {text!r}")
    return values


def _floats(text: str, flag: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise CLIError(f"{flag} must be comma-separated numbers, got {text!r}") from None
    if not values or any(not v > 0 for v in values):
        raise CLIError(f"{flag} needs positive numbers, got {text!r}")
    return values


def register(subparsers: Any) -> None:
    """Add ``capeval rank-systems``."""
    parser = subparsers.add_parser(
        "rank-systems",
        help="train the NN and KCCA ranking systems of Hodosh et al. (2013) on Flickr8K; write score matrices",
        description=(
            "Train the nearest-neighbour and KCCA systems of Hodosh et al. (2013) on the Flickr8K training split, "
            "select KCCA models on the dev split and write score matrices of the evaluated split for capeval rank."
        ),
    )
    parser.add_argument(
        "--data", required=True, help="folder with Flickr8k.token.txt, Flickr8k.lemma.token.txt, splits"
    )
    parser.add_argument("--images", required=True, help="folder with the Flickr8K images (<id>.jpg)")
    parser.add_argument("--out", required=True, help="folder for the score matrices and manifest.json")
    parser.add_argument(
        "--systems", default="nn,bow1,bow5,tagrank,tri5,tri5sem", help="comma-separated (default: Table 3's six)"
    )
    parser.add_argument("--evaluate", choices=("test", "dev"), default="test", help="split to rank (default test)")
    parser.add_argument("--cache-dir", help="visual words and kernels cache (default: the capeval cache)")
    parser.add_argument("--words", default="128,256,256", help="codebook sizes: colour,texture,sift")
    parser.add_argument("--codebook-images", type=int, default=1000, help="training images sampled for k-means")
    parser.add_argument("--kappas", default="0.1,0.3,1,3,10", help="KCCA regularization grid")
    parser.add_argument("--dims", default="16,32,64,128,256,512", help="KCCA dimensions grid")
    parser.add_argument(
        "--image-decomposition",
        choices=("exact", "cholesky"),
        default="exact",
        help="exact: the whole training image kernel, decomposed exactly (default); "
        "cholesky: an incomplete Cholesky factor of --image-rank pivots (large training sets)",
    )
    parser.add_argument(
        "--image-rank",
        type=int,
        default=None,
        help="eigenpairs kept of each image kernel (default: all; with cholesky: pivots, default 800)",
    )
    parser.add_argument("--text-rank", type=int, default=1000, help="pivots of the text kernels' factors")
    parser.add_argument("--top-models", type=int, default=15, help="best dev models aggregated by Borda")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice")
    parser.add_argument("--workers", type=int, default=1, help="processes describing images (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.set_defaults(func=run)
