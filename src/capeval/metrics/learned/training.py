"""The NNEval training recipe: data, features, training, acceptance figures.

The reproducible recipe of ``docs/metrics/nneval.md`` (``capeval learned train`` runs it):

1. :func:`build_training_data` loads THumB 1.0, COCO val2014 captions and Flickr8K-Expert
   (dev), splits them (seeded) and computes the feature matrices (BLEU-1..4, METEOR,
   CIDEr-D, SPICE, WMD; optionally cached on disk). Human captions (THumB's "Human" system and
   COCO val2014 captions) are label 1, machine and mismatched captions label 0; a part of the
   THumB images is held out, and half of the Flickr8K-Expert images drive early stopping.
2. :func:`train_nneval` trains the network on that data (deterministic for a seed) and returns
   an :class:`~capeval.metrics.learned.nneval.NNEvalModel` whose ``meta`` records the data,
   hyper-parameters, seed and validation figure.
3. :func:`evaluate_model` gives the acceptance figures (Kendall tau-c on the Flickr8K halves,
   caption- and system-level correlations on held-out THumB) for the model and every feature;
   :func:`attach_figures` records them in the model before it is saved.

:func:`distractor_check` gives the share of correct/distracted caption pairs where each metric
prefers the correct caption (the model card's distractor figures).

The recipe is an evaluation protocol over human judgments, so it reads its data sets with the
loaders of :mod:`capeval.meta_eval` and scores them with :mod:`capeval.engines`; those are
imported when a function runs, never when :mod:`capeval.metrics` is imported.

Example (the shipped model, with the data sets of the model card)::

    from capeval.metrics.learned import training

    data = training.build_training_data(thumb_dir, training.default_coco_source(), flickr_dev_tsv)
    model = training.train_nneval(data, seed=0)
    model = training.attach_figures(model, training.evaluate_model(model, data))
    model.save("nneval.npz")
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from capeval.meta_eval import HumanJudgments
    from capeval.metrics.learned.network import TrainingConfig
    from capeval.metrics.learned.nneval import FeatureSet, NNEvalModel

__all__ = [
    "COCO_N_REFERENCES",
    "DEFAULT_SEED",
    "FLICKR_VALIDATION_FRACTION",
    "N_COCO_HUMAN",
    "THUMB_FILES",
    "THUMB_HOLDOUT_FRACTION",
    "THUMB_HUMAN",
    "TokenizedCorpus",
    "TrainingData",
    "attach_figures",
    "build_training_data",
    "coco_corpora",
    "corpus_features",
    "default_coco_source",
    "distractor_check",
    "evaluate_model",
    "thumb_features",
    "tokenize_corpus",
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
    """Feature matrices of the recipe's splits (rows are items, columns ``features``).

    Attributes:
        x_train: Training features; ``y_train`` its labels (1 human, 0 machine/mismatched).
        x_val: Flickr8K-Expert (dev) validation-half features; ``val_ratings`` their ratings
            (early stopping maximises Kendall tau-c against them).
        x_flickr: All Flickr8K-Expert (dev) items; ``flickr_ratings`` their expert ratings and
            ``flickr_val_mask`` the validation half.
        x_thumb: All THumB items; ``thumb_ratings``, ``thumb_systems`` and
            ``thumb_holdout_mask`` (the held-out images).
        features: Feature names (:data:`capeval.metrics.learned.nneval.FEATURES`).
        description: What the splits hold (recorded in the model's ``meta["data"]``).
    """

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


def tokenize_corpus(
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


def corpus_features(corpus: TokenizedCorpus, feature_set: FeatureSet, cache_dir: Path | None) -> np.ndarray:
    """Feature matrix of a corpus, cached in ``cache_dir`` by corpus content and feature configuration."""
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


def thumb_features(
    thumb: HumanJudgments, feature_set: FeatureSet, tokenizer: str, cache_dir: Path | None
) -> np.ndarray:
    """THumB features, each system scored as its own corpus (as a user scores one system)."""
    systems = thumb.systems or ()
    x = np.zeros((len(thumb), len(feature_set.features)))
    labels = np.asarray(systems)
    for system in dict.fromkeys(systems):
        idx = np.flatnonzero(labels == system)
        corpus = tokenize_corpus(
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
    human = tokenize_corpus("coco-human", [captions[i][0] for i in chosen], references, tokenizer)
    mismatched = tokenize_corpus("coco-mismatched", [captions[chosen[j]][0] for j in other], references, tokenizer)
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

    Args:
        thumb_dir: THumB 1.0 directory (``mscoco_THumB-1.0.jsonl``, ``mscoco_references.json``).
        coco_source: ``captions_val2014.json`` or pycocoevalcap's SPICE jar
            (:func:`default_coco_source`).
        flickr_dev: ``flickr8k_expert_dev.tsv``.
        seed: Seed of the splits and of the COCO sample.
        n_coco: COCO val2014 human captions added as positives (0: none).
        mismatched: Add the same number of mismatched COCO captions as negatives.
        thumb_machine: Use THumB's machine captions as negatives too.
        holdout_fraction: Share of THumB images held out from training.
        validation_fraction: Share of Flickr8K-Expert images driving early stopping.
        tokenizer: Tokenizer of every corpus.
        cache_dir: Cache feature matrices here (keyed by corpus content and feature config).
        feature_options: Options of the feature metrics (see ``FeatureSet``).
        thumb_limit: Use only the first ``thumb_limit`` THumB images (quick runs).
        flickr_limit: Use only the first ``flickr_limit`` Flickr8K items (quick runs).

    Raises:
        ValueError: if a file is missing or malformed.
    """
    from capeval.meta_eval import load_flickr8k_expert_tsv, load_thumb
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
    flickr_corpus = tokenize_corpus("flickr8k-expert-dev", flickr.candidates, flickr.references, tokenizer)
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
    from capeval.meta_eval import correlate

    return float(correlate(scores, ratings, method="kendall-c").coefficient)


def train_nneval(
    data: TrainingData,
    *,
    seed: int = DEFAULT_SEED,
    name: str = "nneval-default",
    config: TrainingConfig | None = None,
) -> NNEvalModel:
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


def evaluate_model(model: NNEvalModel, data: TrainingData) -> dict[str, dict[str, float]]:
    """Acceptance figures of the model and of every feature.

    Returns:
        ``{name: figures}`` for ``"nneval"`` and each feature: Kendall tau-c against the
        Flickr8K-Expert (dev) ratings on all items (``flickr_all``), the validation half and the
        test half; on held-out THumB, caption-level tau-c (all captions, machine captions
        only) and system-level Pearson and Kendall tau-b.
    """
    from capeval.meta_eval import correlate

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


def attach_figures(model: NNEvalModel, figures: Mapping[str, Mapping[str, float]]) -> NNEvalModel:
    """The model with :func:`evaluate_model`'s figures (rounded to 6 decimals) in ``meta["figures"]``.

    The figures are metadata: the model's parameters and digest do not change.
    """
    rounded = {k: {c: round(v, 6) for c, v in row.items()} for k, row in figures.items()}
    return dataclasses.replace(model, meta={**model.meta, "figures": rounded})


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
    from capeval.meta_eval import distractor_accuracy
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


def default_coco_source() -> Path | None:
    """The SPICE jar of the installed pycocoevalcap 1.2 (it bundles the COCO captions), or ``None``."""
    try:
        import pycocoevalcap  # type: ignore[import-untyped]
    except ImportError:
        return None
    path = Path(list(pycocoevalcap.__path__)[0]).joinpath(*SPICE_JAR)
    return path if path.exists() else None
