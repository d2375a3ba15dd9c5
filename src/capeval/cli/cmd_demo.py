"""``capeval demo``: score the built-in COCO demo (1,000 val2014 images, the official demo's captions)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from capeval.cli.cmd_score import add_scoring_options, run_scoring
from capeval.data import demo_paths
from capeval.engines.local import resolve_metrics
from capeval.registry import OFFICIAL_NAMES

__all__ = ["OFFICIAL_DEMO", "official_line", "register"]

#: The official evaluation's printout for the same data (pycocoevalcap 1.2 demo notebook; SPICE
#: from the official SPICE 1.0 jar with Stanford CoreNLP), by official name.
OFFICIAL_DEMO: dict[str, float] = {
    "Bleu_1": 0.579,
    "Bleu_2": 0.404,
    "Bleu_3": 0.279,
    "Bleu_4": 0.191,
    "METEOR": 0.195,
    "ROUGE_L": 0.396,
    "CIDEr": 0.600,
    "SPICE": 0.133,
}


def official_line(metrics: list[str]) -> str:
    """The official figures of the metrics among ``metrics`` (registry keys), or "" if none has one.

    Example:
        >>> official_line(["cider-d", "rouge-n"])
        'CIDEr 0.600'
    """
    scored = set(metrics)
    shown = [f"{name} {value:.3f}" for name, value in OFFICIAL_DEMO.items() if OFFICIAL_NAMES[name.lower()] in scored]
    return "  ".join(shown)


#: The metrics that parse with SPICE's parser (its grammar is the user's own copy of CoreNLP's models).
_PARSING = ("spice", "spider")


def _without_unavailable_spice(args: argparse.Namespace) -> None:
    """Leave SPICE and SPIDEr out, with the reason on stderr, when SPICE's grammar cannot be had
    (a fresh machine offline): the demo still scores the other metrics."""
    metrics = resolve_metrics(args.metrics.split(",") if args.metrics else None)
    parsing = [m for m in metrics if m in _PARSING]
    if not parsing or len(parsing) == len(metrics):
        return  # nothing to leave out, or nothing would be left: scoring reports the problem itself
    from capeval.metrics.spice.corenlp.sources import GrammarError, load_grammar

    try:
        load_grammar()
    except GrammarError as exc:
        print(f"capeval: {', '.join(parsing)} not scored: {exc}", file=sys.stderr)
        args.metrics = ",".join(m for m in metrics if m not in _PARSING)


def _run(args: argparse.Namespace) -> int:
    results, references = demo_paths()
    _without_unavailable_spice(args)
    code = run_scoring(args, results, references)
    line = official_line(resolve_metrics(args.metrics.split(",") if args.metrics else None))
    if line and not args.quiet and args.format == "table":
        print(f"\nOfficial COCO evaluation on the same data: {line}", file=sys.stderr)
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
