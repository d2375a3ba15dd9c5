"""``capeval human-agreement``: the COCO human-agreement table, leave-one-out over each image's captions.

Every image's first ``--n-captions`` captions take turns as the candidate, scored against the
others (COCO val2014 with the defaults: 5 folds, 4 references each); the table lists each
fold's corpus scores, their mean and standard deviation, and the time taken. Optionally
writes word-level human precision/recall (``--words``) and the p/k model plot (``--pk-plot``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from capeval import registry
from capeval.cli.main import CLIError
from capeval.meta_eval import human_agreement, load_coco_captions, word_human_agreement
from capeval.meta_eval.tables import FORMATS, Table

__all__ = ["register", "run"]

#: The metrics of the COCO paper's human-agreement table.
DEFAULT_METRICS = ",".join(registry.DEFAULT_METRICS)


def run(args: argparse.Namespace) -> int:
    """Body of ``capeval human-agreement``."""
    from capeval.engines.local import resolve_metrics
    from capeval.registry import get_metric

    start = time.perf_counter()
    captions: dict[Hashable, list[str]] = {k: v for k, v in load_coco_captions(args.annotations).items()}
    short = [i for i, caps in captions.items() if len(caps) < args.n_captions]
    if short and not args.skip_short:
        raise CLIError(
            f"{len(short)} image(s) have fewer than {args.n_captions} captions (first: {short[0]!r}); "
            "use --skip-short to leave them out"
        )
    if short:
        captions = {i: c for i, c in captions.items() if len(c) >= args.n_captions}
    if args.limit:
        captions = dict(list(captions.items())[: args.limit])
    folds = None
    if args.folds:
        try:
            folds = [int(f) - 1 for f in args.folds.split(",") if f.strip()]
        except ValueError:
            raise CLIError(f"--folds must be comma-separated positions 1..{args.n_captions}") from None
    keys = resolve_metrics([m for m in args.metrics.split(",") if m.strip()])
    metrics = [get_metric(k, tokenizer=args.tokenizer) for k in keys]
    if not args.quiet:
        print(
            f"capeval: human agreement on {len(captions):,} images, {args.n_captions} captions each, "
            f"metrics {', '.join(keys)}",
            file=sys.stderr,
        )
    table = human_agreement(
        captions,
        metrics,
        n_captions=args.n_captions,
        n_references=args.n_references,
        folds=folds,
        progress=not args.quiet,
    )
    out = Table(["held out", *table.columns], digits=args.digits)
    positions = folds if folds is not None else list(range(args.n_captions))
    for p, row in zip(positions, table.folds, strict=True):
        out.rows.append([f"caption {p + 1}", *(row[c] for c in table.columns)])
    out.rows.append(["mean", *(table.mean[c] for c in table.columns)])
    out.rows.append(["std", *(table.std[c] for c in table.columns)])
    text = out.render(args.format)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    print(text)
    elapsed = time.perf_counter() - start
    if args.format == "text":
        print(
            f"\n{table.n_images:,} images; candidate = caption i, references = the other "
            f"{table.n_references} of the first {table.n_captions}; {elapsed:.1f} s in total "
            f"({table.seconds:.1f} s scoring)."
        )
        for sig in table.signatures.values():
            print(f"  {sig}")
    if args.words or args.pk_plot:
        tokenizer = metrics[0].tokenizer
        flat = [c for caps in captions.values() for c in caps[: args.n_captions]]
        toks = tokenizer.tokenize(flat)
        n = args.n_captions
        tokenized = {image: toks[i * n : (i + 1) * n] for i, image in enumerate(captions)}
        words = word_human_agreement(tokenized, n_captions=n)
        frequent = [w for w in words.values() if w.relevant >= args.min_word_count]
        if args.words:
            wt = Table(["word", "precision", "recall", "model precision", "predicted", "relevant"])
            for w in frequent:
                wt.rows.append([w.word, w.precision, w.recall, w.model_precision, w.predicted, w.relevant])
            Path(args.words).write_text(wt.render("csv") + "\n", encoding="utf-8")
            print(f"capeval: word-level human precision/recall written to {args.words}", file=sys.stderr)
        if args.pk_plot:
            from capeval.meta_eval.plots import plot_pk_model

            plot_pk_model([w.precision for w in frequent], [w.recall for w in frequent], n - 1, args.pk_plot)
            print(f"capeval: p/k model plot written to {args.pk_plot}", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add ``capeval human-agreement``."""
    parser = subparsers.add_parser(
        "human-agreement",
        help="score each human caption against the other captions of its image (COCO Table 1)",
        description="Leave-one-out human agreement: each of the first N captions of every image is scored "
        "against the remaining ones; prints the per-fold corpus scores, their mean and the time taken.",
    )
    parser.add_argument("--annotations", required=True, help="COCO captions file (e.g. captions_val2014.json)")
    parser.add_argument("--metrics", default=DEFAULT_METRICS, help=f"comma-separated (default {DEFAULT_METRICS})")
    parser.add_argument("--n-captions", type=int, default=5, help="captions per image taking part (default 5)")
    parser.add_argument("--n-references", type=int, default=None, help="references per candidate (default N-1)")
    parser.add_argument("--folds", default="", help="held-out positions to evaluate, 1-based (default all)")
    parser.add_argument("--skip-short", action="store_true", help="leave out images with fewer than N captions")
    parser.add_argument("--tokenizer", default="ptb", help="ptb (default), ws or none")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--digits", type=int, default=4)
    parser.add_argument("--output", help="also write the table to this file")
    parser.add_argument("--words", help="write word-level human precision/recall (CSV) to this file")
    parser.add_argument("--pk-plot", help="plot human word precision/recall over the p/k model curve (.png/.svg)")
    parser.add_argument(
        "--min-word-count",
        type=int,
        default=100,
        help="words need this many relevant cases for --words/--pk-plot (default 100)",
    )
    parser.add_argument("--limit", type=int, default=0, help="use only the first N images (quick runs)")
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(func=run)
