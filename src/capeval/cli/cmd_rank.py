"""``capeval rank``: ranking evaluation of image annotation and image search (Hodosh et al. 2013).

Reads one or more score matrices (images x captions; ``.npy``, ``.csv`` or ``.json``) or ranked
lists, a gold mapping caption -> image (``--gold`` or ``--captions-per-image``), and prints
R@k, median and mean rank per system and direction. With graded judgments (``--judgments``,
same shape as the matrix) it adds S@k and R-precision after thresholding. With several
systems it can add their Borda aggregate (``--borda``) and compare the first two
(``--compare``: McNemar's test on R@k outcomes, Fisher's randomization test on ranks).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from capeval.cli.main import CLIError
from capeval.meta_eval.tables import FORMATS, Table
from capeval.ranking import (
    TIE_RULES,
    ScoreMatrix,
    binarize,
    blocks,
    borda_aggregate,
    evaluate_ranking,
    r_precision,
    read_gold,
    read_ranked_lists,
    read_score_matrix,
    success_at_k,
)
from capeval.stats import DEFAULT_SEED, mcnemar, paired_permutation_test

__all__ = ["register", "run"]


def _load(path: str, ranked: bool, transpose: bool) -> ScoreMatrix:
    matrix = read_ranked_lists(path) if ranked else read_score_matrix(path)
    if transpose:
        matrix = ScoreMatrix(matrix.scores.T.copy(), matrix.pool, matrix.queries)
    return matrix


def run(args: argparse.Namespace) -> int:
    """Body of ``capeval rank``."""
    paths = args.scores or args.ranked
    if not paths:
        raise CLIError("give --scores (score matrices) or --ranked (ranked lists)")
    matrices = [_load(p, bool(args.ranked), args.transpose) for p in paths]
    shape = matrices[0].scores.shape
    for p, m in zip(paths, matrices, strict=True):
        if m.scores.shape != shape:
            raise CLIError(f"{p}: matrix shape {m.scores.shape} differs from {paths[0]}: {shape}")
    if args.gold:
        gold = read_gold(args.gold, matrices[0])
    elif args.captions_per_image:
        gold = list(blocks(shape[1], args.captions_per_image))
    else:
        raise CLIError("give --gold (caption -> image mapping) or --captions-per-image N")
    try:
        ks = [int(k) for k in args.k.split(",") if k.strip()]
    except ValueError:
        raise CLIError(f"--k must be comma-separated integers, got {args.k!r}") from None
    systems = {Path(p).stem if len(paths) > 1 else Path(p).name: m.scores for p, m in zip(paths, matrices, strict=True)}
    tasks = ["annotation", "search"] if args.task == "both" else [args.task]
    # per direction: Borda ranks captions within each image row for annotation, images within
    # each caption column for search
    by_task: dict[str, dict[str, Any]] = {name: {} for name in systems}
    if args.borda:
        if len(paths) < 2:
            raise CLIError("--borda needs at least two systems")
        _, ranks = borda_aggregate(list(systems.values()))
        _, ranks_t = borda_aggregate([m.T for m in systems.values()])
        systems["borda"] = -ranks.astype(np.float64)
        by_task["borda"] = {"search": -ranks_t.T.astype(np.float64)}
    relevance = None
    if args.judgments:
        judgments = read_score_matrix(args.judgments).scores
        if args.transpose:
            judgments = judgments.T
        if judgments.shape != shape:
            raise CLIError(f"{args.judgments}: judgments shape {judgments.shape} differs from the scores {shape}")
        relevance = binarize(judgments, args.threshold)
    header = ["system", "task", *(f"R@{k}" for k in ks), "median rank", "mean rank"]
    if relevance is not None:
        header += [*(f"S@{k}" for k in ks), "R-precision"]
    table = Table(header, digits=args.digits)
    results = {}
    for name, matrix in systems.items():
        for task in tasks:
            scores = by_task[name].get(task, matrix)
            r = evaluate_ranking(scores, gold, task=task, ks=ks, ties=args.ties)
            results[(name, task)] = r
            row: list[Any] = [name, task, *(100 * r.recall[k] for k in ks), r.median_rank, r.mean_rank]
            if relevance is not None:
                s, rel = (scores, relevance) if task == "annotation" else (scores.T, relevance.T)
                row += [100 * success_at_k(s, rel, k, ties=args.ties) for k in ks]
                row.append(100 * r_precision(s, rel, ties=args.ties)[0])
            table.rows.append(row)
    text = table.render(args.format)
    lines = [text]
    if args.compare:
        if len(paths) < 2:
            raise CLIError("--compare needs two systems")
        first, second = list(systems)[:2]
        cmp = Table(["task", "test", "statistic", "p-value"], digits=args.digits)
        for task in tasks:
            a, b = results[(first, task)], results[(second, task)]
            for k in ks:
                test = mcnemar(a.ranks <= k, b.ranks <= k)
                cmp.rows.append([task, f"McNemar R@{k} (b={test.b}, c={test.c})", test.statistic, test.p_value])
            for stat in ("median", "mean"):
                p = paired_permutation_test(
                    a.ranks, b.ranks, statistic=stat, n_resamples=args.n_resamples, seed=args.seed
                )
                cmp.rows.append([task, f"randomization {stat} rank", p.statistic, p.p_value])
        lines += ["", f"{first} vs {second}:" if args.format == "text" else "", cmp.render(args.format)]
    output = "\n".join(line for line in lines if line or args.format == "text")
    if args.output:
        Path(args.output).write_text(output + "\n", encoding="utf-8")
    print(output)
    if args.format == "text":
        n_images, n_captions = shape
        print(f"\n{n_images:,} images x {n_captions:,} captions; R@k and S@k in %; ties: {args.ties}.")
    return 0


def register(subparsers: Any) -> None:
    """Add ``capeval rank``."""
    parser = subparsers.add_parser(
        "rank",
        help="R@k, median rank, S@k, R-precision for image annotation and search",
        description="Ranking evaluation from score matrices (images x captions) or ranked lists.",
    )
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--scores", nargs="+", metavar="FILE", help="score matrices, images x captions (.npy/.csv/.json)")
    src.add_argument("--ranked", nargs="+", metavar="FILE", help="ranked lists (.json), one query per image")
    parser.add_argument("--transpose", action="store_true", help="the files are captions x images")
    parser.add_argument("--gold", help="JSON: image index of every caption, or {caption id: image id}")
    parser.add_argument(
        "--captions-per-image", type=int, default=0, help="gold by position: caption c belongs to image c // N"
    )
    parser.add_argument("--task", choices=("annotation", "search", "both"), default="both")
    parser.add_argument("--k", default="1,5,10", help="cut-offs (default 1,5,10)")
    parser.add_argument("--ties", choices=TIE_RULES, default="pessimistic")
    parser.add_argument("--judgments", help="graded relevance judgments, same shape as the scores (for S@k, R-prec.)")
    parser.add_argument("--threshold", type=float, default=3.0, help="judgment >= threshold is relevant (default 3)")
    parser.add_argument("--borda", action="store_true", help="add the Borda aggregate of all systems")
    parser.add_argument("--compare", action="store_true", help="test the first two systems against each other")
    parser.add_argument("--n-resamples", type=int, default=10000, help="randomization trials (default 10000)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--digits", type=int, default=2)
    parser.add_argument("--output", help="also write the table(s) to this file")
    parser.set_defaults(func=run)
