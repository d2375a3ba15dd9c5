"""``capeval demo``: score the built-in COCO demo (1,000 val2014 images, the official demo's captions)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from capeval.cli.cmd_score import add_scoring_options, run_scoring
from capeval.data import demo_paths

__all__ = ["register"]

#: The official evaluation's printout for the same data (pycocoevalcap 1.2 demo notebook).
OFFICIAL_DEMO = (
    "Bleu_1 0.579  Bleu_2 0.404  Bleu_3 0.279  Bleu_4 0.191  METEOR 0.195  ROUGE_L 0.396  CIDEr 0.600  SPICE 0.133"
)


def _run(args: argparse.Namespace) -> int:
    results, references = demo_paths()
    code = run_scoring(args, results, references)
    if not args.quiet and args.format == "table":
        print(f"\nOfficial COCO evaluation on the same data: {OFFICIAL_DEMO}", file=sys.stderr)
    return code


def register(subparsers: Any) -> None:
    """Add ``capeval demo``."""
    parser = subparsers.add_parser(
        "demo",
        help="score the built-in COCO demo data",
        description="Score the 1,000-image COCO val2014 demo shipped with capeval (COCO captions, CC BY 4.0).",
    )
    add_scoring_options(parser)
    parser.set_defaults(func=_run)
