"""``capeval score``: score a results file against references."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from typing import Any

from capeval.cli._output import format_csv, format_json, format_table
from capeval.cli.main import add_references_argument
from capeval.engines.local import DEFAULT_METRICS, evaluate, resolve_metrics
from capeval.io import load_corpus, write_columns_json
from capeval.metrics.base import EmptyCandidateWarning
from capeval.registry import list_metrics

__all__ = ["add_scoring_options", "register", "run_scoring"]


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``score`` and ``demo``."""
    parser.add_argument(
        "--metrics",
        default=None,
        help=f"comma-separated metrics (default: {','.join(DEFAULT_METRICS)} where installed; 'all' adds spice). "
        f"Installed: {', '.join(list_metrics())}",
    )
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format")
    parser.add_argument("--per-image", metavar="FILE", help="write {image_id: {metric: score}} JSON to FILE")
    parser.add_argument(
        "--tokenizer", default="ptb", help="ptb (the COCO tokenizer, default), ws (lower-case + split), none"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="empty candidate captions are an error (default: scored as the official code scores them, with a warning)",
    )
    parser.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="score on a Dask cluster: a scheduler address, or 'local' for a local cluster",
    )
    parser.add_argument(
        "--workers", default="auto", help="worker processes for large corpora: a number, or 'auto' (one per CPU core)"
    )


def run_scoring(args: argparse.Namespace, results: Any, references: Any, *, require_all: bool = False) -> int:
    """Load, score and print; the body of ``score`` and ``demo``."""
    # The metric names are checked before the files are read.
    metrics = resolve_metrics(args.metrics.split(",") if args.metrics else None)
    if not metrics:
        raise ValueError("no metrics selected")
    corpus = load_corpus(results, references, require_all=require_all)
    _check_empty_candidates(corpus, results, strict=getattr(args, "strict", False))
    progress = not args.quiet and sys.stderr.isatty()
    if not args.quiet:
        logging.getLogger("capeval").setLevel(logging.INFO)
    if not args.quiet:
        print(f"capeval: scoring {len(corpus):,} images with {', '.join(metrics)}", file=sys.stderr)
    with warnings.catch_warnings():  # reported once above
        warnings.simplefilter("ignore", EmptyCandidateWarning)
        if args.dask:
            evaluation = _evaluate_on_dask(args, corpus, metrics)
        else:
            evaluation = evaluate(
                corpus, metrics=metrics, tokenizer=args.tokenizer, progress=progress, workers=_workers(args.workers)
            )
    if args.format == "json":
        print(format_json(evaluation))
    elif args.format == "csv":
        print(format_csv(evaluation), end="")
    else:
        print(format_table(evaluation))
    if args.per_image:
        write_columns_json(args.per_image, [str(k) for k in evaluation.ids], evaluation.per_image_columns())
        if not args.quiet:
            print(f"capeval: per-image scores written to {args.per_image}", file=sys.stderr)
    return 0


def _check_empty_candidates(corpus: Any, results: Any, *, strict: bool) -> None:
    empty = [image_id for image_id, caption in zip(corpus.ids, corpus.candidates, strict=True) if not caption.strip()]
    if not empty:
        return
    shown = ", ".join(repr(i) for i in empty[:10]) + (", ..." if len(empty) > 10 else "")
    where = f"{results}: " if isinstance(results, (str, os.PathLike)) else ""
    if strict:
        raise ValueError(
            f"{where}{len(empty)} empty candidate caption(s) (image {shown}); --strict makes them an error"
        )
    print(
        f"capeval: warning: {where}{len(empty)} empty candidate caption(s) (image {shown}): scored as the official "
        "evaluation scores them (0); --strict makes this an error",
        file=sys.stderr,
    )


def _evaluate_on_dask(args: argparse.Namespace, corpus: Any, metrics: list[str]) -> Any:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        from capeval._install import needs_extra

        raise ValueError(needs_extra("--dask", "dask")) from None
    from capeval.engines.dask import evaluate_dask

    if args.dask == "local":
        n = _workers(args.workers)
        with LocalCluster(n_workers=n, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as c:
            return evaluate_dask(corpus, metrics=metrics, tokenizer=args.tokenizer, client=c)
    with Client(args.dask) as c:
        return evaluate_dask(corpus, metrics=metrics, tokenizer=args.tokenizer, client=c)


def _workers(value: str) -> int:
    if value == "auto":
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    try:
        count = int(value)
    except ValueError:
        raise ValueError(f"--workers must be a positive number or 'auto', got {value!r}") from None
    if count < 1:
        raise ValueError(f"--workers must be a positive number or 'auto', got {value!r}")
    return count


def _run(args: argparse.Namespace) -> int:
    return run_scoring(args, args.results, args.references, require_all=args.require_all)


def register(subparsers: Any) -> None:
    """Add ``capeval score``."""
    parser = subparsers.add_parser(
        "score",
        help="score candidate captions against references (COCO metrics)",
        description="Score a results file against reference captions with the official COCO numbers.",
    )
    parser.add_argument(
        "--results",
        required=True,
        help='candidates: COCO results [{"image_id","caption"}], {id: caption}, or JSON Lines',
    )
    add_references_argument(parser)
    parser.add_argument(
        "--require-all",
        action="store_true",
        help="fail if some reference images have no candidate (default: score the ones that do)",
    )
    add_scoring_options(parser)
    parser.set_defaults(func=_run)
