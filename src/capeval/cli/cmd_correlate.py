"""``capeval correlate``: correlation of metrics with human judgments (like the SPICE paper's Table 3).

Scores every candidate of a human-judgment dataset with capeval's metrics (and/or uses
score columns the file already holds, e.g. the official SPICE output), then reports
Pearson, Spearman and Kendall tau-b/tau-c at item level (one row per individual human
rating, the convention of the SPICE and NNEval papers) and/or system level (corpus score
per system against the mean human score, the THumB convention).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from capeval.cli.main import CLIError
from capeval.meta_eval import (
    METHODS,
    HumanJudgments,
    correlate,
    correlation_interval,
    expand_ratings,
    kappa_grid,
    system_means,
)
from capeval.meta_eval import datasets as loaders
from capeval.meta_eval.plots import plot_scatter
from capeval.meta_eval.protocols import data as protocol_data
from capeval.meta_eval.tables import FORMATS, Table

__all__ = ["DATASETS", "load_judgments", "metric_scores", "register", "run"]

#: Dataset formats accepted by ``--dataset``.
DATASETS = (
    "flickr8k-expert-tsv",
    "flickr8k-expert",
    "flickr8k-cf",
    "clipscore-json",
    "thumb",
    "composite",
    "pascal50s",
)
#: Metrics reported when ``--metrics`` is not given (COCO metrics available everywhere).
DEFAULT_METRICS = "bleu-1,bleu-4,rouge-l,cider-d"
#: PASCAL-50S defaults of the SPICE paper's Table 4 (``capeval reproduce pascal50s-spice``, first draw).
PASCAL50S_REFERENCES = 5
PASCAL50S_METRIC_TIES = "right"


def protocol_description(args: argparse.Namespace) -> str:
    """The protocol a ``correlate`` run used, in one line (printed with every output)."""
    kind = args.dataset
    published = getattr(args, "protocol", "published") == "published"
    if kind == "flickr8k-expert":
        if published:
            return (
                "flickr8k-expert, published (CLIPScore/PAC-S Table 1): candidates that are captions of their own "
                "image dropped; references = the image's 5 captions"
            )
        return "flickr8k-expert, loader: every judgment kept; references = the image's captions except the candidate"
    if kind == "flickr8k-cf":
        if published:
            return (
                "flickr8k-cf, published (CLIPScore Table 2, PAC-S Table 1): references = the image's captions minus "
                "every caption judged for that image"
            )
        return "flickr8k-cf, loader: references = the image's captions except the candidate"
    if kind == "pascal50s":
        votes = "48 consensus triplets (consensus_pascal.mat)" if args.consensus else "pair_pascal.mat 'result' votes"
        n = PASCAL50S_REFERENCES if args.n_references is None else args.n_references
        refs = "all references" if n == 0 else f"{n} random references per pair (seed {args.seed})"
        ties = args.metric_ties or PASCAL50S_METRIC_TIES
        recipe = " (the SPICE paper's Table 4 recipe)" if n == 5 and ties == "right" else ""
        return f"pascal50s{recipe}: {refs}; human label: majority of {votes}; metric ties: {ties}"
    if kind == "clipscore-json":
        return "clipscore-json: the file's ratings (one row each) and ground-truth references as given"
    return f"{kind}: the file's items and references as given"


def load_judgments(args: argparse.Namespace) -> HumanJudgments:
    """Load the dataset named by ``--dataset`` from ``--judgments`` (+ ``--tokens``/``--references``)."""
    kind = args.dataset
    if kind == "flickr8k-expert-tsv":
        return loaders.load_flickr8k_expert_tsv(args.judgments)
    if kind in ("flickr8k-expert", "flickr8k-cf"):
        if not args.tokens:
            raise CLIError(f"--dataset {kind} needs --tokens Flickr8k.token.txt")
        if getattr(args, "protocol", "published") == "published":
            if kind == "flickr8k-expert":
                return protocol_data.flickr8k_expert_files(args.judgments, args.tokens)
            return protocol_data.flickr8k_cf_files(args.judgments, args.tokens)
        return loaders.load_flickr8k(
            args.judgments, args.tokens, kind="expert" if kind.endswith("expert") else "crowdflower"
        )
    if kind == "clipscore-json":
        return protocol_data.load_clipscore_json(args.judgments)
    if kind == "thumb":
        if not args.references:
            raise CLIError("--dataset thumb needs --references (the THumB references file)")
        return loaders.load_thumb(args.judgments, args.references)
    if kind == "composite":
        if not args.references:
            raise CLIError("--dataset composite needs --references (JSON {image id: [captions]})")
        from capeval.io import read_references

        # COMPOSITE image ids are file names: matched as strings.
        refs = {str(image): captions for image, captions in read_references(args.references).items()}
        return loaders.load_composite(args.judgments, refs)
    raise CLIError(f"unknown dataset {kind!r}")


def _split_metric(name: str, tokenizer: str) -> tuple[str, str]:
    """``"bleu-1"`` -> (registry key ``"bleu"``, output ``"bleu-1"``); ``"cider-d"`` -> (``"cider-d"``, primary)."""
    from capeval.registry import get_metric, metric_class

    for key in (name, name.rsplit("-", 1)[0]):
        try:
            metric_class(key)
        except ValueError:
            continue
        metric = get_metric(key, tokenizer=tokenizer)
        outputs = metric.outputs
        if key == name:
            return metric.name, name if name in outputs else outputs[0]
        if name in outputs:
            return metric.name, name
        raise CLIError(f"metric {key!r} has no output {name!r} (outputs: {', '.join(outputs)})")
    raise CLIError(f"unknown metric {name!r}")


def metric_scores(
    judgments: HumanJudgments, names: Sequence[str], tokenizer: str, *, systems: bool = False
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, float]], dict[str, str]]:
    """Item scores per metric output, corpus scores per system (when asked) and signatures."""
    from capeval.engines.local import evaluate

    wanted = [_split_metric(n, tokenizer) for n in names]
    keys = list(dict.fromkeys(k for k, _ in wanted))
    evaluation = evaluate(
        candidates=judgments.candidates, references=judgments.references, metrics=keys, tokenizer=tokenizer
    )
    items = {out: np.asarray(evaluation.results[key].item_table[out], dtype=np.float64) for key, out in wanted}
    signatures = {key: str(evaluation.results[key].signature) for key in keys}
    per_system: dict[str, dict[str, float]] = {}
    if systems and judgments.systems is not None:
        labels = np.asarray(judgments.systems)
        for system in dict.fromkeys(judgments.systems):
            mask = np.flatnonzero(labels == system)
            sub = evaluate(
                candidates=[judgments.candidates[i] for i in mask],
                references=[judgments.references[i] for i in mask],
                metrics=keys,
                tokenizer=tokenizer,
            )
            per_system[system] = {out: float(sub.results[key].scores[out]) for key, out in wanted}
    return items, per_system, signatures


def _without_systems(judgments: HumanJudgments, excluded: Sequence[str]) -> HumanJudgments:
    if judgments.systems is None:
        raise CLIError(f"dataset {judgments.name} has no systems to exclude")
    unknown = [s for s in excluded if s not in judgments.systems]
    if unknown:
        raise CLIError(
            f"no system {unknown[0]!r} in {judgments.name} (systems: {', '.join(dict.fromkeys(judgments.systems))})"
        )
    return judgments.select([i for i, s in enumerate(judgments.systems) if s not in excluded])


def _plot_path(path: str, suffix: str) -> str:
    p = Path(path)
    return os.fspath(p.with_name(f"{p.stem}-{suffix}{p.suffix}"))


def run_pairwise(args: argparse.Namespace) -> int:
    """PASCAL-50S: pairwise accuracy per category (HC, HI, HM, MM) instead of correlations."""
    from capeval.engines.local import evaluate
    from capeval.meta_eval import pairwise_accuracy

    n_refs = PASCAL50S_REFERENCES if args.n_references is None else args.n_references
    if args.consensus:
        loaded = loaders.load_pascal50s(args.judgments, args.consensus)
        pools = loaded.references
        cand_a, cand_b, cats, preference = (
            loaded.candidates_a,
            loaded.candidates_b,
            loaded.categories,
            loaded.preference,
        )
    elif args.references:
        votes = protocol_data.load_pascal50s_votes(args.judgments, args.references)
        pools = votes.pools
        cand_a, cand_b, cats, preference = votes.candidates_a, votes.candidates_b, votes.categories, votes.preference
    else:
        raise CLIError(
            "--dataset pascal50s needs --consensus consensus_pascal.mat, or --references pascal50S.mat to use the "
            "votes in pair_pascal.mat 'result'"
        )
    references = protocol_data.draw_references(pools, n_refs, np.random.default_rng(args.seed))
    metric_ties = args.metric_ties or PASCAL50S_METRIC_TIES
    metric_names = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    if not metric_names:
        raise CLIError("--dataset pascal50s needs --metrics")
    wanted = [_split_metric(n, args.tokenizer) for n in metric_names]
    keys = list(dict.fromkeys(k for k, _ in wanted))
    # A and B are scored in one corpus so that CIDEr-D's document frequencies are shared.
    n = len(cand_a)
    evaluation = evaluate(
        candidates=[*cand_a, *cand_b],
        references=[*references, *references],
        metrics=keys,
        tokenizer=args.tokenizer,
    )
    categories = list(dict.fromkeys(cats))
    table = Table(["metric", *categories, "all", "metric ties"], digits=args.digits)
    for key, out in wanted:
        scores = evaluation.results[key].item_table[out]
        r = pairwise_accuracy(
            scores[:n],
            scores[n:],
            preference,
            categories=cats,
            metric_ties=metric_ties,
            human_ties=args.human_ties,
            seed=args.seed,
        )
        table.rows.append([out, *(100 * r.by_category[c][0] for c in categories), 100 * r.accuracy, r.metric_ties])
    protocol = protocol_description(args)
    if args.format == "latex":
        table.caption = f"protocol: {protocol}"
    text = table.render(args.format)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.format == "text":
        counts = sorted({len(r) for r in references})
        refs = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        print(
            f"\nPASCAL-50S: {n:,} pairs, {refs} references each; accuracy in %; metric ties: {metric_ties}, "
            f"human ties: {args.human_ties}.\nprotocol: {protocol}"
        )
    else:
        print(f"capeval: protocol: {protocol}", file=sys.stderr)
    if args.metric_ties is None:
        print(
            "capeval: metric ties count as correct (the SPICE paper's rule); the column 'metric ties' shows how "
            "many pairs that decides; use --metric-ties half|wrong|drop to change it",
            file=sys.stderr,
        )
    return 0


def run(args: argparse.Namespace) -> int:
    """Body of ``capeval correlate``."""
    if args.dataset == "pascal50s":
        return run_pairwise(args)
    start = time.perf_counter()
    judgments = load_judgments(args)
    if args.exclude_systems:
        judgments = _without_systems(judgments, [s.strip() for s in args.exclude_systems.split(",") if s.strip()])
    if args.limit:
        judgments = judgments.head(args.limit)
    if args.n_references:
        judgments = dataclasses.replace(
            judgments,
            references=protocol_data.draw_references(
                judgments.references, args.n_references, np.random.default_rng(args.seed)
            ),
        )
    methods = [m.strip() for m in args.coefficients.split(",") if m.strip()]
    for m in methods:
        if m not in METHODS:
            raise CLIError(f"unknown coefficient {m!r}; choose from {', '.join(METHODS)}")
    levels = ["item", "system"] if args.level == "both" else [args.level]
    if "system" in levels and judgments.systems is None:
        raise CLIError(f"dataset {judgments.name} has no systems; use --level item")
    metric_names = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    columns = [c.strip() for c in (args.columns or "").split(",") if c.strip()]
    for c in columns:
        if c not in judgments.columns:
            raise CLIError(f"{judgments.name} has no column {c!r} (columns: {', '.join(judgments.columns) or 'none'})")
    if not metric_names and not columns:
        raise CLIError("nothing to correlate: give --metrics and/or --columns")
    items, per_system, signatures = (
        metric_scores(judgments, metric_names, args.tokenizer, systems="system" in levels)
        if metric_names
        else ({}, {}, {})
    )
    for c in columns:
        items[c] = np.asarray(judgments.columns[c], dtype=np.float64)
        if judgments.systems is not None:
            means = system_means(items[c], judgments.systems)
            for system, value in means.items():
                per_system.setdefault(str(system), {})[c] = value
    ratings = judgments.ratings if args.ratings == "individual" else judgments.mean_ratings()
    header = ["metric"]
    for level in levels:
        for m in methods:
            header += [f"{level} {m}", "p"]
            if args.bootstrap and level == "item":
                header += ["ci low", "ci high"]
    try:
        kappa_levels = [float(t) for t in args.kappa.split(",") if t.strip()]
    except ValueError:
        raise CLIError(f"--kappa takes comma-separated human thresholds, got {args.kappa!r}") from None
    for t in kappa_levels:
        header += [f"kappa (human>={t:g})", "at metric>="]
    table = Table(header, digits=args.digits)
    protocol = protocol_description(args)
    if args.n_references:
        protocol += f"; {args.n_references} random references per item (seed {args.seed})"
    if args.format == "latex":
        table.caption = f"protocol: {protocol}"
    n_rows: dict[str, int] = {}
    for name, scores in items.items():
        row: list[Any] = [name]
        kappa_row: list[Any] = []
        if kappa_levels:
            x, y = expand_ratings(scores, ratings) if np.ndim(ratings) == 2 else (scores, ratings)
            grid = kappa_grid(x, y, human_thresholds=kappa_levels)
            for t in kappa_levels:
                threshold, value = grid.best(t)
                kappa_row += [value, threshold]
        for level in levels:
            for m in methods:
                if level == "item":
                    r = correlate(scores, ratings, method=m, level="item")
                else:
                    corpus = {s: v[name] for s, v in per_system.items()}
                    r = correlate(corpus, judgments.mean_ratings(), method=m, level="system", systems=judgments.systems)
                n_rows[level] = r.n
                row += [r.coefficient, r.p_value]
                if args.bootstrap and level == "item":
                    ci = correlation_interval(scores, ratings, method=m, n_resamples=args.bootstrap, seed=args.seed)
                    row += [ci.low, ci.high]
        table.rows.append(row + kappa_row)
    text = table.render(args.format)
    counts = ", ".join(f"{level}: n={n}" for level, n in n_rows.items())
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.format == "text":
        rows_note = "one row per individual rating" if args.ratings == "individual" else "mean rating per item"
        print(f"\n{judgments.name}: {len(judgments):,} items ({counts}; item level: {rows_note}).")
        print(f"protocol: {protocol}")
        if args.bootstrap:
            print(f"ci: 95% percentile bootstrap over items, {args.bootstrap} resamples, seed {args.seed}")
        for sig in signatures.values():
            print(f"  {sig}")
    if args.format != "text":
        print(f"capeval: protocol: {protocol}", file=sys.stderr)
    if args.cumulative:
        if judgments.systems is None:
            raise CLIError(f"--cumulative needs a dataset with systems; {judgments.name} has none")
        from capeval.meta_eval import cumulative_by_system
        from capeval.meta_eval.plots import plot_cumulative

        labels = [s for s, row in zip(judgments.systems, judgments.ratings, strict=True) for v in row if np.isfinite(v)]
        values = judgments.ratings[np.isfinite(judgments.ratings)]
        plot_cumulative(cumulative_by_system(values, labels), args.cumulative, xlabel="human score")
        print(f"capeval: cumulative distributions written to {args.cumulative}", file=sys.stderr)
    if args.plot:
        human_item = judgments.mean_ratings()
        if "item" in levels:
            path = args.plot if levels == ["item"] else _plot_path(args.plot, "items")
            plot_scatter({n: (s, human_item) for n, s in items.items()}, path, ylabel="mean human score")
            print(f"capeval: scatter plot written to {path}", file=sys.stderr)
        if "system" in levels:
            human = system_means(human_item, judgments.systems or ())
            names = [str(s) for s in human]
            panels = {n: ([per_system[s][n] for s in names], [human[s] for s in names]) for n in items}
            titles = {}
            for n in items:
                r = correlate(
                    {s: per_system[s][n] for s in names},
                    human_item,
                    method="pearson",
                    level="system",
                    systems=judgments.systems,
                )
                titles[n] = f"{n}: system Pearson r = {r.coefficient:.3f}"
            plot_scatter(
                panels,
                args.plot,
                xlabel="corpus score",
                ylabel="mean human score",
                labels={n: names for n in items},
                titles=titles,
            )
            print(f"capeval: scatter plot written to {args.plot}", file=sys.stderr)
    print(f"capeval: correlate took {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add ``capeval correlate``."""
    parser = subparsers.add_parser(
        "correlate",
        help="correlate metric scores with human judgments (Flickr8K, THumB, COMPOSITE)",
        description="Correlation of capeval metrics (and score columns of the file) with human judgments, "
        "at item level (one row per individual rating) and/or system level (corpus score per system).",
    )
    parser.add_argument("--dataset", choices=DATASETS, required=True, help="format of the judgments file")
    parser.add_argument("--judgments", required=True, help="the human-judgment file")
    parser.add_argument("--tokens", help="Flickr8k.token.txt (flickr8k-expert, flickr8k-cf)")
    parser.add_argument(
        "--references",
        help="references file (thumb: its jsonl; composite: JSON {image: [captions]}; pascal50s: pascal50S.mat)",
    )
    parser.add_argument(
        "--metrics",
        default=DEFAULT_METRICS,
        help=f"comma-separated metric outputs, e.g. bleu-1,bleu-4,meteor,spice (default {DEFAULT_METRICS}); "
        "'' for none",
    )
    parser.add_argument("--columns", default="", help="score columns of the file to correlate too (e.g. spice_f)")
    parser.add_argument(
        "--coefficients", default="kendall-c", help=f"comma-separated, from {', '.join(METHODS)} (default kendall-c)"
    )
    parser.add_argument("--level", choices=("item", "system", "both"), default="item")
    parser.add_argument(
        "--ratings",
        choices=("individual", "mean"),
        default="individual",
        help="item level: one row per individual rating (default, as in the SPICE paper) or per item",
    )
    parser.add_argument("--tokenizer", default="ptb", help="ptb (default), ws or none")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--digits", type=int, default=4, help="decimals in text/LaTeX tables")
    parser.add_argument("--output", help="also write the table to this file")
    parser.add_argument(
        "--plot", help="scatter plot file (.png/.svg/.pdf); with --level both, items go to <name>-items"
    )
    parser.add_argument(
        "--protocol",
        choices=("published", "loader"),
        default="published",
        help="flickr8k-expert/flickr8k-cf: 'published' (default) drops Expert candidates that are captions of their "
        "own image and removes every judged caption from CF references, as the CLIPScore/PAC-S tables do; "
        "'loader' keeps every judgment and removes only the candidate itself",
    )
    parser.add_argument(
        "--consensus",
        help="pascal50s: consensus_pascal.mat (48 votes per pair); without it, --references pascal50S.mat and the "
        "votes in pair_pascal.mat 'result'",
    )
    parser.add_argument(
        "--n-references",
        type=int,
        default=None,
        help="references per item drawn at random with --seed (pascal50s default 5, 0 = all; other datasets: all)",
    )
    parser.add_argument(
        "--metric-ties",
        default=None,
        choices=("half", "wrong", "right", "drop"),
        help="pascal50s: credit for equal metric scores (default right: ties count as correct, the SPICE paper)",
    )
    parser.add_argument(
        "--human-ties",
        default="drop",
        choices=("drop", "half", "random"),
        help="pascal50s: pairs with equal votes (default drop)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the reference draws (--n-references) and of --human-ties random"
    )
    parser.add_argument(
        "--kappa", default="", help="human thresholds (e.g. 3,4): add the best Cohen's kappa per threshold"
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        help="item level: add a 95%% percentile bootstrap interval from N resamples of the items (seed --seed)",
    )
    parser.add_argument("--cumulative", help="plot cumulative human-score distributions per system to this file")
    parser.add_argument("--exclude-systems", default="", help="comma-separated systems to leave out (e.g. Human)")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N items (quick runs)")
    parser.set_defaults(func=run)
