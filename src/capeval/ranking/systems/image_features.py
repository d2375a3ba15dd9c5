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
    decoded: Any = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if decoded is None:
        raise ValueError(f"{os.fspath(path)}: not a readable image")
    if decoded.shape[:2] != (side, side):
        decoded = cv2.resize(decoded, (side, side), interpolation=cv2.INTER_AREA)
    out: npt.NDArray[np.uint8] = cv2.cvtColor(decoded, cv2.COLOR_BGR2RGB)
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


def sift_descriptors(rgb: npt.NDArray[np.uint8], step: int = 8, size: int = 16) -> tuple[F32, npt.NDArray[np.int64]]:
    """Dense SIFT: 128-d descriptors of ``size x size`` patches every ``step`` pixels: ``(descriptors, cells)``.

    The layout of Lowe's descriptor on a dense grid, as dense-SIFT implementations compute it
    (a flat window over 4x4 spatial bins of ``size / 4`` pixels, eight orientation bins): the
    grey image is smoothed (sigma 1), each pixel's gradient magnitude is split between its two
    nearest orientation bins and summed per spatial bin; the 4x4x8 values are weighted by a
    Gaussian of half the patch width centred on the patch, L2-normalized, clipped at 0.2 and
    normalized again (a flat patch stays all zero). No keypoint detection or scale space.
    """
    import cv2

    if size % 4 or step % (size // 4):
        raise ValueError(f"SIFT patch size {size} must be a multiple of 4 and step {step} a multiple of {size // 4}")
    cell = size // 4
    grey: Any = cv2.GaussianBlur(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0, (0, 0), 1.0)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=1)
    magnitude = np.sqrt(gx * gx + gy * gy)
    position = (np.arctan2(gy, gx) % (2 * np.pi)) * (8 / (2 * np.pi))
    lower = np.floor(position).astype(np.int64) % 8
    frac = position - np.floor(position)
    h, w = grey.shape
    orient = np.zeros((8, h, w), dtype=np.float32)
    rows, cols = np.indices((h, w))
    np.add.at(orient, (lower, rows, cols), magnitude * (1 - frac))
    np.add.at(orient, ((lower + 1) % 8, rows, cols), magnitude * frac)
    ch, cw = h // cell, w // cell
    cells = orient[:, : ch * cell, : cw * cell].reshape(8, ch, cell, cw, cell).sum(axis=(2, 4))
    ys = _grid(h - size + 1, step)  # patch top-left corners
    xs = _grid(w - size + 1, step)
    centre = (np.arange(4) + 0.5) * cell - size / 2
    weight = np.exp(-(centre[:, None] ** 2 + centre[None, :] ** 2) / (2 * (size / 2) ** 2)).astype(np.float32)
    cy, cx = ys // cell, xs // cell
    parts = [
        cells[:, cy[:, None] + dy, cx[None, :] + dx] * weight[dy, dx] for dy in range(4) for dx in range(4)
    ]  # each (8, ny, nx)
    desc = np.stack(parts, axis=0).transpose(2, 3, 0, 1).reshape(len(ys) * len(xs), 128)
    norm = np.linalg.norm(desc, axis=1, keepdims=True)
    desc = np.minimum(desc / np.maximum(norm, 1e-12), 0.2)
    norm = np.linalg.norm(desc, axis=1, keepdims=True)
    desc = np.where(norm > 1e-6, desc / np.maximum(norm, 1e-12), 0.0)
    return desc.astype(np.float32), _cells(ys + size // 2, xs + size // 2, h, w)


def _descriptors(config: VisualWordConfig) -> dict[str, Callable[[npt.NDArray[np.uint8]], tuple[F32, Any]]]:
    return {
        "colour": lambda im: colour_descriptors(im, config.colour_stride),
        "texture": lambda im: texture_descriptors(im, config.texture_stride),
        "sift": lambda im: sift_descriptors(im, config.sift_step, config.sift_size),
    }


def learn_codebook(samples: F32, words: int, *, iterations: int = 25, seed: int = 0) -> F32:
    """K-means centres of descriptor samples: k-means++ start, then Lloyd iterations (seeded).

    The assignment step is :func:`quantize` (matrix products); an emptied cluster restarts at
    the sample farthest from its centre.

    Raises:
        ValueError: with fewer samples than words.
    """
    x = np.ascontiguousarray(samples, dtype=np.float32)
    if x.shape[0] < words:
        raise ValueError(f"{x.shape[0]} descriptor samples cannot make {words} visual words")
    rng = np.random.default_rng(seed)
    # k-means++ on a subsample (the seeding's cost grows with samples x words)
    pool = x[rng.choice(x.shape[0], min(x.shape[0], 20 * words), replace=False)]
    centres = np.empty((words, x.shape[1]), dtype=np.float32)
    centres[0] = pool[rng.integers(pool.shape[0])]
    closest = ((pool - centres[0]) ** 2).sum(axis=1)
    for k in range(1, words):
        total = float(closest.sum())
        pick = rng.choice(pool.shape[0], p=closest / total) if total > 0 else rng.integers(pool.shape[0])
        centres[k] = pool[pick]
        closest = np.minimum(closest, ((pool - centres[k]) ** 2).sum(axis=1))
    for _ in range(iterations):
        labels = quantize(x, centres)
        sums = np.zeros_like(centres, dtype=np.float64)
        np.add.at(sums, labels, x)
        counts = np.bincount(labels, minlength=words)
        moved = centres.copy()
        filled = counts > 0
        moved[filled] = (sums[filled] / counts[filled, None]).astype(np.float32)
        if not filled.all():
            far = np.argsort(-((x - centres[labels]) ** 2).sum(axis=1))[: int((~filled).sum())]
            moved[~filled] = x[far]
        if np.array_equal(moved, centres):
            break
        centres = moved
    return centres


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


#: Images per task handed to a worker process.
_CHUNK = 32


def _chunks(paths: Sequence[str]) -> list[list[str]]:
    return [list(paths[i : i + _CHUNK]) for i in range(0, len(paths), _CHUNK)]


def _describe_chunk(paths: Sequence[str], config: VisualWordConfig) -> list[dict[str, F32]]:
    describe = _descriptors(config)
    out = []
    for path in paths:
        rgb = load_image(path)
        out.append({f: describe[f](rgb)[0] for f in FEATURES})
    return out


def _count_chunk(
    paths: Sequence[str], settings: tuple[VisualWordConfig, dict[str, F32]]
) -> dict[str, npt.NDArray[np.uint16]]:
    config, codebooks = settings
    describe = _descriptors(config)
    cells = PYRAMID_SIDE * PYRAMID_SIDE
    counts = {f: np.zeros((len(paths), cells, config.words[f]), dtype=np.uint16) for f in FEATURES}
    for row, path in enumerate(paths):
        rgb = load_image(path)
        for f in FEATURES:
            desc, cell = describe[f](rgb)
            np.add.at(counts[f][row], (cell, quantize(desc, codebooks[f])), 1)
    return counts


class _Serial:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _pool(workers: int) -> Any:
    if workers <= 1:
        return _Serial()
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers)


def _map(pool: Any, func: Callable[..., Any], chunks: list[list[str]], extra: Any) -> Any:
    """``func(chunk, extra)`` per chunk, in order (in worker processes when ``pool`` is one)."""
    if pool is None:
        return (func(c, extra) for c in chunks)
    return pool.map(func, chunks, [extra] * len(chunks))


def _cache_file(
    cache_dir: Path, images: Sequence[str], codebook_images: Sequence[str], config: VisualWordConfig
) -> Path:
    key = hashlib.sha1(json.dumps([list(images), list(codebook_images), config.fingerprint()]).encode()).hexdigest()[
        :16
    ]
    return cache_dir / f"visual-words-{key}.npz"


def extract_visual_words(
    image_dir: str | os.PathLike[str],
    images: Sequence[str],
    codebook_images: Sequence[str],
    *,
    config: VisualWordConfig | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
    workers: int = 1,
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
        workers: Processes describing images (the result does not depend on it).

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
    rng = np.random.default_rng(config.seed)
    chosen = sorted(rng.choice(len(codebook_images), min(config.codebook_images, len(codebook_images)), replace=False))
    pools: dict[str, list[F32]] = {f: [] for f in FEATURES}
    per_image = max(1, config.codebook_samples // max(1, len(chosen)))
    chosen_paths = [os.fspath(folder / codebook_images[i]) for i in chosen]
    with _pool(workers) as pool:
        bar = tqdm(total=len(chosen_paths), desc="codebook descriptors", disable=not progress, unit="image")
        for described in _map(pool, _describe_chunk, _chunks(chosen_paths), config):
            for per_feature in described:  # one image: sample in image order (seeded)
                for f in FEATURES:
                    desc = per_feature[f]
                    take = rng.choice(desc.shape[0], min(per_image, desc.shape[0]), replace=False)
                    pools[f].append(desc[take])
            bar.update(len(described))
        bar.close()
        codebooks = {
            f: learn_codebook(
                np.concatenate(pools[f]), config.words[f], iterations=config.kmeans_iterations, seed=config.seed
            )
            for f in FEATURES
        }
        cells = PYRAMID_SIDE * PYRAMID_SIDE
        counts = {f: np.zeros((len(images), cells, config.words[f]), dtype=np.uint16) for f in FEATURES}
        paths = [os.fspath(folder / im) for im in images]
        bar = tqdm(total=len(paths), desc="visual words", disable=not progress, unit="image")
        row = 0
        for chunk_counts in _map(pool, _count_chunk, _chunks(paths), (config, codebooks)):
            n = next(iter(chunk_counts.values())).shape[0]
            for f in FEATURES:
                counts[f][row : row + n] = chunk_counts[f]
            row += n
            bar.update(n)
        bar.close()
    result = ImageFeatures(tuple(images), counts, codebooks, config)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp.npz")
        arrays: dict[str, Any] = {"images": np.array(images)}
        arrays.update({f"counts_{f}": counts[f] for f in FEATURES})
        arrays.update({f"codebook_{f}": codebooks[f] for f in FEATURES})
        np.savez(tmp, **arrays)
        os.replace(tmp, cache)
    return result
