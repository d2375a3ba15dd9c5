"""Visual words of Hodosh et al. (2013): colour, texture and dense SIFT, in a 3-level spatial pyramid.

Each image gives three sets of local descriptors on fixed grids:

* **colour**: CIELAB values of pixels (every ``COLOUR_STRIDE``-th pixel in each direction);
* **texture**: the eight maximum responses of the MR8 filter bank (Varma and Zisserman 2005:
  edge and bar filters at three scales and six orientations, keeping the largest response
  over orientations, plus a Gaussian and a Laplacian of Gaussian), contrast-normalized;
* **SIFT**: 128-dimensional SIFT descriptors on a dense grid (OpenCV's implementation,
  computed at given keypoints, no detection).

Each descriptor set is quantized against a k-means codebook learned on descriptors sampled
from the training images (seeded), and counted per cell of the finest pyramid level (4x4
cells). :func:`capeval.ranking.systems.kernels.pyramid_kernel` turns these counts into the
spatial-pyramid intersection kernel (Lazebnik et al. 2006).

OpenCV (``opencv-python-headless``) and SciPy are needed here; they are imported when a
function runs, not with :mod:`capeval`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "FEATURES",
    "ImageFeatures",
    "VisualWordConfig",
    "colour_descriptors",
    "extract_visual_words",
    "learn_codebook",
    "load_image",
    "mr8_filter_bank",
    "quantize",
    "sift_descriptors",
    "texture_descriptors",
]

F32 = npt.NDArray[np.float32]
#: The three descriptor types, in the order the kernels are averaged.
FEATURES = ("colour", "texture", "sift")
#: Side of the square the images are resized to before any descriptor is computed.
IMAGE_SIDE = 224
#: Cells per side at the finest of the three pyramid levels (levels: 1x1, 2x2, 4x4).
PYRAMID_SIDE = 4


@dataclass(frozen=True)
class VisualWordConfig:
    """Every setting of the visual words (recorded with the cached features).

    Attributes:
        words: Codebook size per feature.
        colour_stride: Pixel step of the colour samples.
        texture_stride: Pixel step of the texture samples.
        sift_step: Pixel step of the dense SIFT grid.
        sift_size: Diameter (pixels) of each SIFT patch (4x4 spatial bins of ``size / 4``).
        codebook_images: Training images whose descriptors are sampled for k-means.
        codebook_samples: Descriptors sampled per feature for k-means.
        kmeans_iterations: Lloyd iterations.
        seed: Seed of every random choice (image and descriptor samples, k-means init).
    """

    words: dict[str, int] = field(default_factory=lambda: {"colour": 128, "texture": 256, "sift": 256})
    colour_stride: int = 2
    texture_stride: int = 2
    sift_step: int = 8
    sift_size: int = 16
    codebook_images: int = 1000
    codebook_samples: int = 100_000
    kmeans_iterations: int = 25
    seed: int = 0

    def fingerprint(self) -> str:
        """A short hash of the settings (cache key)."""
        return hashlib.sha1(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


def load_image(path: str | os.PathLike[str], side: int = IMAGE_SIDE) -> npt.NDArray[np.uint8]:
    """An RGB ``uint8`` image resized to ``side x side`` (aspect ratio not kept).

    Raises:
        ValueError: when the file cannot be read as an image (naming it).
    """
    import cv2

    data = np.fromfile(os.fspath(path), dtype=np.uint8)
    bgr = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if bgr is None:
        raise ValueError(f"{os.fspath(path)}: not a readable image")
    if bgr.shape[:2] != (side, side):
        bgr = cv2.resize(bgr, (side, side), interpolation=cv2.INTER_AREA)
    out: npt.NDArray[np.uint8] = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    return out


def _grid(side: int, stride: int, offset: int = 0) -> npt.NDArray[np.int64]:
    return np.arange(offset, side, stride, dtype=np.int64)


def colour_descriptors(rgb: npt.NDArray[np.uint8], stride: int = 2) -> tuple[F32, npt.NDArray[np.int64]]:
    """CIELAB values of every ``stride``-th pixel: ``(descriptors (n, 3), pyramid cell of each)``."""
    import cv2

    lab = cv2.cvtColor(rgb.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)  # L 0..100, a, b about -128..127
    ys = _grid(rgb.shape[0], stride, stride // 2)
    xs = _grid(rgb.shape[1], stride, stride // 2)
    desc = lab[np.ix_(ys, xs)].reshape(-1, 3).astype(np.float32)
    return desc, _cells(ys, xs, rgb.shape[0], rgb.shape[1])


def _cells(ys: npt.NDArray[np.int64], xs: npt.NDArray[np.int64], height: int, width: int) -> npt.NDArray[np.int64]:
    """Finest-level pyramid cell (row-major over ``PYRAMID_SIDE x PYRAMID_SIDE``) of each grid point."""
    cy = np.minimum(ys * PYRAMID_SIDE // height, PYRAMID_SIDE - 1)
    cx = np.minimum(xs * PYRAMID_SIDE // width, PYRAMID_SIDE - 1)
    return (cy[:, None] * PYRAMID_SIDE + cx[None, :]).reshape(-1)


def _gaussian_derivative_filter(sigma_x: float, sigma_y: float, order: int, angle: float, size: int) -> F32:
    """An oriented anisotropic Gaussian derivative (order 1: edge, order 2: bar), zero mean, unit L1 norm."""
    half = size // 2
    y, x = np.mgrid[-half : half + 1, -half : half + 1].astype(np.float64)
    c, s = np.cos(angle), np.sin(angle)
    u = c * x + s * y  # across the filter's orientation
    v = -s * x + c * y
    g = np.exp(-(u**2) / (2 * sigma_x**2) - v**2 / (2 * sigma_y**2))
    f = -u / sigma_x**2 * g if order == 1 else (u**2 / sigma_x**4 - 1 / sigma_x**2) * g
    f -= f.mean()
    f /= np.abs(f).sum()
    return f.astype(np.float32)


def mr8_filter_bank(size: int = 49) -> tuple[list[list[F32]], list[F32]]:
    """The MR8 bank: ``(oriented, isotropic)``.

    ``oriented`` holds six groups (edge and bar filters at scales (1, 3), (2, 6), (4, 12)),
    each with six orientations; ``isotropic`` a Gaussian and a Laplacian of Gaussian of
    sigma 10. Every filter has zero mean (but the Gaussian) and unit L1 norm.
    """
    angles = [np.pi * k / 6 for k in range(6)]
    oriented: list[list[F32]] = []
    for order in (1, 2):
        for sx, sy in ((1.0, 3.0), (2.0, 6.0), (4.0, 12.0)):
            oriented.append([_gaussian_derivative_filter(sx, sy, order, a, size) for a in angles])
    half = size // 2
    y, x = np.mgrid[-half : half + 1, -half : half + 1].astype(np.float64)
    r2 = x**2 + y**2
    sigma = 10.0
    gauss = np.exp(-r2 / (2 * sigma**2))
    gauss /= gauss.sum()
    log = (r2 / sigma**4 - 2 / sigma**2) * np.exp(-r2 / (2 * sigma**2))
    log -= log.mean()
    log /= np.abs(log).sum()
    return oriented, [gauss.astype(np.float32), log.astype(np.float32)]


_BANK: dict[tuple[int, int], npt.NDArray[np.complex64]] = {}
#: Filter side of the MR8 bank (its largest sigma is 12 along the bars, 10 for the isotropic pair).
MR8_SIZE = 49


def _bank_spectra(shape: tuple[int, int]) -> npt.NDArray[np.complex64]:
    """Real FFTs (at ``shape``) of the 38 MR8 filters, cached per shape: 36 oriented, then 2 isotropic."""
    spectra = _BANK.get(shape)
    if spectra is None:
        oriented, isotropic = mr8_filter_bank(MR8_SIZE)
        filters = [f for group in oriented for f in group] + isotropic
        stack = np.zeros((len(filters), *shape), dtype=np.float32)
        half = MR8_SIZE // 2
        for k, f in enumerate(filters):
            # centre the filter on pixel (0, 0) of the periodic grid (a zero-phase filter)
            stack[k, :MR8_SIZE, :MR8_SIZE] = f
            stack[k] = np.roll(stack[k], (-half, -half), axis=(0, 1))
        spectra = np.fft.rfft2(stack).astype(np.complex64)
        _BANK[shape] = spectra
    return spectra


def texture_descriptors(rgb: npt.NDArray[np.uint8], stride: int = 2) -> tuple[F32, npt.NDArray[np.int64]]:
    """MR8 responses of every ``stride``-th pixel: ``(descriptors (n, 8), pyramid cell of each)``.

    The grey image is scaled to zero mean and unit variance and reflect-padded by half a
    filter; the 38 filters are applied at once through the FFT. Each 8-vector is then
    contrast-normalized as Varma and Zisserman do: ``F * log(1 + |F| / 0.03) / |F|``.
    """
    import cv2

    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    grey = (grey - grey.mean()) / (grey.std() + 1e-6)
    half = MR8_SIZE // 2
    padded = np.pad(grey, half, mode="reflect")
    spectra = _bank_spectra(padded.shape)
    full = np.fft.irfft2(np.fft.rfft2(padded)[None] * spectra, s=padded.shape)
    h, w = grey.shape
    ys = _grid(h, stride, stride // 2)
    xs = _grid(w, stride, stride // 2)
    sampled = full[:, half + ys[:, None], half + xs[None, :]].reshape(full.shape[0], -1)
    oriented = np.abs(sampled[:36]).reshape(6, 6, -1).max(axis=1)
    desc = np.concatenate([oriented, sampled[36:]], axis=0).T
    norm = np.linalg.norm(desc, axis=1, keepdims=True)
    desc = desc * (np.log1p(norm / 0.03) / np.maximum(norm, 1e-12))
    return desc.astype(np.float32), _cells(ys, xs, h, w)


def sift_descriptors(
    rgb: npt.NDArray[np.uint8], step: int = 8, size: int = 16
) -> tuple[F32, npt.NDArray[np.int64]]:
    """Dense SIFT on a ``step``-pixel grid of patches of diameter ``size``: ``(descriptors (n, 128), cells)``."""
    import cv2

    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    ys = _grid(rgb.shape[0] - size // 2 + 1, step, size // 2)
    xs = _grid(rgb.shape[1] - size // 2 + 1, step, size // 2)
    keypoints = [cv2.KeyPoint(float(x), float(y), float(size), 0.0) for y in ys for x in xs]
    sift = cv2.SIFT_create()
    kept, desc = sift.compute(grey, keypoints)
    if desc is None or len(kept) != len(keypoints):
        raise RuntimeError(f"OpenCV SIFT kept {0 if desc is None else len(kept)} of {len(keypoints)} grid points")
    return desc.astype(np.float32), _cells(ys, xs, rgb.shape[0], rgb.shape[1])


def _descriptors(config: VisualWordConfig) -> dict[str, Callable[[npt.NDArray[np.uint8]], tuple[F32, Any]]]:
    return {
        "colour": lambda im: colour_descriptors(im, config.colour_stride),
        "texture": lambda im: texture_descriptors(im, config.texture_stride),
        "sift": lambda im: sift_descriptors(im, config.sift_step, config.sift_size),
    }


def learn_codebook(samples: F32, words: int, *, iterations: int = 25, seed: int = 0) -> F32:
    """K-means centres (k-means++ start, Lloyd iterations; seeded) of descriptor samples.

    Raises:
        ValueError: with fewer samples than words.
    """
    from scipy.cluster.vq import kmeans2

    if samples.shape[0] < words:
        raise ValueError(f"{samples.shape[0]} descriptor samples cannot make {words} visual words")
    centres, _ = kmeans2(
        samples.astype(np.float64), words, iter=iterations, minit="++", seed=np.random.default_rng(seed)
    )
    return np.asarray(centres, dtype=np.float32)


def quantize(descriptors: F32, codebook: F32, block: int = 65536) -> npt.NDArray[np.int64]:
    """Index of the nearest codebook centre (squared Euclidean distance) of every descriptor."""
    c2 = (codebook.astype(np.float32) ** 2).sum(axis=1)
    out = np.empty(descriptors.shape[0], dtype=np.int64)
    for start in range(0, descriptors.shape[0], block):
        d = descriptors[start : start + block].astype(np.float32)
        out[start : start + block] = np.argmin(c2[None, :] - 2.0 * (d @ codebook.T), axis=1)
    return out


@dataclass(frozen=True)
class ImageFeatures:
    """Visual-word counts per finest pyramid cell.

    Attributes:
        images: Image ids, in row order.
        counts: ``feature -> (n_images, 16, words)`` counts (uint16).
        codebooks: ``feature -> (words, dim)`` k-means centres.
        config: The settings used.
    """

    images: tuple[str, ...]
    counts: dict[str, npt.NDArray[np.uint16]]
    codebooks: dict[str, F32]
    config: VisualWordConfig

    def subset(self, images: Sequence[str]) -> ImageFeatures:
        """The rows of ``images`` (in that order).

        Raises:
            KeyError: naming an image that has no features.
        """
        index = {im: i for i, im in enumerate(self.images)}
        missing = [im for im in images if im not in index]
        if missing:
            raise KeyError(f"no visual words for image {missing[0]!r} ({len(missing)} missing)")
        rows = np.array([index[im] for im in images], dtype=np.int64)
        return ImageFeatures(tuple(images), {k: v[rows] for k, v in self.counts.items()}, self.codebooks, self.config)


def _cache_file(cache_dir: Path, images: Sequence[str], codebook_images: Sequence[str], config: VisualWordConfig) -> Path:
    key = hashlib.sha1(
        json.dumps([list(images), list(codebook_images), config.fingerprint()]).encode()
    ).hexdigest()[:16]
    return cache_dir / f"visual-words-{key}.npz"


def extract_visual_words(
    image_dir: str | os.PathLike[str],
    images: Sequence[str],
    codebook_images: Sequence[str],
    *,
    config: VisualWordConfig | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> ImageFeatures:
    """Visual-word pyramid counts of ``images``; codebooks from ``codebook_images`` (training images).

    The result is cached under ``cache_dir`` (keyed by the image lists and the settings) and
    read back on the next call.

    Args:
        image_dir: Folder holding ``<image id>`` files (e.g. ``1000268201_693b08cb0e.jpg``).
        images: Image ids to describe.
        codebook_images: Images whose descriptors train the codebooks (a seeded sample of
            ``config.codebook_images`` of them is used).
        config: Settings (defaults: :class:`VisualWordConfig`).
        cache_dir: Where to cache the counts (``None``: no cache).
        progress: Show progress bars.

    Raises:
        FileNotFoundError: naming an image missing from ``image_dir``.
    """
    from tqdm import tqdm

    config = config or VisualWordConfig()
    folder = Path(image_dir)
    cache = _cache_file(Path(cache_dir), images, codebook_images, config) if cache_dir is not None else None
    if cache is not None and cache.exists():
        with np.load(cache, allow_pickle=False) as data:
            return ImageFeatures(
                tuple(str(s) for s in data["images"]),
                {f: data[f"counts_{f}"] for f in FEATURES},
                {f: data[f"codebook_{f}"] for f in FEATURES},
                config,
            )
    for im in list(images) + list(codebook_images):
        if not (folder / im).is_file():
            raise FileNotFoundError(f"{folder / im}: image not found")
    describe = _descriptors(config)
    rng = np.random.default_rng(config.seed)
    chosen = sorted(rng.choice(len(codebook_images), min(config.codebook_images, len(codebook_images)), replace=False))
    pools: dict[str, list[F32]] = {f: [] for f in FEATURES}
    per_image = max(1, config.codebook_samples // max(1, len(chosen)))
    for i in tqdm(chosen, desc="codebook descriptors", disable=not progress, unit="image"):
        rgb = load_image(folder / codebook_images[i])
        for f in FEATURES:
            desc, _ = describe[f](rgb)
            take = rng.choice(desc.shape[0], min(per_image, desc.shape[0]), replace=False)
            pools[f].append(desc[take])
    codebooks = {
        f: learn_codebook(np.concatenate(pools[f]), config.words[f], iterations=config.kmeans_iterations, seed=config.seed)
        for f in FEATURES
    }
    cells = PYRAMID_SIDE * PYRAMID_SIDE
    counts = {f: np.zeros((len(images), cells, config.words[f]), dtype=np.uint16) for f in FEATURES}
    for row, im in enumerate(tqdm(images, desc="visual words", disable=not progress, unit="image")):
        rgb = load_image(folder / im)
        for f in FEATURES:
            desc, cell = describe[f](rgb)
            words = quantize(desc, codebooks[f])
            np.add.at(counts[f][row], (cell, words), 1)
    result = ImageFeatures(tuple(images), counts, codebooks, config)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            images=np.array(images),
            **{f"counts_{f}": counts[f] for f in FEATURES},
            **{f"codebook_{f}": codebooks[f] for f in FEATURES},
        )
        os.replace(tmp, cache)
    return result
