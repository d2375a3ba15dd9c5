"""``capeval reproduce NAME --data DIR``: one published meta-evaluation table, ours against the paper's.

The protocols (recipe and published values) live in :mod:`capeval.meta_eval.protocols`;
this module only scores with the engine, renders the table and draws the reference-count
curves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from capeval.cli.cmd_correlate import _split_metric
from capeval.cli.main import CLIError
from capeval.meta_eval.protocols import CLASSIC_METRICS, PROTOCOLS, Reproduction, get_protocol, reproduce
from capeval.meta_eval.tables import Table

__all__ = ["EngineScorer", "register", "render", "run"]

FORMATS = ("text", "json", "latex")


class EngineScorer:
    """Scores with capeval's in-process engine (one tokenization per call, shared by all metrics)."""

    def __init__(self, names: Sequence[str], tokenizer: str = "ptb") -> None:
        self.wanted = [_split_metric(n, tokenizer) for n in names]
        self.keys = list(dict.fromkeys(k for k, _ in self.wanted))
        self.tokenizer = tokenizer
        self.signatures: dict[str, str] = {}
        self.metric_seconds = 0.0

    def _evaluate(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> Any:
        from capeval.engines.local import evaluate

        start = time.perf_counter()
        evaluation = evaluate(
            candidates=list(candidates), references=list(references), metrics=self.keys, tokenizer=self.tokenizer
        )
        self.metric_seconds += time.perf_counter() - start
        for key in self.keys:
            self.signatures.setdefault(key, str(evaluation.results[key].signature))
        return evaluation

    def items(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
        evaluation = self._evaluate(candidates, references)
        return {out: np.asarray(evaluation.results[key].item_table[out], dtype=np.float64) for key, out in self.wanted}

    def corpus(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> dict[str, float]:
        evaluation = self._evaluate(candidates, references)
        return {out: float(evaluation.results[key].scores[out]) for key, out in self.wanted}


#: Marker of a published value not checked against a copy of its table.
UNVERIFIED = "(unverified)"


def render(result: Reproduction, fmt: str, digits: int = 2) -> str:
    """The table ours / published / difference (with the spread over draws when there is one)."""
    if fmt == "json":
        return json.dumps(
            {
                "protocol": result.protocol,
                "rows": [r.as_dict() for r in result.rows],
                "notes": result.notes,
                "seconds": round(result.seconds, 2),
            },
            indent=2,
        )
    spread = any(r.spread is not None for r in result.rows)
    header = ["metric", "statistic", "ours", *(["draws min", "draws max"] if spread else []), "published", "diff"]
    table = Table(header, digits=digits, caption=f"{get_protocol(result.protocol).title} [protocol: {result.protocol}]")
    for r in result.rows:
        cells: list[Any] = [r.metric, r.statistic, r.ours]
        if spread:
            cells += list(r.spread) if r.spread else [None, None]
        published: Any = r.published
        if published is not None and not r.verified:
            published = f"{published:.{digits}f} {UNVERIFIED}"
        cells += [published, r.difference]
        table.rows.append(cells)
    text = table.render(fmt)
    if fmt == "text":
        sources = dict.fromkeys((r.source, r.verified) for r in result.rows if r.published is not None)
        lines = [text, ""]
        lines += [f"published: {s}" if ok else f"published {UNVERIFIED}: {s}" for s, ok in sources]
        if not all(ok for _, ok in sources):
            lines.append(
                f"{UNVERIFIED}: a value not checked against a copy of the cited table; "
                "its difference is not a difference from the paper"
            )
        text = "\n".join([*lines, *result.notes])
    return text


def run(args: argparse.Namespace) -> int:
    """Body of ``capeval reproduce``."""
    protocol = get_protocol(args.name)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    if not metrics:
        raise CLIError("--metrics is empty")
    scorer = EngineScorer(metrics, args.tokenizer)
    if args.curve:
        return _run_curve(args, scorer)
    result = reproduce(
        protocol.name, args.data, scorer, seed=args.seed, draws=args.draws, n_references=args.n_references
    )
    text = render(result, args.format, args.digits)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    print(text)
    print(
        f"capeval: reproduce {protocol.name} took {result.seconds:.1f} s (metrics {scorer.metric_seconds:.1f} s)",
        file=sys.stderr,
    )
    for sig in scorer.signatures.values():
        print(f"capeval:   {sig}", file=sys.stderr)
    return 0


def _run_curve(args: argparse.Namespace, scorer: EngineScorer) -> int:
    from capeval.meta_eval.protocols.curves import curve_table, reference_curve

    try:
        counts = [int(c) for c in args.curve.split(",") if c.strip()]
    except ValueError:
        raise CLIError(f"--curve takes comma-separated reference counts, got {args.curve!r}") from None
    start = time.perf_counter()
    curve = reference_curve(args.name, args.data, scorer, counts, draws=args.draws or 5, seed=args.seed or 0)
    if args.format == "json":
        text = json.dumps({"protocol": args.name, "curve": curve.as_dicts(), "notes": curve.notes}, indent=2)
    else:
        text = curve_table(curve, digits=args.digits).render(args.format)
        if args.format == "text":
            text += "\n\n" + "\n".join(curve.notes)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.plot:
        from capeval.meta_eval.protocols.curves import plot_curve

        plot_curve(curve, args.plot)
        print(f"capeval: reference-count figure written to {args.plot}", file=sys.stderr)
    print(f"capeval: reference curve took {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add ``capeval reproduce``."""
    lines = "\n".join(f"  {p.name:20s} {p.title}\n  {'':20s} files: {', '.join(p.files)}" for p in PROTOCOLS.values())
    parser = subparsers.add_parser(
        "reproduce",
        help="reproduce a published meta-evaluation table from the distributed files",
        description="Run a published meta-evaluation protocol on the files as their authors distribute them "
        "and print ours against the published values.\n\nprotocols:\n" + lines,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", choices=list(PROTOCOLS), metavar="NAME", help="protocol (see above)")
    parser.add_argument("--data", required=True, help="directory holding the files under their distributed names")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument(
        "--metrics",
        default=",".join(CLASSIC_METRICS),
        help=f"metric outputs (default {','.join(CLASSIC_METRICS)}; add spice if installed)",
    )
    parser.add_argument("--tokenizer", default="ptb", help="ptb (default, as the papers), ws or none")
    parser.add_argument("--digits", type=int, default=2, help="decimals in text/LaTeX tables")
    parser.add_argument("--output", help="also write the table to this file")
    parser.add_argument("--seed", type=int, default=None, help="first seed of the reference draws (recipe: 0)")
    parser.add_argument("--draws", type=int, default=None, help="reference draws (PASCAL-50S recipe: 5)")
    parser.add_argument(
        "--n-references", type=int, default=None, help="references drawn per pair (PASCAL-50S recipe: 5)"
    )
    parser.add_argument(
        "--curve",
        default="",
        help="reference-count curve instead of the table: comma-separated counts, e.g. 1,2,5,10,20,48",
    )
    parser.add_argument("--plot", help="with --curve: write the figure to this file (.png/.svg/.pdf)")
    parser.set_defaults(func=run)
