"""The ``nneval-v2`` recipe: human judgments, self-made negatives, features, training, figures.

1. :func:`load_corpora` reads every human judgment set of the recipe (Flickr8K-Expert and
   Flickr8K-CF dev halves from the original files, THumB 1.0, PASCAL-50S) and builds
   self-made negatives from COCO val2014 captions (mismatched image, word swap, FOIL-like
   object substitution, truncation); each becomes a :class:`Corpus` with image keys.
2. :func:`corpus_matrix` computes (and caches on disk) its feature matrix
   (:mod:`capeval.metrics.learned.features_v2`).
3. :func:`fit` trains the scorer (:mod:`capeval.metrics.learned.nneval_v2`): every judgment
   becomes a weighted pair (better, worse) inside one corpus (graded ratings and yes-fractions:
   seeded random pairs; PASCAL-50S votes; correct caption > corrupted), under a logistic loss;
   several seeded member networks are merged into one network giving their mean output, and
   boosted trees (:mod:`capeval.metrics.learned.trees`) on the same pairs are blended with it.
4. :func:`cross_validate` gives out-of-fold scores with image-disjoint folds, and
   :func:`figures` the published protocols' figures for the model and every classic metric.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("capeval")

__all__ = [
    "DEFAULT_SEED",
    "N_FOLDS",
    "Corpus",
    "corpus_matrix",
    "cross_validate",
    "figures",
    "fit",
    "load_corpora",
]

DEFAULT_SEED = 0
N_FOLDS = 5
#: References per PASCAL-50S pair (the first five of its 50; the published tables use 5).
PASCAL_N_REFERENCES = 5
#: COCO val2014 images used for self-made negatives, and references per item.
N_COCO_NEGATIVE_IMAGES = 600
COCO_N_REFERENCES = 4


@dataclass(frozen=True)
class Corpus:
    """Items scored together, with their judgments.

    Attributes:
        name: Corpus name (``expert``, ``cf``, ``thumb``, ``pascal``, ``negatives``).
        candidates: Raw candidate captions.
        references: Raw references per item.
        images: Image key of each item (folds are drawn per image).
        target: Graded target in 0..1 per item (NaN when the corpus has none).
        ratings: Raw human ratings ``(n, k)`` used by the figures (Expert: 3 per item).
        pairs: ``(m, 2)`` item indices ``(preferred, other)`` for pairwise losses.
        pair_weight: Weight of each pair.
        extra: Other per-item columns (PASCAL categories, THumB systems).
    """

    name: str
    candidates: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    images: tuple[str, ...]
    target: np.ndarray
    ratings: np.ndarray
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    pair_weight: np.ndarray = field(default_factory=lambda: np.zeros(0))
    extra: Mapping[str, Any] = field(default_factory=dict)


def _flickr(data_dir: Path, kind: str) -> Corpus:
    """Flickr8K-Expert/CF dev half, clipscore protocol: all 5 references, candidates that are
    one of their own image's references dropped."""
    from capeval.meta_eval import load_flickr8k

    raw = data_dir / "flickr8k-raw-dev"
    name = "ExpertAnnotations.txt" if kind == "expert" else "CrowdFlowerAnnotations.txt"
    j = load_flickr8k(raw / name, raw / "Flickr8k.token.txt", kind=kind, exclude_candidate=False)
    keep = [i for i in range(len(j)) if j.candidates[i] not in j.references[i]]
    j = j.select(keep)
    ratings = np.asarray(j.ratings, dtype=np.float64)
    if kind == "expert":
        target = (ratings.mean(axis=1) - 1.0) / 3.0
    else:
        target = ratings[:, 0].copy()
    return Corpus(
        kind,
        tuple(j.candidates),
        tuple(tuple(r) for r in j.references),
        tuple(f"flickr:{i}" for i in j.image_ids),
        target,
        ratings,
    )


def _thumb(data_dir: Path) -> Corpus:
    from capeval.meta_eval import load_thumb

    d = data_dir / "thumb"
    j = load_thumb(d / "mscoco_THumB-1.0.jsonl", d / "mscoco_references.json")
    ratings = np.asarray(j.ratings, dtype=np.float64)
    target = np.clip((ratings[:, 0] - 1.0) / 4.0, 0.0, 1.0)
    return Corpus(
        "thumb",
        tuple(j.candidates),
        tuple(tuple(r) for r in j.references),
        tuple(f"coco:{i}" for i in j.image_ids),
        target,
        ratings,
        extra={"systems": tuple(j.systems or ())},
    )


def _pascal(data_dir: Path, n_references: int = PASCAL_N_REFERENCES) -> Corpus:
    """PASCAL-50S pairs with the votes of ``pair_pascal.mat`` (``result``: 1 = first preferred)."""
    import scipy.io as sio

    d = data_dir / "pascal50s"
    pairs = sio.loadmat(d / "pair_pascal.mat")
    refs_mat = sio.loadmat(d / "pascal50S.mat")["refs"].reshape(-1)
    refs: dict[str, tuple[str, ...]] = {}
    for entry in refs_mat:
        image = str(np.asarray(entry["image"]).reshape(-1)[0]).strip()
        sents = [str(np.asarray(s).reshape(-1)[0]).strip() for s in np.asarray(entry["sent"]).reshape(-1)]
        refs[image] = tuple(sents[:n_references])
    entries = pairs["new_input"].reshape(-1)
    cats = pairs["category"].reshape(-1)
    results = pairs["result"].reshape(-1)
    cands: list[str] = []
    references: list[tuple[str, ...]] = []
    images: list[str] = []
    prefs: list[list[int]] = []
    weights: list[float] = []
    categories: list[str] = []
    votes: list[tuple[int, int]] = []
    names = {1: "HC", 2: "HI", 3: "HM", 4: "MM"}
    for k, entry in enumerate(entries):
        image = str(np.asarray(entry["name"]).reshape(-1)[0]).strip()
        a = str(np.asarray(entry["sent1"]).reshape(-1)[0]).strip()
        b = str(np.asarray(entry["sent2"]).reshape(-1)[0]).strip()
        v = np.asarray(results[k]["result"]).reshape(-1).astype(int)
        va, vb = int((v == 1).sum()), int((v != 1).sum())
        ia = len(cands)
        cands += [a, b]
        references += [refs[image], refs[image]]
        images += [f"pascal:{image}"] * 2
        categories.append(names[int(cats[k])])
        votes.append((va, vb))
        if va != vb:
            prefs.append([ia, ia + 1] if va > vb else [ia + 1, ia])
            weights.append(abs(va - vb) / (va + vb))
    return Corpus(
        "pascal",
        tuple(cands),
        tuple(references),
        tuple(images),
        np.full(len(cands), np.nan),
        np.asarray(votes, dtype=np.float64),
        np.asarray(prefs, dtype=np.int64),
        np.asarray(weights),
        extra={"categories": tuple(categories)},
    )


#: Objects for FOIL-like substitutions (COCO categories, grouped so a swap stays plausible).
FOIL_GROUPS: tuple[tuple[str, ...], ...] = (
    ("dog", "cat", "horse", "cow", "sheep", "bear", "elephant", "zebra", "giraffe", "bird"),
    ("man", "woman", "boy", "girl", "child", "person"),
    ("car", "truck", "bus", "train", "motorcycle", "bicycle", "boat", "airplane"),
    ("pizza", "sandwich", "cake", "donut", "banana", "apple", "orange", "broccoli", "hot dog"),
    ("table", "bed", "couch", "chair", "bench", "toilet", "sink"),
    ("kitchen", "street", "beach", "field", "room", "park", "road", "snow", "water", "grass"),
)


def _negatives(coco_source: Path, exclude: set[int], seed: int) -> Corpus:
    """Self-made pairs on COCO val2014: a human caption over its corrupted versions."""
    from capeval.metrics.learned.embeddings import read_coco_captions

    captions = read_coco_captions(coco_source, "val2014")
    eligible = sorted(i for i, c in captions.items() if i not in exclude and len(c) > COCO_N_REFERENCES)
    rng = np.random.default_rng(seed)
    chosen = sorted(np.asarray(eligible)[rng.permutation(len(eligible))[:N_COCO_NEGATIVE_IMAGES]].tolist())
    swap = {w: g for g in FOIL_GROUPS for w in g}
    cands: list[str] = []
    references: list[tuple[str, ...]] = []
    images: list[str] = []
    pairs: list[list[int]] = []
    kinds: list[str] = []
    for k, image in enumerate(chosen):
        caps = captions[image]
        good = caps[0].strip()
        refs = tuple(c.strip() for c in caps[1 : 1 + COCO_N_REFERENCES])
        words = good.rstrip(".").split()
        variants: list[tuple[str, str]] = []
        other = captions[chosen[(k + 1 + int(rng.integers(len(chosen) - 1))) % len(chosen)]][0].strip()
        variants.append(("mismatched", other))
        if len(words) > 3:
            i = int(rng.integers(len(words) - 1))
            w = list(words)
            w[i], w[i + 1] = w[i + 1], w[i]
            variants.append(("swap", " ".join(w)))
            cut = max(2, len(words) // 2)
            variants.append(("truncation", " ".join(words[:cut])))
        hits = [i for i, w in enumerate(words) if w.lower() in swap]
        if hits:
            i = hits[int(rng.integers(len(hits)))]
            group = [x for x in swap[words[i].lower()] if x != words[i].lower()]
            w = list(words)
            w[i] = group[int(rng.integers(len(group)))]
            variants.append(("foil", " ".join(w)))
        base = len(cands)
        cands.append(good)
        references.append(refs)
        images.append(f"coco:{image}")
        kinds.append("human")
        for kind, text in variants:
            pairs.append([base, len(cands)])
            cands.append(text)
            references.append(refs)
            images.append(f"coco:{image}")
            kinds.append(kind)
    return Corpus(
        "negatives",
        tuple(cands),
        tuple(references),
        tuple(images),
        np.full(len(cands), np.nan),
        np.zeros((len(cands), 0)),
        np.asarray(pairs, dtype=np.int64),
        np.ones(len(pairs)),
        extra={"kinds": tuple(kinds)},
    )


def load_corpora(data_dir: Path, coco_source: Path | None, *, seed: int = DEFAULT_SEED) -> dict[str, Corpus]:
    """Every corpus of the recipe (``negatives`` only when ``coco_source`` is given)."""
    out = {
        "expert": _flickr(data_dir, "expert"),
        "cf": _flickr(data_dir, "crowdflower"),
        "thumb": _thumb(data_dir),
        "pascal": _pascal(data_dir),
    }
    if coco_source is not None:
        thumb_images = set()
        for key in out["thumb"].images:
            digits = "".join(ch for ch in key.rsplit("_", 1)[-1] if ch.isdigit())
            if digits:
                thumb_images.add(int(digits))
        out["negatives"] = _negatives(coco_source, thumb_images, seed)
    return out


def corpus_matrix(corpus: Corpus, cache_dir: Path | None, *, tokenizer: str = "ptb") -> np.ndarray:
    """Feature matrix of a corpus (one CIDEr-D corpus; THumB per system), cached by content."""
    from capeval.metrics.learned.features_v2 import FeatureSetV2, derived_columns
    from capeval.metrics.learned.training import tokenize_corpus

    fs = FeatureSetV2(tokenizer="none")
    groups: dict[str, list[int]] = {}
    systems = corpus.extra.get("systems") or ("",) * len(corpus.candidates)
    for i, s in enumerate(systems):
        groups.setdefault(str(s), []).append(i)
    metric_fp = fs.fingerprint()
    out: np.ndarray | None = None
    for system, idx in groups.items():
        tok = tokenize_corpus(
            f"{corpus.name}{system}",
            [corpus.candidates[i] for i in idx],
            [corpus.references[i] for i in idx],
            tokenizer,
        )
        key = hashlib.sha256(json.dumps([tok.candidates, tok.references, metric_fp]).encode()).hexdigest()[:16]
        path = cache_dir / f"v2metric-{corpus.name}{system}-{key}.npy" if cache_dir else None
        if path is not None and path.exists():
            metric = np.load(path)
        else:
            start = time.perf_counter()
            metric = fs.metric_columns(tok.candidates, tok.references)
            log.info("metric features of %s%s (%d): %.1f s", corpus.name, system, len(idx), time.perf_counter() - start)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                np.save(path, metric)
        block = np.hstack([np.nan_to_num(metric, nan=0.0), derived_columns(tok.candidates, tok.references)])
        if out is None:
            out = np.zeros((len(corpus.candidates), block.shape[1]))
        out[idx] = block
    assert out is not None
    return out


def image_folds(images: Sequence[str], n_folds: int = N_FOLDS, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Fold of each item: images are hashed with the seed, so folds are disjoint by image."""
    out = np.empty(len(images), dtype=np.int64)
    for i, image in enumerate(images):
        h = hashlib.sha256(f"{seed}:{image}".encode()).digest()
        out[i] = int.from_bytes(h[:8], "big") % n_folds
    return out


@dataclass(frozen=True)
class FitConfig:
    """Hyper-parameters of :func:`fit` (recorded in the model), fixed before any evaluation."""

    #: ``tanh`` units of each member network.
    hidden: int = 8
    l2: float = 1e-3
    max_iter: int = 400
    pairs_per_corpus: int = 200000
    #: Member networks (member ``m`` draws its pairs and initialisation with seed
    #: ``seed * members + m``); their mean output is one network (:func:`merge_networks`).
    members: int = 3
    #: Loss weight of each corpus (mean pairwise loss per corpus, then this weighted sum).
    weights: tuple[tuple[str, float], ...] = (
        ("expert", 1.0),
        ("cf", 2.0),
        ("thumb", 1.0),
        ("pascal", 1.0),
        ("negatives", 0.5),
    )
    seed: int = DEFAULT_SEED
    #: Boosted trees blended with the networks (:mod:`capeval.metrics.learned.trees`, on the
    #: pairs of member 0); 0: networks only.
    trees: int = 300
    tree_depth: int = 3
    tree_learning_rate: float = 0.1
    #: How the networks' and the trees' outputs are combined: ``"mean"`` (their mean) or
    #: ``"standardised"`` (each divided by its standard deviation on the training items first).
    blend: str = "standardised"


def _graded_pairs(target: np.ndarray, rows: np.ndarray, n_pairs: int, rng: np.random.Generator) -> np.ndarray:
    """Seeded random pairs ``(better, worse)`` among ``rows`` with different targets."""
    if rows.size < 2:
        return np.zeros((0, 2), dtype=np.int64)
    a = rows[rng.integers(rows.size, size=n_pairs)]
    b = rows[rng.integers(rows.size, size=n_pairs)]
    keep = target[a] != target[b]
    a, b = a[keep], b[keep]
    better = np.where(target[a] > target[b], a, b)
    worse = np.where(target[a] > target[b], b, a)
    return np.column_stack([better, worse])


def training_pairs(
    corpora: Mapping[str, Corpus], masks: Mapping[str, np.ndarray], config: FitConfig
) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    """Per corpus: name, ``(better, worse)`` pairs among its masked items, pair weights, corpus weight."""
    rng = np.random.default_rng(config.seed)
    weights = dict(config.weights)
    out = []
    for name in sorted(corpora):
        c = corpora[name]
        mask = masks[name]
        if np.isfinite(c.target).any():
            rows = np.flatnonzero(mask & np.isfinite(c.target))
            p = _graded_pairs(c.target, rows, config.pairs_per_corpus, rng)
            pw = np.abs(c.target[p[:, 0]] - c.target[p[:, 1]]) if len(p) else np.zeros(0)
        else:
            keep = mask[c.pairs[:, 0]] & mask[c.pairs[:, 1]] if len(c.pairs) else np.zeros(0, dtype=bool)
            p, pw = c.pairs[keep], c.pair_weight[keep]
        if len(p) and weights.get(name, 0.0) > 0:
            out.append((name, p, pw / pw.mean(), weights[name]))
    return out


def fit(
    matrices: Mapping[str, np.ndarray],
    corpora: Mapping[str, Corpus],
    masks: Mapping[str, np.ndarray] | None = None,
    config: FitConfig | None = None,
    *,
    features: Sequence[str] | None = None,
) -> Any:
    """Train a :class:`~capeval.metrics.learned.nneval_v2.ScorerModel` on the masked items.

    Every judgment becomes a weighted pair ``(better, worse)`` inside one corpus (graded ratings
    and yes-fractions: seeded random pairs with different ratings, weighted by the difference;
    PASCAL-50S: the majority preference, weighted by its margin; self-made negatives: the human
    caption over each corrupted version); the loss is the mean logistic loss
    ``log(1 + exp(-(s_better - s_worse)))`` per corpus, summed with the corpus weights, plus L2
    on the weights. Full-batch L-BFGS from a seeded initialisation: deterministic. With
    ``config.members`` > 1, that many networks are trained, each on its own seeded pairs and
    initialisation, and merged into one network giving their mean output (:func:`merge_networks`).
    With ``config.trees`` > 0, boosted trees are fitted on member 0's pairs and the model's
    output is ``a * network + b * trees`` (``config.blend``: ``a = b = 1/2``, or each divided by
    its standard deviation on the training items).
    """
    from capeval.metrics.learned.features_v2 import FEATURES
    from capeval.metrics.learned.nneval_v2 import ScorerModel

    cfg = config or FitConfig()
    names = sorted(corpora)
    masks = masks or {n: np.ones(len(corpora[n].candidates), dtype=bool) for n in names}
    offsets: dict[str, int] = {}
    blocks = []
    pos = 0
    for n in names:
        offsets[n] = pos
        blocks.append(matrices[n])
        pos += len(matrices[n])
    x = np.vstack(blocks)
    train_rows = np.concatenate([masks[n] for n in names])
    mean = x[train_rows].mean(axis=0)
    scale = x[train_rows].std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = (x - mean) / scale
    sub = {n: corpora[n] for n in names}
    fits = []
    first_terms: list[tuple[np.ndarray, np.ndarray, float]] = []
    for m in range(max(cfg.members, 1)):
        member = dataclasses.replace(cfg, seed=cfg.seed * max(cfg.members, 1) + m)
        terms = [(p + offsets[n], pw, cw) for n, p, pw, cw in training_pairs(sub, masks, member)]
        first_terms = first_terms or terms
        fits.append(_fit_network(z, terms, member))
    params = merge_networks([f[0] for f in fits])
    meta = {
        "name": "nneval-v2",
        "seed": cfg.seed,
        "config": {k: v for k, v in cfg.__dict__.items()},
        "iterations": [f[1] for f in fits],
        "loss": float(np.mean([f[2] for f in fits])),
    }
    model = ScorerModel(tuple(features or FEATURES), mean, scale, params, meta)
    if cfg.trees <= 0:
        return model
    from capeval.metrics.learned.nneval_v2 import forward
    from capeval.metrics.learned.trees import TreeConfig, fit_trees

    tcfg = TreeConfig(n_trees=cfg.trees, depth=cfg.tree_depth, learning_rate=cfg.tree_learning_rate)
    trees = fit_trees(x, train_rows, first_terms, tcfg)
    if cfg.blend == "mean":
        blend = np.array([0.5, 0.5])
    elif cfg.blend == "standardised":
        sd_net = float(forward(params, z[train_rows]).std())
        sd_trees = float(trees.predict(x[train_rows]).std())
        blend = np.array([0.5 / max(sd_net, 1e-12), 0.5 / max(sd_trees, 1e-12)])
    else:
        raise ValueError(f"unknown blend {cfg.blend!r} (expected 'mean' or 'standardised')")
    return dataclasses.replace(model, trees=trees, blend=blend)


def _fit_network(
    z: np.ndarray, terms: Sequence[tuple[np.ndarray, np.ndarray, float]], cfg: FitConfig
) -> tuple[list[np.ndarray], int, float]:
    """One network on standardised inputs ``z``: full-batch L-BFGS from a seeded start.

    Returns its parameters ``[W1, b1, w2, b2]``, the iterations run and the final loss.
    """
    from scipy.optimize import minimize

    d, h = z.shape[1], cfg.hidden
    rng = np.random.default_rng(cfg.seed)
    shapes = [(d, h), (h,), (h + d,), ()]
    init = [rng.standard_normal((d, h)) * np.sqrt(1.0 / d), np.zeros(h), np.zeros(h + d), np.zeros(())]
    sizes = [int(np.prod(s)) for s in shapes]

    def unpack(theta: np.ndarray) -> list[np.ndarray]:
        out, p = [], 0
        for s, m in zip(shapes, sizes, strict=True):
            out.append(theta[p : p + m].reshape(s))
            p += m
        return out

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w1, b1, w2, b2 = unpack(theta)
        hid = np.tanh(z @ w1 + b1)
        feats = np.hstack([hid, z])
        s = feats @ w2 + b2
        loss = 0.0
        gs = np.zeros_like(s)
        for p, pw, cw in terms:
            margin = s[p[:, 0]] - s[p[:, 1]]
            loss += cw * float((pw * np.logaddexp(0.0, -margin)).mean())
            g = -cw * pw / (1.0 + np.exp(margin)) / len(p)
            gs += np.bincount(p[:, 0], weights=g, minlength=len(s))
            gs -= np.bincount(p[:, 1], weights=g, minlength=len(s))
        loss += cfg.l2 * (float((w1**2).sum()) + float((w2**2).sum()))
        g_w2 = feats.T @ gs + 2 * cfg.l2 * w2
        g_b2 = np.array(gs.sum())
        dh = np.outer(gs, w2[:h]) * (1.0 - hid**2)
        g_w1 = z.T @ dh + 2 * cfg.l2 * w1
        g_b1 = dh.sum(axis=0)
        return loss, np.concatenate([g_w1.ravel(), g_b1, g_w2, g_b2.ravel()])

    theta0 = np.concatenate([a.ravel() for a in init])
    res = minimize(objective, theta0, jac=True, method="L-BFGS-B", options={"maxiter": cfg.max_iter})
    params = [np.array(p, dtype=np.float64) for p in unpack(res.x)]
    return params, int(res.nit), float(res.fun)


def merge_networks(members: Sequence[Sequence[np.ndarray]]) -> list[np.ndarray]:
    """One network whose output is the mean output of ``members`` (same inputs, any widths).

    The hidden units are placed side by side with their output weights divided by the number
    of members; the skip weights and the bias are averaged.
    """
    k = len(members)
    w1 = np.hstack([m[0] for m in members])
    b1 = np.concatenate([m[1] for m in members])
    hidden = np.concatenate([m[2][: m[0].shape[1]] / k for m in members])
    skip = np.mean([m[2][m[0].shape[1] :] for m in members], axis=0)
    b2 = np.array(np.mean([float(m[3]) for m in members]))
    return [w1, b1, np.concatenate([hidden, skip]), b2]


def cross_validate(
    matrices: Mapping[str, np.ndarray],
    corpora: Mapping[str, Corpus],
    config: FitConfig | None = None,
    *,
    n_folds: int = N_FOLDS,
    columns: Sequence[int] | None = None,
) -> dict[str, np.ndarray]:
    """Out-of-fold scores of every item: for each image-disjoint fold, a model trained on the others."""
    cfg = config or FitConfig()
    names = sorted(corpora)
    cols = list(columns) if columns is not None else None
    mats = {n: matrices[n][:, cols] if cols is not None else matrices[n] for n in names}
    folds = {n: image_folds(corpora[n].images, n_folds, cfg.seed) for n in names}
    out = {n: np.zeros(len(corpora[n].candidates)) for n in names}
    from capeval.metrics.learned.features_v2 import FEATURES

    feats = [FEATURES[i] for i in cols] if cols is not None else None
    for k in range(n_folds):
        model = fit(mats, corpora, {n: folds[n] != k for n in names}, cfg, features=feats)
        for n in names:
            held = folds[n] == k
            out[n][held] = model.logits(mats[n][held])
    return out


def pascal_accuracy(scores: np.ndarray, corpus: Corpus) -> dict[str, float]:
    """PASCAL-50S accuracy per category and their mean (metric ties count half; vote ties skipped)."""
    a, b = scores[0::2], scores[1::2]
    va, vb = corpus.ratings[:, 0], corpus.ratings[:, 1]
    cats = np.asarray(corpus.extra["categories"])
    human = np.sign(va - vb)
    metric = np.sign(a - b)
    credit = np.where(metric == 0, 0.5, (metric == human).astype(float))
    out = {}
    for cat in ("HC", "HI", "HM", "MM"):
        m = (cats == cat) & (human != 0)
        out[cat] = float(credit[m].mean())
    out["mean"] = float(np.mean([out[c] for c in ("HC", "HI", "HM", "MM")]))
    return out


def figures(scores: Mapping[str, np.ndarray], corpora: Mapping[str, Corpus]) -> dict[str, float]:
    """The published protocols' figures of one metric's scores on every corpus."""
    from capeval.meta_eval import correlate

    out: dict[str, float] = {}
    if "expert" in scores:
        out["expert_tau_c"] = float(
            correlate(scores["expert"], corpora["expert"].ratings, method="kendall-c").coefficient
        )
    if "cf" in scores:
        out["cf_tau_b"] = float(correlate(scores["cf"], corpora["cf"].ratings[:, 0], method="kendall-b").coefficient)
    if "thumb" in scores:
        out["thumb_tau_c"] = float(
            correlate(scores["thumb"], corpora["thumb"].ratings[:, 0], method="kendall-c").coefficient
        )
    if "pascal" in scores:
        for k, v in pascal_accuracy(scores["pascal"], corpora["pascal"]).items():
            out[f"pascal_{k}"] = v
    if "negatives" in scores and len(corpora["negatives"].pairs):
        p = corpora["negatives"].pairs
        s = scores["negatives"]
        out["negatives_acc"] = float(np.mean(np.where(s[p[:, 0]] == s[p[:, 1]], 0.5, s[p[:, 0]] > s[p[:, 1]])))
    return out


def build(
    data_dir: Path, coco_source: Path | None, *, cache_dir: Path | None = None, seed: int = DEFAULT_SEED
) -> tuple[dict[str, Corpus], dict[str, np.ndarray]]:
    """The recipe's corpora and their feature matrices."""
    corpora = load_corpora(data_dir, coco_source, seed=seed)
    return corpora, {n: corpus_matrix(c, cache_dir) for n, c in corpora.items()}


def train_nneval_v2(
    corpora: Mapping[str, Corpus],
    matrices: Mapping[str, np.ndarray],
    config: FitConfig | None = None,
    *,
    cv_figures: Mapping[str, Mapping[str, float]] | None = None,
) -> Any:
    """The shipped model: :func:`fit` on every item, with data and figures in ``meta``."""
    from capeval.metrics.learned.features_v2 import FeatureSetV2

    cfg = config or FitConfig()
    model = fit(matrices, corpora, None, cfg)
    meta = dict(model.meta)
    meta["data"] = {
        n: {"items": len(c.candidates), "images": len(set(c.images)), "pairs": int(len(c.pairs))}
        for n, c in sorted(corpora.items())
    }
    meta["feature_config"] = FeatureSetV2(tokenizer="none").fingerprint()
    if cv_figures is not None:
        meta["figures"] = {k: {f: round(v, 6) for f, v in row.items()} for k, row in cv_figures.items()}
    return dataclasses.replace(model, meta=meta)
