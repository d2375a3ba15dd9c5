"""Training and ranking the systems of Hodosh et al. (2013) end to end, with dev-set model selection.

:func:`run_systems` takes the Flickr8K splits and the images' visual words, and for each system
writes the score matrices that ``capeval rank`` reads (images x captions of the evaluation
split, captions image-major, five per image):

* ``<system>.annotation.npy``: higher is better along each row (captions for an image);
* ``<system>.search.npy``: higher is better down each column (images for a caption).

For the nearest-neighbour baseline both are the same matrix. A KCCA system trains one model
per point of its :class:`KCCAGrid` (image-kernel power, text-kernel diagonal shift, kappa,
dimensions), scores every model on the dev split, keeps the ``top_models`` best and
aggregates their rankings on the evaluation split by Borda count, separately for the two
directions (so the two files differ). ``manifest.json`` records the images, caption ids,
settings and the selected models with their dev scores.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.ranking.borda import borda_aggregate
from capeval.ranking.systems import kernels as K
from capeval.ranking.systems.data import CAPTIONS_PER_IMAGE, Flickr8K, Split
from capeval.ranking.systems.image_features import ImageFeatures
from capeval.ranking.systems.kcca import KCCA, KernelEigen, cosine_scores, fit_kcca
from capeval.ranking.systems.nn import idf_weights, nearest_neighbour_scores

__all__ = [
    "SYSTEMS",
    "TEXT_KERNELS",
    "TRI_DECAY",
    "KCCAGrid",
    "TextKernelSpec",
    "block_ranks",
    "run_systems",
    "text_kernel_matrices",
]

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
log_progress = Callable[[str], None]


@dataclass(frozen=True)
class TextKernelSpec:
    """A text kernel: its feature map, training documents and weighting.

    Attributes:
        kind: ``bow``, ``tagrank``, ``tri`` or ``trisem``.
        captions: Captions per training document: 1 (the first caption of each image) or 5.
        weighting: ``none``, ``idf`` or ``sqrt-idf`` (word or n-gram weights, from the
            training captions).
        decay: TRI and TRI-SEM: the blended spectrum kernel's per-word decay (order ``n``
            weighted by ``decay ** (2 n)``, one normalization); ``None``: each order's cosine,
            averaged.
    """

    kind: str
    captions: int
    weighting: str = "none"
    decay: float | None = None


#: The blended TRI kernels' per-word decay, chosen on the dev split (docs/ranking.md).
TRI_DECAY = 0.3
#: The text kernels of Table 3 (and the sqrt-IDF TRI of Table 11), by system name.
TEXT_KERNELS = {
    "bow1": TextKernelSpec("bow", 1, "idf"),
    "bow5": TextKernelSpec("bow", 5, "idf"),
    "tagrank": TextKernelSpec("tagrank", 5, "idf"),
    "tri5": TextKernelSpec("tri", 5, "idf", TRI_DECAY),
    "tri5-sqrtidf": TextKernelSpec("tri", 5, "sqrt-idf", TRI_DECAY),
    "tri5sem": TextKernelSpec("trisem", 5, "idf", TRI_DECAY),
}
#: Every system :func:`run_systems` knows, in Table 3's order (plus the sqrt-IDF TRI5).
SYSTEMS = ("nn", "bow1", "bow5", "tagrank", "tri5", "tri5sem", "tri5-sqrtidf")


@dataclass(frozen=True)
class KCCAGrid:
    """The KCCA models trained per text kernel, and how many of them are aggregated.

    Attributes:
        kappas: Regularization values (kernels have unit diagonal before centring).
        dims: Numbers of canonical directions used for the cosine.
        image_powers: Elementwise powers of the averaged image kernel.
        text_shifts: Added to the text kernel's diagonal (the "diagonal factor" minus 1).
        image_rank: Eigenpairs kept of each powered image kernel (``image_decomposition="exact"``;
            ``None``: every positive one), or pivots of its incomplete Cholesky factor.
        text_rank: Pivots of the text kernels' incomplete Cholesky factors.
        image_decomposition: ``exact``: the whole training image kernel is computed once
            (unpowered, cached) and each power is decomposed exactly; ``cholesky``: a pivoted
            incomplete Cholesky factor of ``image_rank`` pivots, computed column by column (for
            training sets too large for an ``n x n`` matrix).
        top_models: Models (best on dev) whose rankings are Borda-aggregated.
        ngram_order: Longest n-gram of the TRI kernels.
        sem_neighbours: Similar words kept per word for TRI-SEM.
        sem_threshold: Smallest lexical similarity kept for TRI-SEM.
        sem_min_count: Training occurrences a word needs to get lexical neighbours.
        lexical: The lexical similarities averaged for TRI-SEM (``distributional``,
            ``alignment``, ``lin``); Lin's is left out, and the manifest says so, when no
            WordNet 3.0 database is installed.
        lin_information_content: ``semcor`` or ``captions`` (see
            :func:`~capeval.ranking.systems.lexical.lin_similarity`).
        lin_senses: Senses per part of speech of each word that Lin's similarity compares.
    """

    kappas: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0, 10.0)
    dims: tuple[int, ...] = (16, 32, 64, 128, 256, 512)
    image_powers: tuple[int, ...] = (2, 3)
    text_shifts: tuple[float, ...] = (0.0, 1.0)
    image_rank: int | None = None
    text_rank: int = 1000
    image_decomposition: str = "exact"
    top_models: int = 15
    ngram_order: int = 3
    sem_neighbours: int = 5
    sem_threshold: float = 0.2
    sem_min_count: int = 5
    lexical: tuple[str, ...] = field(default=("distributional", "alignment", "lin"))
    lin_information_content: str = "semcor"
    lin_senses: int = 3


def _documents(split: Split, per_doc: int) -> list[list[str]]:
    return [list(caps[:per_doc]) for caps in split.lemmas]


def text_kernel_matrices(
    spec: TextKernelSpec, train: Split, others: Sequence[Split], grid: KCCAGrid | None = None
) -> tuple[F64, list[F64], dict[str, Any]]:
    """The training text kernel and each other split's caption rows against the training documents.

    Returns:
        ``(train kernel (n_train, n_train), [rows (n_captions, n_train) per split in others], info)``.
    """
    grid = grid or KCCAGrid()
    docs = _documents(train, spec.captions)
    queries = [[[c] for c in s.flat_lemmas()] for s in others]
    info: dict[str, Any] = {}
    all_train_captions = train.flat_lemmas()
    if spec.kind == "bow":
        df = K.document_frequencies(all_train_captions, 1)
        vocab = K.Vocabulary()
        x = K.bow_features(docs, vocab, weighting=spec.weighting, df=df)
        ys = [K.bow_features(q, vocab, weighting=spec.weighting, df=df, grow=False) for q in queries]
        return _dense(x @ x.T), [_dense(y @ x.T) for y in ys], info
    if spec.kind == "tagrank":
        df = K.document_frequencies(all_train_captions, 1)
        vocab = K.Vocabulary()
        x = K.tagrank_features(docs, vocab, weighting=spec.weighting, df=df)
        ys = [K.tagrank_features(q, vocab, grow=False, weighting=spec.weighting, df=df) for q in queries]
        return _dense(x @ x.T), [_dense(y @ x.T) for y in ys], info
    if spec.kind in ("tri", "trisem"):
        df = K.document_frequencies(all_train_captions, grid.ngram_order)
        vocabs = [K.Vocabulary() for _ in range(grid.ngram_order)]
        x = K.ngram_features(docs, vocabs, weighting=spec.weighting, df=df)
        ys = [K.ngram_features(q, vocabs, weighting=spec.weighting, df=df) for q in queries]
        # the queries' own n-grams grew the vocabularies: give every matrix the final widths
        x = [_widen(m, len(v)) for m, v in zip(x, vocabs, strict=True)]
        ys = [[_widen(m, len(v)) for m, v in zip(y, vocabs, strict=True)] for y in ys]
        if spec.kind == "tri":
            if spec.decay is None:
                return K.ngram_kernel(x, x), [K.ngram_kernel(y, x) for y in ys], info
            d = spec.decay
            return K.blended_ngram_kernel(x, x, d), [K.blended_ngram_kernel(y, x, d) for y in ys], info
        from capeval.ranking.systems import lexical

        words = lexical.similarity_vocabulary(all_train_captions, grid.sem_min_count)
        mats: list[F64 | None] = []
        used = []
        for name in grid.lexical:
            if name == "distributional":
                mats.append(lexical.distributional_similarity(all_train_captions, words))
            elif name == "alignment":
                mats.append(lexical.alignment_similarity(_documents(train, CAPTIONS_PER_IMAGE), words))
            elif name == "lin":
                mats.append(
                    lexical.lin_similarity(
                        all_train_captions,
                        words,
                        information_content=grid.lin_information_content,
                        senses=grid.lin_senses,
                    )
                )
            else:
                raise ValueError(f"unknown lexical similarity {name!r}")
            if mats[-1] is not None:
                used.append(name)
        sim = lexical.combine_similarities(mats, neighbours=grid.sem_neighbours, threshold=grid.sem_threshold)
        info.update(lexical_similarities=used, similarity_words=len(words), similarity_pairs=int(sim.nnz - len(words)))
        train_k = K.semantic_ngram_kernel(x, x, vocabs, sim, words, decay=spec.decay)
        return train_k, [K.semantic_ngram_kernel(y, x, vocabs, sim, words, decay=spec.decay) for y in ys], info
    raise ValueError(f"unknown text kernel kind {spec.kind!r}")


def _widen(m: Any, width: int) -> Any:
    """A CSR matrix with ``width`` columns (new columns empty)."""
    from scipy import sparse

    return sparse.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], max(width, 1)))


def _dense(m: Any) -> F64:
    out: F64 = np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=np.float64)
    return out


def block_ranks(scores: Any, per_image: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Annotation and search ranks for the block layout (caption ``c`` belongs to image ``c // per_image``).

    The same ranks as :func:`capeval.ranking.evaluate_ranking` with pessimistic ties, by direct
    counting (a gold item is placed after every item scoring at least as high), without
    building the relevance matrix: model selection evaluates hundreds of models.

    Returns:
        ``(annotation ranks (n_images,), search ranks (n_captions,))``.
    """
    s = np.asarray(scores, dtype=np.float64)
    n_images, n_captions = s.shape
    if n_captions != n_images * per_image:
        raise ValueError(f"{n_captions} captions are not {per_image} per image for {n_images} images")
    own = s.reshape(n_images, n_images, per_image)[np.arange(n_images), np.arange(n_images)]  # (images, per)
    best = own.max(axis=1)
    # annotation: captions scoring >= the best gold caption, minus the gold ones among them, plus 1
    annotation = (s >= best[:, None]).sum(axis=1) - (own >= best[:, None]).sum(axis=1) + 1
    gold = own.reshape(-1)  # score of each caption with its own image
    search = (s >= gold[None, :]).sum(axis=0)  # its own image included: rank = count of images >= it
    return annotation.astype(np.int64), search.astype(np.int64)


def _dev_score(scores: F64, per_image: int) -> tuple[float, dict[str, Any]]:
    """Model-selection criterion: mean over both directions of (R@1 + R@5 + R@10) / 3."""
    total = 0.0
    detail: dict[str, Any] = {}
    for task, ranks in zip(("annotation", "search"), block_ranks(scores, per_image), strict=True):
        recall = {k: float(np.mean(ranks <= k)) for k in (1, 5, 10)}
        total += sum(recall.values()) / 3
        detail[task] = {"R@1": recall[1], "R@5": recall[5], "R@10": recall[10], "median": float(np.median(ranks))}
    return total / 2, detail


def _save(path: Path, matrix: npt.NDArray[Any]) -> None:
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, matrix)
    os.replace(tmp, path)


def _cached(cache: Path | None, name: str, make: Callable[[], F64]) -> F64:
    if cache is None:
        return make()
    path = cache / f"{name}.npy"
    if path.exists():
        out: F64 = np.load(path)
        return out
    value = make()
    cache.mkdir(parents=True, exist_ok=True)
    _save(path, value)
    return value


def _cached_eigen(cache: Path | None, name: str, make: Callable[[], KernelEigen]) -> KernelEigen:
    path = None if cache is None else cache / f"{name}.npz"
    if path is not None and path.exists():
        return KernelEigen.load(path)
    eigen = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        eigen.save(tmp)
        os.replace(tmp, path)
    return eigen


def _key(*parts: Any) -> str:
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def text_kernels_cached(
    system: str,
    data: Flickr8K,
    evaluate: str,
    grid: KCCAGrid,
    cache: Path | None,
    spec: TextKernelSpec | None = None,
) -> tuple[KernelEigen, F64, F64, dict[str, Any]]:
    """A KCCA system's text side: the training kernel's factor, dev and evaluated caption rows, info.

    The rows hold kernel values against the factor's pivots only. Cached under ``cache`` by the
    system's settings and the split image lists. ``spec`` defaults to ``TEXT_KERNELS[system]``.
    """
    spec = spec or TEXT_KERNELS[system]
    target = data.split(evaluate)
    settings: tuple[Any, ...] = (
        asdict(spec),
        grid.ngram_order,
        grid.sem_neighbours,
        grid.sem_threshold,
        grid.sem_min_count,
    )
    if spec.kind == "trisem" and "lin" in grid.lexical:
        settings += (_lin_source(grid),)
    name = f"text-{system}-" + _key(
        settings, grid.lexical, grid.text_rank, data.train.images, data.dev.images, target.images
    )
    if cache is not None and (cache / f"{name}.json").exists():
        info = json.loads((cache / f"{name}.json").read_text(encoding="utf-8"))
        eigen = KernelEigen.load(cache / f"{name}-factor.npz")
        return eigen, np.load(cache / f"{name}-dev.npy"), np.load(cache / f"{name}-target.npy"), info
    train_k, (dev_rows, target_rows), info = text_kernel_matrices(spec, data.train, [data.dev, target], grid)
    eigen = KernelEigen.from_columns(np.diag(train_k), lambda i: train_k[:, i], grid.text_rank)
    dev_rows = np.ascontiguousarray(dev_rows[:, eigen.columns])
    target_rows = np.ascontiguousarray(target_rows[:, eigen.columns])
    info["pivots"] = int(eigen.columns.size)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        _cached_eigen(cache, f"{name}-factor", lambda: eigen)
        _save(cache / f"{name}-dev.npy", dev_rows)
        _save(cache / f"{name}-target.npy", target_rows)
        (cache / f"{name}.json").write_text(json.dumps(info), encoding="utf-8")
    return eigen, dev_rows, target_rows, info


def _lin_source(grid: KCCAGrid) -> str:
    """What Lin's similarity will be computed from (part of the TRI-SEM cache key)."""
    from capeval.ranking.systems.wordnet import WordNetNotFound, find_wordnet

    try:
        folder = find_wordnet()
    except WordNetNotFound:
        return "lin: no WordNet"
    size = (folder / "data.noun").stat().st_size
    return f"lin: WordNet data.noun {size} bytes, IC {grid.lin_information_content}, {grid.lin_senses} senses"


class _ImageSide:
    """The image kernel of the training images, known column by column (each computed once)."""

    def __init__(self, train: F32) -> None:
        self.train = train
        self.columns: dict[int, F64] = {}
        self.diagonal: F64 = train.sum(axis=1, dtype=np.float64)  # the intersection of a row with itself

    def column(self, i: int, power: int) -> F64:
        if i not in self.columns:
            self.columns[i] = K.intersection_kernel(self.train, self.train[i : i + 1])[:, 0]
        out: F64 = self.columns[i] ** power
        return out


def run_systems(
    data: Flickr8K,
    features: ImageFeatures,
    out_dir: str | os.PathLike[str],
    *,
    systems: Sequence[str] = SYSTEMS[:6],
    evaluate: str = "test",
    grid: KCCAGrid | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
    log: log_progress | None = None,
    text_kernels: dict[str, TextKernelSpec] | None = None,
) -> dict[str, Any]:
    """Train the systems on the training split and rank the ``evaluate`` split; write the matrices.

    Args:
        data: The Flickr8K splits (:func:`~capeval.ranking.systems.data.read_flickr8k`).
        features: Visual words of (at least) every train, dev and evaluated image.
        out_dir: Where the ``.npy`` matrices and ``manifest.json`` go.
        systems: Names from :data:`SYSTEMS`.
        evaluate: ``test`` or ``dev`` (with ``dev``, selection and evaluation use the same split).
        grid: The KCCA grid and TRI-SEM settings.
        cache_dir: Where kernels are cached between runs (keyed by split sizes and features).
        progress: Show progress bars.
        log: Called with one line per step (default: silent).
        text_kernels: More KCCA systems, by name (a text kernel to try next to the paper's:
            ``{"mine": TextKernelSpec("tri", 5, "none", 0.5)}`` with ``systems=["mine"]``).

    Returns:
        The manifest (also written as ``manifest.json``).

    Raises:
        ValueError: on an unknown system or split.
    """
    from tqdm import tqdm

    grid = grid or KCCAGrid()
    say = log or (lambda _msg: None)
    specs = {**TEXT_KERNELS, **(text_kernels or {})}
    if "nn" in (text_kernels or {}):
        raise ValueError("'nn' is the nearest-neighbour baseline, not a text kernel name")
    unknown = [s for s in systems if s != "nn" and s not in specs]
    if unknown:
        raise ValueError(f"unknown system {unknown[0]!r}; known: {', '.join([*SYSTEMS, *(text_kernels or {})])}")
    if grid.image_decomposition not in ("exact", "cholesky"):
        raise ValueError(f"image_decomposition must be 'exact' or 'cholesky', got {grid.image_decomposition!r}")
    train, dev, target = data.train, data.dev, data.split(evaluate)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(cache_dir) / "kernels" if cache_dir is not None else None
    # the training kernel and its decompositions depend on the training images only; a split's
    # rows on that split too (a dev-only run reuses a test run's training decompositions)
    fingerprint = features.config.fingerprint()
    image_key = "image-" + _key(fingerprint, train.images)
    row_keys = {
        name: "image-" + _key(fingerprint, train.images, s.images) for name, s in (("dev", dev), ("target", target))
    }
    f_train, f_dev, f_target = (K.image_feature_matrix(features.subset(s.images)) for s in (train, dev, target))
    images = _ImageSide(f_train)
    timings: dict[str, float] = {}
    manifest: dict[str, Any] = {
        "split": evaluate,
        "images": list(target.images),
        "captions": target.caption_ids,
        "captions_per_image": CAPTIONS_PER_IMAGE,
        "grid": asdict(grid),
        "visual_words": asdict(features.config),
        "systems": {},
    }
    image_eigen: dict[int, tuple[KernelEigen, F64, F64]] = {}

    def full_rows(split: str) -> F64:
        """Unpowered image-kernel rows of a split against every training image (cached)."""
        rows = {"train": f_train, "dev": f_dev, "target": f_target}[split]
        return _cached(
            cache,
            f"{image_key}-train-full" if split == "train" else f"{row_keys[split]}-rows-full",
            lambda: K.intersection_kernel(rows) if split == "train" else K.intersection_kernel(rows, f_train),
        )

    def image_power(power: int) -> tuple[KernelEigen, F64, F64]:
        """The image kernel to the ``power``: its decomposition, dev and evaluated rows against its columns."""
        if power not in image_eigen:
            begin = time.perf_counter()
            if grid.image_decomposition == "exact":
                name = f"{image_key}-p{power}-exact-r{grid.image_rank or 'all'}"
                eigen = _cached_eigen(
                    cache,
                    name,
                    lambda: KernelEigen.from_kernel(full_rows("train") ** power, grid.image_rank, method="exact"),
                )
                dev_rows = full_rows("dev") ** power
                target_rows = dev_rows if evaluate == "dev" else full_rows("target") ** power
            else:
                name = f"{image_key}-p{power}-r{grid.image_rank or 800}"
                eigen = _cached_eigen(
                    cache,
                    f"{name}-factor",
                    lambda: KernelEigen.from_columns(
                        images.diagonal**power, partial(images.column, power=power), grid.image_rank or 800
                    ),
                )
                pivots = f_train[eigen.columns]
                rows_name = f"-p{power}-r{grid.image_rank or 800}-rows"
                dev_rows = _cached(
                    cache, row_keys["dev"] + rows_name, lambda: K.intersection_kernel(f_dev, pivots) ** power
                )
                target_rows = (
                    dev_rows
                    if evaluate == "dev"
                    else _cached(
                        cache, row_keys["target"] + rows_name, lambda: K.intersection_kernel(f_target, pivots) ** power
                    )
                )
            image_eigen[power] = (eigen, dev_rows, target_rows)
            timings[f"image kernel p={power}"] = time.perf_counter() - begin
            say(
                f"image kernel, power {power}: {eigen.values.size} eigenpairs ({grid.image_decomposition}), "
                f"{timings[f'image kernel p={power}']:.1f} s"
            )
        return image_eigen[power]

    for system in systems:
        start = time.perf_counter()
        if system == "nn":
            img_target = full_rows("target")
            idf = idf_weights(train.flat_lemmas())
            captions = target.flat_lemmas()
            scores = nearest_neighbour_scores(img_target, train.lemmas, captions, idf)
            _save(out / "nn.annotation.npy", scores)
            _save(out / "nn.search.npy", scores)
            manifest["systems"]["nn"] = {"kind": "nearest neighbour (NN5, IDF-weighted F1)"}
        else:
            spec = specs[system]
            text_eigen, text_dev, text_target, info = text_kernels_cached(system, data, evaluate, grid, cache, spec)
            say(f"{system}: text kernels {time.perf_counter() - start:.1f} s")
            models = []
            dmax = max(grid.dims)
            # eigen-coordinates do not depend on the KCCA settings: one product per kernel, not per model
            text_dev_coords = text_eigen.coordinates(text_dev)
            crosses: dict[int, F64] = {}  # per power: the eigenvector products every fit of it shares
            for power in grid.image_powers:
                ie, img_dev_rows, _ = image_power(power)
                img_dev_coords = ie.coordinates(img_dev_rows)
                cross = crosses[power] = ie.vectors.T @ text_eigen.vectors
                settings = [(s, k) for s in grid.text_shifts for k in grid.kappas]
                for shift, kappa in tqdm(settings, desc=f"{system} KCCA p={power}", disable=not progress, leave=False):
                    model = fit_kcca(ie, text_eigen, kappa=kappa, dims=dmax, text_shift=shift, cross=cross)
                    pi = img_dev_coords @ model.image_weights
                    pt = text_dev_coords @ model.text_weights
                    for d in grid.dims:
                        if d > model.correlations.size:
                            continue
                        score, detail = _dev_score(cosine_scores(pi[:, :d], pt[:, :d]), CAPTIONS_PER_IMAGE)
                        models.append(
                            {"power": power, "shift": shift, "kappa": kappa, "dims": d, "dev": score, **detail}
                        )
            models.sort(key=lambda m: -m["dev"])
            chosen = models[: grid.top_models]
            annotation, search = [], []
            text_target_coords = text_eigen.coordinates(text_target)
            img_target_coords: dict[int, F64] = {}
            fitted: dict[tuple[int, float, float], KCCA] = {}  # models differing only in dims share a fit
            for m in chosen:
                ie, _, img_target_rows = image_power(m["power"])
                if m["power"] not in img_target_coords:
                    img_target_coords[m["power"]] = ie.coordinates(img_target_rows)
                setting = (m["power"], m["shift"], m["kappa"])
                if setting not in fitted:
                    fitted[setting] = fit_kcca(
                        ie, text_eigen, kappa=m["kappa"], dims=dmax, text_shift=m["shift"], cross=crosses[m["power"]]
                    )
                model = fitted[setting].truncate(m["dims"])
                s = cosine_scores(
                    img_target_coords[m["power"]] @ model.image_weights, text_target_coords @ model.text_weights
                )
                annotation.append(s)
                search.append(s.T)
            _, ann_ranks = borda_aggregate(annotation)
            _, sea_ranks = borda_aggregate(search)
            _save(out / f"{system}.annotation.npy", -ann_ranks.astype(np.float32))  # ranks < 2^24: exact
            _save(out / f"{system}.search.npy", -sea_ranks.T.astype(np.float32))
            _save(out / f"{system}.best.npy", annotation[0])
            manifest["systems"][system] = {
                "kind": "KCCA",
                "text_kernel": asdict(spec),
                "models_trained": len(models),
                "selected": chosen,
                **info,
            }
        timings[system] = time.perf_counter() - start
        say(f"{system}: {timings[system]:.1f} s")
    manifest["timings_s"] = timings
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest
