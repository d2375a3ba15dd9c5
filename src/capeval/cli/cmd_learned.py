"""``capeval learned``: train and check the learned metrics (NNEval, WMD embeddings).

The command line only: the recipe is :mod:`capeval.metrics.learned.training`.

Subcommands:

* ``train``: the reproducible NNEval recipe (``docs/metrics/nneval.md``). Human captions
  (THumB's "Human" system and COCO val2014 captions, label 1) against machine captions
  (THumB's four systems, label 0), on THumB images outside a held-out part; early stopping on
  Kendall tau-c against the expert ratings of one half of Flickr8K-Expert (dev); figures on
  the other half and on the held-out THumB images.
* ``train-v2``: the ``nneval-v2`` recipe (:mod:`capeval.metrics.learned.training_v2`,
  ``docs/metrics/nneval-v2.md``); ``--cv`` adds the image-disjoint cross-validated figures.
* ``train-embeddings``: the word vectors of the WMD feature, from the COCO train2014 captions
  bundled in the official package's SPICE jar.
* ``evaluate``: caption-level Kendall tau-c of a model and of every feature on Flickr8K-Expert
  (dev), and caption/system-level correlations on held-out THumB.
* ``distractors``: for correct/distracted caption pairs, the share where each metric
  prefers the correct caption.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from capeval.cli.main import CLIError
from capeval.io import read_jsonl
from capeval.meta_eval.tables import FORMATS, Table

# The recipe lives in the library; these names stay importable from here for older scripts.
from capeval.metrics.learned.training import (
    DEFAULT_SEED,
    N_COCO_HUMAN,
    THUMB_HOLDOUT_FRACTION,
    TokenizedCorpus,
    TrainingData,
    attach_figures,
    build_training_data,
    default_coco_source,
    distractor_check,
    evaluate_model,
    train_nneval,
)

__all__ = [
    "TokenizedCorpus",
    "TrainingData",
    "build_training_data",
    "distractor_check",
    "evaluate_model",
    "register",
    "train_nneval",
]


def _coco_source(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    jar = default_coco_source()
    if jar is None:
        raise CLIError("--coco not given and pycocoevalcap 1.2 is not installed (pip install 'pycocoevalcap==1.2')")
    return jar


def _data_from_args(args: argparse.Namespace) -> TrainingData:
    try:
        return build_training_data(
            Path(args.thumb),
            _coco_source(args.coco),
            Path(args.flickr8k_dev),
            seed=args.seed,
            n_coco=args.n_coco,
            holdout_fraction=args.holdout,
            mismatched=not args.no_mismatched,
            thumb_machine=args.thumb_machine,
            cache_dir=Path(args.cache_dir) if args.cache_dir else None,
        )
    except ValueError as exc:
        raise CLIError(str(exc)) from exc


def _figures_table(rows: Mapping[str, Mapping[str, float]], digits: int) -> Table:
    columns = list(next(iter(rows.values())))
    table = Table(["metric", *columns], digits=digits)
    for name, row in rows.items():
        table.rows.append([name, *(row[c] for c in columns)])
    return table


def run_train(args: argparse.Namespace) -> int:
    """Body of ``capeval learned train``."""
    from capeval.metrics.learned.network import TrainingConfig

    start = time.perf_counter()
    data = _data_from_args(args)
    config = TrainingConfig(seed=args.seed, max_epochs=args.max_epochs)
    model = train_nneval(data, seed=args.seed, name=args.name, config=config)
    figures = evaluate_model(model, data)
    model = attach_figures(model, figures)
    model.save(args.output)
    print(_figures_table(figures, args.digits).render(args.format))
    print(
        f"\nmodel {model.meta['name']}-{model.digest} (seed {model.seed}, best epoch {model.meta['best_epoch']}) "
        f"written to {args.output}; validation tau-c {model.meta['validation']}; "
        f"{time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    """Body of ``capeval learned evaluate``."""
    from capeval.metrics.learned.nneval import load_model

    try:
        model = load_model(args.model)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    args.seed = model.seed if args.seed is None else args.seed
    data = _data_from_args(args)
    print(_figures_table(evaluate_model(model, data), args.digits).render(args.format))
    return 0


def run_train_v2(args: argparse.Namespace) -> int:
    """Body of ``capeval learned train-v2`` (recipe: ``capeval.metrics.learned.training_v2``)."""
    import dataclasses

    from capeval.metrics.learned import training_v2

    start = time.perf_counter()
    missing = [d for d in ("flickr8k-raw-dev", "thumb", "pascal50s") if not (Path(args.data) / d).is_dir()]
    if missing:
        raise CLIError(f"--data {args.data}: missing {', '.join(missing)}/")
    cache = Path(args.cache_dir) if args.cache_dir else None
    corpora, matrices = training_v2.build(Path(args.data), _coco_source(args.coco), cache_dir=cache, seed=args.seed)
    config = dataclasses.replace(training_v2.FitConfig(), seed=args.seed)
    rows = None
    if args.cv:
        rows = {"nneval-v2": training_v2.figures(training_v2.cross_validate(matrices, corpora, config), corpora)}
        print(_figures_table(rows, args.digits).render(args.format))
    model = training_v2.train_nneval_v2(corpora, matrices, config, cv_figures=rows)
    model.save(args.output)
    print(
        f"model nneval-v2-{model.digest} (seed {model.seed}) written to {args.output}; "
        f"{time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0


def run_train_embeddings(args: argparse.Namespace) -> int:
    """Body of ``capeval learned train-embeddings``."""
    from capeval.metrics.learned.embeddings import read_coco_captions, save_embeddings, train_embeddings
    from capeval.tokenizers.base import get_tokenizer

    start = time.perf_counter()
    try:
        captions = read_coco_captions(_coco_source(args.coco), "train2014")
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    flat = [c for caps in captions.values() for c in caps]
    tokens = get_tokenizer(args.tokenizer).tokenize(flat)
    emb = train_embeddings([t.split() for t in tokens], dim=args.dim, seed=args.seed)
    provenance = (
        f"PPMI-SVD word vectors ({args.dim}-d, seed {args.seed}, {args.tokenizer} tokens) trained on "
        f"{len(flat):,} COCO train2014 captions (cocodataset.org, CC BY 4.0) as bundled in pycocoevalcap 1.2"
    )
    save_embeddings(emb, args.output, provenance=provenance)
    print(f"{len(emb.words):,} words, digest {emb.digest}, {time.perf_counter() - start:.1f} s -> {args.output}")
    return 0


def _read_pairs(path: Path) -> tuple[list[str], list[str], list[list[str]]]:
    correct: list[str] = []
    distracted: list[str] = []
    references: list[list[str]] = []
    try:
        records = read_jsonl(path)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    except OSError as exc:
        raise CLIError(f"{path}: {exc}") from exc
    for number, record in records:
        where = f"{path}:{number}"
        refs = record.get("references")
        if not isinstance(record.get("correct"), str) or not isinstance(record.get("distracted"), str):
            raise CLIError(f"{where}: 'correct' and 'distracted' must be strings")
        if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
            raise CLIError(f"{where}: 'references' must be a non-empty list of strings")
        correct.append(record["correct"])
        distracted.append(record["distracted"])
        references.append(refs)
    if not correct:
        raise CLIError(f"{path}: no pairs")
    return correct, distracted, references


def run_distractors(args: argparse.Namespace) -> int:
    """Body of ``capeval learned distractors``."""
    correct, distracted, references = _read_pairs(Path(args.pairs))
    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    try:
        acc = distractor_check(names, correct, distracted, references, tokenizer=args.tokenizer, ties=args.ties)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    table = Table(["metric", "accuracy"], digits=args.digits)
    for name, value in acc.items():
        table.rows.append([name, 100 * value])
    print(table.render(args.format))
    if args.format == "text":
        print(f"\n{len(correct):,} pairs; accuracy in % (ties: {args.ties}).")
    return 0


def _add_data_args(parser: argparse.ArgumentParser, *, seed_default: int | None) -> None:
    parser.add_argument("--thumb", required=True, help="THumB 1.0 directory (mscoco_THumB-1.0.jsonl, references)")
    parser.add_argument("--flickr8k-dev", required=True, help="flickr8k_expert_dev.tsv (validation ratings)")
    parser.add_argument("--coco", help="captions_val2014.json or pycocoevalcap's spice-1.0.jar (default: installed)")
    parser.add_argument("--seed", type=int, default=seed_default, help="seed of splits, sampling and training")
    parser.add_argument("--n-coco", type=int, default=N_COCO_HUMAN, help="extra COCO human captions")
    parser.add_argument("--holdout", type=float, default=THUMB_HOLDOUT_FRACTION, help="THumB image share held out")
    parser.add_argument("--no-mismatched", action="store_true", help="no mismatched COCO captions as negatives")
    parser.add_argument("--thumb-machine", action="store_true", help="THumB machine captions as negatives")
    parser.add_argument("--cache-dir", help="cache feature matrices here (keyed by corpus and feature config)")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--digits", type=int, default=3)


def register(subparsers: Any) -> None:
    """Add ``capeval learned`` and its subcommands."""
    parser = subparsers.add_parser("learned", help="train and check learned metrics (NNEval, WMD)")
    sub = parser.add_subparsers(dest="learned_command", required=True)

    train = sub.add_parser("train", help="train an NNEval model (reproducible recipe)")
    _add_data_args(train, seed_default=DEFAULT_SEED)
    train.add_argument("--output", required=True, help="model file to write (.npz)")
    train.add_argument("--name", default="nneval-default", help="model name recorded in signatures")
    train.add_argument("--max-epochs", type=int, default=200)
    train.set_defaults(func=run_train)

    v2 = sub.add_parser("train-v2", help="train an nneval-v2 model on the human judgments (reproducible recipe)")
    v2.add_argument("--data", required=True, help="directory with flickr8k-raw-dev/, thumb/, pascal50s/")
    v2.add_argument("--coco", help="captions_val2014.json or pycocoevalcap's spice-1.0.jar (default: installed)")
    v2.add_argument("--output", required=True, help="model file to write (.npz)")
    v2.add_argument("--seed", type=int, default=DEFAULT_SEED)
    v2.add_argument("--cv", action="store_true", help="also print the image-disjoint cross-validated figures")
    v2.add_argument("--cache-dir", help="cache feature matrices here (keyed by corpus and feature config)")
    v2.add_argument("--format", choices=FORMATS, default="text")
    v2.add_argument("--digits", type=int, default=3)
    v2.set_defaults(func=run_train_v2)

    ev = sub.add_parser("evaluate", help="acceptance figures of a model against its features")
    _add_data_args(ev, seed_default=None)
    ev.add_argument("--model", help="model file (default: the shipped model)")
    ev.set_defaults(func=run_evaluate)

    emb = sub.add_parser("train-embeddings", help="train the WMD word vectors on COCO train2014 captions")
    emb.add_argument("--coco", help="captions_train2014.json or pycocoevalcap's spice-1.0.jar (default: installed)")
    emb.add_argument("--output", required=True)
    emb.add_argument("--dim", type=int, default=100)
    emb.add_argument("--seed", type=int, default=0)
    emb.add_argument("--tokenizer", default="ptb")
    emb.set_defaults(func=run_train_embeddings)

    dis = sub.add_parser("distractors", help="share of pairs where a metric prefers the correct caption")
    dis.add_argument("pairs", help="JSON lines: {'correct': ..., 'distracted': ..., 'references': [...]}")
    dis.add_argument("--metrics", default="bleu-4,meteor,cider-d,spice,wmd,nneval")
    dis.add_argument("--tokenizer", default="ptb")
    dis.add_argument("--ties", choices=("half", "wrong", "right", "drop"), default="half")
    dis.add_argument("--format", choices=FORMATS, default="text")
    dis.add_argument("--digits", type=int, default=1)
    dis.set_defaults(func=run_distractors)
