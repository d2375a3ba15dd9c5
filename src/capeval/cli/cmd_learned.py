"""``capeval learned``: train and check the learned metrics (NNEval, WMD embeddings).

Subcommands:

* ``train``: the reproducible NNEval recipe (``docs/metrics/nneval.md``). Human captions
  (THumB's "Human" system and COCO val2014 captions, label 1) against machine captions
  (THumB's four systems, label 0), on THumB images outside a held-out part; early stopping on
  Kendall tau-c against the expert ratings of one half of Flickr8K-Expert (dev); figures on
  the other half and on the held-out THumB images.
* ``train-embeddings``: the word vectors of the WMD feature, from the COCO train2014 captions
  bundled in the official package's SPICE jar.
* ``evaluate``: caption-level Kendall tau-c of a model and of every feature on Flickr8K-Expert
  (dev), and caption/system-level correlations on held-out THumB.
* ``distractors``: for correct/distracted caption pairs, the share where each metric
  prefers the correct caption.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import logging
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from capeval.cli.main import CLIError
from capeval.meta_eval import (
    HumanJudgments,
    correlate,
    distractor_accuracy,
    load_flickr8k_expert_tsv,
    load_thumb,
    read_jsonl,
)
from capeval.meta_eval.tables import FORMATS, Table

__all__ = [
    "TokenizedCorpus",
    "TrainingData",
    "build_training_data",
    "distractor_check",
    "evaluate_model",
    "register",
    "train_nneval",
]

log = logging.getLogger("capeval")

#: Recipe defaults (recorded in the model's metadata).
DEFAULT_SEED = 0
#: Share of THumB images held out from training (all five captions of each).
THUMB_HOLDOUT_FRACTION = 0.4
#: Extra human captions from COCO val2014 (images outside THumB): first caption vs next four.
N_COCO_HUMAN = 900
#: References per COCO item, as in THumB.
COCO_N_REFERENCES = 4
#: Share of Flickr8K-Expert (dev) images whose ratings drive early stopping; the rest is a test half.
FLICKR_VALIDATION_FRACTION = 0.5
#: THumB's human system label and its files.
THUMB_HUMAN = "Human"
THUMB_FILES = ("mscoco_THumB-1.0.jsonl", "mscoco_references.json")
#: Official package member layout (pycocoevalcap 1.2).
SPICE_JAR = ("spice", "spice-1.0.jar")


@dataclass(frozen=True)
class TokenizedCorpus:
    """Tokenized items scored together (one CIDEr-D document-frequency corpus)."""

    name: str
    candidates: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class TrainingData:
    """Feature matrices of the recipe's splits."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    val_ratings: np.ndarray
    x_flickr: np.ndarray
    flickr_ratings: np.ndarray
    flickr_val_mask: np.ndarray
    x_thumb: np.ndarray
    thumb_ratings: np.ndarray
    thumb_systems: tuple[str, ...]
    thumb_holdout_mask: np.ndarray
    features: tuple[str, ...]
    description: Mapping[str, Any]


def _split_by_key(keys: Sequence[Any], fraction: float, seed: int) -> np.ndarray:
    """Boolean mask selecting ``fraction`` of the distinct keys (seeded, order-independent)."""
    distinct = sorted({str(k) for k in keys})
    rng = np.random.default_rng(seed)
    chosen = set(np.asarray(distinct)[rng.permutation(len(distinct))[: round(fraction * len(distinct))]].tolist())
    return np.array([str(k) in chosen for k in keys])


def _tokenize(
    name: str, candidates: Sequence[str], references: Sequence[Sequence[str]], tokenizer: str
) -> TokenizedCorpus:
    from capeval.tokenizers.base import get_tokenizer

    tok = get_tokenizer(tokenizer)
    cands = tok.tokenize(list(candidates))
    flat = tok.tokenize([r for refs in references for r in refs])
    out: list[tuple[str, ...]] = []
    pos = 0
    for refs in references:
        out.append(tuple(flat[pos : pos + len(refs)]))
        pos += len(refs)
    return TokenizedCorpus(name, tuple(cands), tuple(out))


def corpus_features(corpus: TokenizedCorpus, feature_set: Any, cache_dir: Path | None) -> np.ndarray:
    """Feature matrix of a corpus, cached on disk by corpus content and feature configuration."""
    key = hashlib.sha256(
        json.dumps([corpus.candidates, corpus.references, feature_set.features, feature_set.fingerprint()]).encode()
    ).hexdigest()[:16]
    path = cache_dir / f"features-{corpus.name}-{key}.npy" if cache_dir else None
    if path is not None and path.exists():
        return np.asarray(np.load(path), dtype=np.float64)
    start = time.perf_counter()
    matrix = feature_set.compute(corpus.candidates, corpus.references)
    log.info("features of %s (%d items): %.1f s", corpus.name, len(corpus.candidates), time.perf_counter() - start)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, matrix)
    return np.asarray(matrix, dtype=np.float64)


def thumb_features(thumb: HumanJudgments, feature_set: Any, tokenizer: str, cache_dir: Path | None) -> np.ndarray:
    """THumB features, each system scored as its own corpus (as a user scores one system)."""
    systems = thumb.systems or ()
    x = np.zeros((len(thumb), len(feature_set.features)))
    labels = np.asarray(systems)
    for system in dict.fromkeys(systems):
        idx = np.flatnonzero(labels == system)
        corpus = _tokenize(
            f"thumb-{system}", [thumb.candidates[i] for i in idx], [thumb.references[i] for i in idx], tokenizer
        )
        x[idx] = corpus_features(corpus, feature_set, cache_dir)
    return x


def coco_corpora(
    coco_source: Path, exclude_images: set[int], n_items: int, seed: int, tokenizer: str
) -> tuple[TokenizedCorpus, TokenizedCorpus]:
    """COCO val2014 human captions and mismatched captions on ``n_items`` seeded images.

    Human: each image's first caption (file order) against its next four. Mismatched: the
    first caption of *another* chosen image (a seeded derangement) against the same four
    references, the kind of wrong caption Flickr8K-Expert's low ratings are made of.
    """
    from capeval.metrics.learned.embeddings import read_coco_captions

    captions = read_coco_captions(coco_source, "val2014")
    eligible = sorted(i for i, caps in captions.items() if i not in exclude_images and len(caps) > COCO_N_REFERENCES)
    if len(eligible) < n_items:
        raise ValueError(f"{coco_source}: only {len(eligible)} usable images, {n_items} requested")
    rng = np.random.default_rng(seed)
    chosen = sorted(np.asarray(eligible)[rng.permutation(len(eligible))[:n_items]].tolist())
    references = [captions[i][1 : 1 + COCO_N_REFERENCES] for i in chosen]
    # A cyclic shift of a random order never maps an image to itself.
    order = rng.permutation(n_items)
    other = np.empty(n_items, dtype=np.int64)
    other[order] = np.roll(order, 1)
    human = _tokenize("coco-human", [captions[i][0] for i in chosen], references, tokenizer)
    mismatched = _tokenize("coco-mismatched", [captions[chosen[j]][0] for j in other], references, tokenizer)
    return human, mismatched


def _coco_image_id(name: Any) -> int | None:
    digits = "".join(ch for ch in str(name).rsplit("_", 1)[-1] if ch.isdigit())
    return int(digits) if digits else None


def build_training_data(
    thumb_dir: Path,
    coco_source: Path,
    flickr_dev: Path,
    *,
    seed: int = DEFAULT_SEED,
    n_coco: int = N_COCO_HUMAN,
    mismatched: bool = True,
    thumb_machine: bool = False,
    holdout_fraction: float = THUMB_HOLDOUT_FRACTION,
    validation_fraction: float = FLICKR_VALIDATION_FRACTION,
    tokenizer: str = "ptb",
    cache_dir: Path | None = None,
    feature_options: Mapping[str, Mapping[str, Any]] | None = None,
    thumb_limit: int | None = None,
    flickr_limit: int | None = None,
) -> TrainingData:
    """Load the recipe's data sets and compute their features.

    Raises:
        ValueError: if a file is missing or malformed.
    """
    from capeval.metrics.learned.nneval import FEATURES, FeatureSet

    feature_set = FeatureSet(FEATURES, tokenizer="none", options=feature_options)
    thumb = load_thumb(thumb_dir / THUMB_FILES[0], thumb_dir / THUMB_FILES[1])
    if thumb_limit:
        thumb = _thumb_head_images(thumb, thumb_limit)
    flickr = load_flickr8k_expert_tsv(flickr_dev)
    if flickr_limit:
        flickr = flickr.head(flickr_limit)
    segments = [str(i).split("/", 1)[1] for i in thumb.ids]
    holdout = _split_by_key(segments, holdout_fraction, seed)
    x_thumb = thumb_features(thumb, feature_set, tokenizer, cache_dir)
    thumb_images = {i for i in (_coco_image_id(n) for n in thumb.image_ids) if i is not None}
    x_coco = x_mismatched = np.zeros((0, len(FEATURES)))
    if n_coco:
        coco_human, coco_mismatched = coco_corpora(coco_source, thumb_images, n_coco, seed, tokenizer)
        x_coco = corpus_features(coco_human, feature_set, cache_dir)
        if mismatched:
            x_mismatched = corpus_features(coco_mismatched, feature_set, cache_dir)
    flickr_corpus = _tokenize("flickr8k-expert-dev", flickr.candidates, flickr.references, tokenizer)
    x_flickr = corpus_features(flickr_corpus, feature_set, cache_dir)
    val_mask = _split_by_key(flickr.image_ids, validation_fraction, seed)
    human = np.array([s == THUMB_HUMAN for s in (thumb.systems or ())])
    train = ~holdout
    # THumB's machine captions as the "machine" class lower both validation and held-out THumB
    # correlations (docs/metrics/nneval.md), so by default only its human captions are used.
    thumb_rows = train if thumb_machine else train & human
    x_train = np.vstack([x_thumb[thumb_rows], x_coco, x_mismatched])
    y_train = np.concatenate(
        [
            human[thumb_rows].astype(np.int64),
            np.ones(len(x_coco), dtype=np.int64),
            np.zeros(len(x_mismatched), dtype=np.int64),
        ]
    )
    description = {
        "thumb": {
            "train_images": int(len(set(np.asarray(segments)[train]))),
            "holdout_images": int(len(set(np.asarray(segments)[holdout]))),
            "holdout_fraction": holdout_fraction,
            "train_machine": int((thumb_rows & ~human).sum()),
            "train_human": int((train & human).sum()),
        },
        "coco_val2014_human": len(x_coco),
        "coco_val2014_mismatched": len(x_mismatched),
        "flickr8k_expert_dev": {
            "items": len(flickr),
            "validation_items": int(val_mask.sum()),
            "validation_fraction": validation_fraction,
        },
        "tokenizer": tokenizer,
        "feature_config": feature_set.fingerprint(),
    }
    return TrainingData(
        x_train=x_train,
        y_train=y_train,
        x_val=x_flickr[val_mask],
        val_ratings=flickr.ratings[val_mask],
        x_flickr=x_flickr,
        flickr_ratings=flickr.ratings,
        flickr_val_mask=val_mask,
        x_thumb=x_thumb,
        thumb_ratings=thumb.ratings,
        thumb_systems=tuple(thumb.systems or ()),
        thumb_holdout_mask=holdout,
        features=FEATURES,
        description=description,
    )


def _thumb_head_images(thumb: HumanJudgments, n_images: int) -> HumanJudgments:
    """All captions of the first ``n_images`` THumB segments (for quick runs)."""
    segments = set(list(dict.fromkeys(str(i).split("/", 1)[1] for i in thumb.ids))[:n_images])
    return thumb.select([k for k, i in enumerate(thumb.ids) if str(i).split("/", 1)[1] in segments])


def _tau_c(scores: np.ndarray, ratings: np.ndarray) -> float:
    return float(correlate(scores, ratings, method="kendall-c").coefficient)


def train_nneval(
    data: TrainingData, *, seed: int = DEFAULT_SEED, name: str = "nneval-default", config: Any = None
) -> Any:
    """Train an NNEval model on :func:`build_training_data`'s output (deterministic per seed).

    Returns:
        The :class:`~capeval.metrics.learned.nneval.NNEvalModel`, with the data description,
        hyper-parameters, seed and validation figure in ``meta``.
    """
    from capeval.metrics.learned.network import TrainingConfig, train_classifier
    from capeval.metrics.learned.nneval import NNEvalModel

    cfg = config or TrainingConfig(seed=seed)
    lower = data.x_train.min(axis=0)
    upper = data.x_train.max(axis=0)
    draft = NNEvalModel(data.features, lower, upper, [])

    def validate(params: list[np.ndarray]) -> float:
        model = NNEvalModel(data.features, lower, upper, params)
        return _tau_c(model.predict(data.x_val), data.val_ratings)

    x = draft.normalise(data.x_train)
    params, history = train_classifier(x, data.y_train, validate, cfg)
    meta = {
        "name": name,
        "seed": cfg.seed,
        "config": asdict(cfg),
        "data": dict(data.description),
        "best_epoch": history.best_epoch,
        "epochs_run": len(history.loss),
        "validation": {"kendall_tau_c_flickr8k_expert_dev_validation_half": round(history.best_validation, 6)},
    }
    return NNEvalModel(data.features, lower, upper, params, meta)


def evaluate_model(model: Any, data: TrainingData) -> dict[str, Any]:
    """Acceptance figures: tau-c on Flickr8K-Expert (dev) halves, correlations on held-out THumB."""
    flickr_scores = {"nneval": model.predict(data.x_flickr)}
    thumb_scores = {"nneval": model.predict(data.x_thumb)}
    for k, name in enumerate(data.features):
        flickr_scores[name] = data.x_flickr[:, k]
        thumb_scores[name] = data.x_thumb[:, k]
    val = data.flickr_val_mask
    hold = data.thumb_holdout_mask
    systems = [s for s, h in zip(data.thumb_systems, hold, strict=True) if h]
    machine = np.array([s != THUMB_HUMAN for s in data.thumb_systems]) & hold
    rows: dict[str, dict[str, float]] = {}
    for name in flickr_scores:
        f, t = flickr_scores[name], thumb_scores[name]
        rows[name] = {
            "flickr_all": _tau_c(f, data.flickr_ratings),
            "flickr_validation": _tau_c(f[val], data.flickr_ratings[val]),
            "flickr_test": _tau_c(f[~val], data.flickr_ratings[~val]) if (~val).any() else float("nan"),
            "thumb_item": _tau_c(t[hold], data.thumb_ratings[hold]),
            "thumb_item_machine": _tau_c(t[machine], data.thumb_ratings[machine]),
            "thumb_system_pearson": float(
                correlate(
                    t[hold], data.thumb_ratings[hold], level="system", systems=systems, method="pearson"
                ).coefficient
            ),
            "thumb_system_kendall": float(
                correlate(
                    t[hold], data.thumb_ratings[hold], level="system", systems=systems, method="kendall-b"
                ).coefficient
            ),
        }
    return rows


def distractor_check(
    metrics: Sequence[Any],
    correct: Sequence[str],
    distracted: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenizer: str = "ptb",
    ties: str = "half",
) -> dict[str, float]:
    """Share of pairs where each metric scores the correct caption above its distractor.

    Correct and distracted captions are scored in one corpus (so CIDEr-D's document
    frequencies are shared), each against the references of its pair.

    Args:
        metrics: Registry keys or outputs (``"bleu-4"``) or metric objects.
        correct: The correct caption of each pair.
        distracted: Its distracted version (e.g. subject or scene swapped).
        references: References of each pair.
        tokenizer: Tokenizer for metrics given by name.
        ties: Credit for equal scores (see :func:`capeval.meta_eval.distractor_accuracy`).

    Returns:
        Metric output -> accuracy in [0, 1].

    Raises:
        ValueError: on misaligned input or an unknown metric.
    """
    from capeval.engines.local import evaluate
    from capeval.metrics.base import Metric

    n = len(correct)
    if len(distracted) != n or len(references) != n:
        raise ValueError(f"{n} correct captions, {len(distracted)} distracted, {len(references)} reference lists")
    keys: list[Any] = []
    outputs: list[tuple[str, str | None]] = []
    for entry in metrics:
        if isinstance(entry, Metric):
            keys.append(entry)
            outputs.append((entry.name, None))
            continue
        key, out = _metric_output(entry)
        keys.append(key)
        outputs.append((key, out))
    ev = evaluate(
        candidates=[*correct, *distracted], references=[*references, *references], metrics=keys, tokenizer=tokenizer
    )
    acc: dict[str, float] = {}
    for result_key, output in outputs:
        result = ev.results[result_key]
        label = output or result.metric
        column = result.item_table[label]
        acc[label] = distractor_accuracy(column[:n], column[n:], ties=ties)
    return acc


def _metric_output(name: str) -> tuple[str, str]:
    """``"bleu-4"`` -> (``"bleu"``, ``"bleu-4"``); ``"cider-d"`` -> (``"cider-d"``, ``"cider-d"``)."""
    from capeval.registry import get_metric, metric_class

    name = name.strip().lower()
    for key in (name, name.rsplit("-", 1)[0]):
        try:
            metric_class(key)
        except ValueError:
            continue
        metric = get_metric(key, tokenizer="none")
        if name in metric.outputs:
            return metric.name, name
        if key == name:
            return metric.name, metric.primary
    raise ValueError(f"unknown metric {name!r}")


# --- command line ----------------------------------------------------------------------------
def _default_jar() -> Path | None:
    try:
        import pycocoevalcap  # type: ignore[import-untyped]
    except ImportError:
        return None
    path = Path(list(pycocoevalcap.__path__)[0]).joinpath(*SPICE_JAR)
    return path if path.exists() else None


def _coco_source(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    jar = _default_jar()
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
    rounded = {k: {c: round(v, 6) for c, v in row.items()} for k, row in figures.items()}
    model = dataclasses.replace(model, meta={**model.meta, "figures": rounded})
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
