"""``capeval compare``: two systems on the same references, with confidence intervals and p-values.

Both systems are scored with every requested metric; then, for every named score (BLEU-1 ..
BLEU-4, METEOR, ROUGE-L, CIDEr-D, ...), a paired bootstrap gives 95% intervals for each system
and for the difference, and approximate randomization gives a second p-value. Resampling works
on the per-item statistics and recomputes the corpus formula, so corpus BLEU and CIDEr-D (with
document frequencies fixed from the full reference set) are handled correctly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from capeval import registry
from capeval.cli.main import CLIError, add_references_argument
from capeval.meta_eval.tables import FORMATS, Table
from capeval.stats import DEFAULT_SEED, approximate_randomization, paired_bootstrap

__all__ = ["register", "run"]

#: Metrics compared by default.
DEFAULT_METRICS = ",".join(registry.DEFAULT_METRICS)


def _output_scorer(metric: Any, output: str) -> Any:
    def score(totals: Any) -> float:
        return float(metric.compute(totals)[output])

    score.__name__ = output
    return score


def run(args: argparse.Namespace) -> int:
    """Body of ``capeval compare``."""
    from capeval.engines.local import evaluate, resolve_metrics
    from capeval.io import align, read_candidates, read_references

    references = read_references(args.references)
    baseline = read_candidates(args.baseline)
    system = read_candidates(args.system)
    base_ids = {str(k) for k in baseline}
    sys_ids = {str(k) for k in system}
    if base_ids != sys_ids:
        only_base = sorted(base_ids - sys_ids)[:3]
        only_sys = sorted(sys_ids - base_ids)[:3]
        raise CLIError(
            f"the two results files must cover the same images: {len(base_ids - sys_ids)} only in "
            f"{args.baseline} (e.g. {only_base}), {len(sys_ids - base_ids)} only in {args.system} (e.g. {only_sys})"
        )
    base_corpus = align(baseline, references, candidates_name=args.baseline, references_name=args.references)
    sys_corpus = align(system, references, candidates_name=args.system, references_name=args.references)
    if [str(i) for i in base_corpus.ids] != [str(i) for i in sys_corpus.ids]:
        raise CLIError("internal error: the two corpora are not aligned")  # pragma: no cover
    keys = resolve_metrics([m for m in args.metrics.split(",") if m.strip()])
    if not args.quiet:
        print(f"capeval: comparing on {len(base_corpus):,} images with {', '.join(keys)}", file=sys.stderr)
    base_eval = evaluate(base_corpus, metrics=keys, tokenizer=args.tokenizer)
    sys_eval = evaluate(sys_corpus, metrics=keys, tokenizer=args.tokenizer)
    methods = {m.strip() for m in args.methods.split(",") if m.strip()}
    unknown = methods - {"bootstrap", "ar"}
    if unknown or not methods:
        raise CLIError(f"--methods takes bootstrap and/or ar, got {args.methods!r}")
    level = int(round(args.confidence * 100))
    header = ["metric", "baseline", "system", "delta"]
    if "bootstrap" in methods:
        header += [f"baseline {level}% CI", f"system {level}% CI", f"delta {level}% CI", "p (bootstrap)"]
    if "ar" in methods:
        header += ["p (AR)"]
    table = Table(header, digits=args.digits)
    for key in keys:
        metric = base_eval.metrics[key]
        base_result, sys_result = base_eval.results[key], sys_eval.results[key]
        outputs = sorted(base_result.scores, key=_natural)
        for output in outputs:
            scorer = _output_scorer(metric, output)
            row: list[Any] = [output, base_result.scores[output], sys_result.scores[output]]
            row.append(sys_result.scores[output] - base_result.scores[output])
            if "bootstrap" in methods:
                boot = paired_bootstrap(
                    base_result,
                    sys_result,
                    metric=scorer,
                    n_resamples=args.n_resamples,
                    confidence=args.confidence,
                    seed=args.seed,
                )
                fmt = f"{{:.{args.digits}f}}"
                row += [
                    f"[{fmt.format(boot.baseline.low)}, {fmt.format(boot.baseline.high)}]",
                    f"[{fmt.format(boot.system.low)}, {fmt.format(boot.system.high)}]",
                    f"[{fmt.format(boot.delta_low)}, {fmt.format(boot.delta_high)}]",
                    boot.p_value,
                ]
            if "ar" in methods:
                ar = approximate_randomization(
                    base_result, sys_result, metric=scorer, n_resamples=args.n_ar_resamples, seed=args.seed
                )
                row.append(ar.p_value)
            table.rows.append(row)
    text = table.render(args.format)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.format == "text":
        print(
            f"\n{len(base_corpus):,} images; paired bootstrap: {args.n_resamples} resamples, "
            f"approximate randomization: {args.n_ar_resamples} trials; seed {args.seed}."
        )
        for sig in base_eval.signatures().values():
            print(f"  {sig}")
        print(f"  resampling: bs:{args.n_resamples}|ar:{args.n_ar_resamples}|conf:{args.confidence}|seed:{args.seed}")
    return 0


def _natural(name: str) -> tuple[str, int]:
    head, _, tail = name.rpartition("-")
    return (head, int(tail)) if tail.isdigit() else (name, -1)


def register(subparsers: Any) -> None:
    """Add ``capeval compare``."""
    parser = subparsers.add_parser(
        "compare",
        help="compare two systems: confidence intervals and p-values for every metric",
        description="Paired bootstrap intervals and approximate-randomization p-values between two results files "
        "scored on the same references.",
    )
    add_references_argument(parser)
    parser.add_argument("--baseline", required=True, help="results file of the baseline system")
    parser.add_argument("--system", required=True, help="results file of the system compared with it")
    parser.add_argument("--metrics", default=DEFAULT_METRICS, help=f"comma-separated (default {DEFAULT_METRICS})")
    parser.add_argument("--methods", default="bootstrap,ar", help="bootstrap and/or ar (default both)")
    parser.add_argument("--n-resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--n-ar-resamples", type=int, default=10000, help="randomization trials (default 10000)")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    parser.add_argument("--tokenizer", default="ptb", help="ptb (default), ws or none")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--digits", type=int, default=4)
    parser.add_argument("--output", help="also write the table to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(func=run)
