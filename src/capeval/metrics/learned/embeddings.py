"""Small word embeddings for Word Mover's similarity, trained on COCO captions.

NNEval (Sharif et al. 2018) measures Word Mover's Distance over the word2vec GoogleNews
vectors, which no package registry distributes. capeval ships its own small vectors instead,
trained by :func:`train_embeddings` on the COCO *train2014* captions that the official
evaluation package bundles (``pycocoevalcap/spice/spice-1.0.jar`` holds
``coco/annotations/captions_train2014.json``; COCO captions are CC BY 4.0).

The method is the positive pointwise mutual information (PPMI) matrix of a symmetric
co-occurrence window, factorised by a truncated SVD (Levy, Goldberg and Dagan 2015, "Improving
distributional similarity with lessons learned from word embeddings": context distribution
smoothing 0.75, eigenvalue weighting 0.5). It is deterministic (a seeded randomized SVD), needs
only numpy/scipy and trains in about a minute. Vectors are stored unit-length in float16.
"""

from __future__ import annotations

import hashlib
import logging
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from capeval.io import parse_references

__all__ = [
    "DEFAULT_EMBEDDINGS",
    "WordEmbeddings",
    "load_embeddings",
    "read_coco_captions",
    "save_embeddings",
    "train_embeddings",
]

log = logging.getLogger("capeval")

#: File name of the shipped vectors inside ``capeval/data/learned``.
DEFAULT_EMBEDDINGS = "coco-ppmi-svd-100.npz"
#: Members of the official package's SPICE jar holding the COCO captions.
COCO_MEMBER = "coco/annotations/captions_{split}.json"
#: Embedding size (word2vec's common small setting; NNEval's GoogleNews vectors have 300).
EMBEDDING_DIM = 100
#: Symmetric co-occurrence window (word2vec's default of 5 on each side).
WINDOW = 5
#: Words seen fewer times are left out (word2vec's default min_count).
MIN_COUNT = 5
#: Context distribution smoothing exponent (Levy et al. 2015; word2vec's negative sampling).
CONTEXT_SMOOTHING = 0.75
#: Singular values are raised to this power (Levy et al. 2015, "eigenvalue weighting").
EIGEN_WEIGHT = 0.5
#: Extra columns and power iterations of the randomized SVD (Halko et al. 2011).
SVD_OVERSAMPLE = 20
SVD_POWER_ITERATIONS = 4


@dataclass(frozen=True, eq=False)
class WordEmbeddings:
    """Unit-length word vectors.

    Attributes:
        words: Vocabulary, row order of ``vectors``.
        vectors: ``(n_words, dim)`` float32 unit-length vectors.
        name: Short identifier recorded in signatures (``coco-ppmi-svd-100``).
        digest: First 12 hex digits of the SHA-256 of words and vectors.
    """

    words: tuple[str, ...]
    vectors: npt.NDArray[np.float32]
    name: str
    digest: str

    def index(self) -> dict[str, int]:
        """Word -> row."""
        return _index(self)


@lru_cache(maxsize=4)
def _index(embeddings: WordEmbeddings) -> dict[str, int]:
    return {w: i for i, w in enumerate(embeddings.words)}


def _digest(words: Sequence[str], vectors: npt.NDArray[np.floating]) -> str:
    h = hashlib.sha256("\n".join(words).encode("utf-8"))
    h.update(np.ascontiguousarray(vectors, dtype=np.float16).tobytes())
    return h.hexdigest()[:12]


def read_coco_captions(source: str | Path, split: str = "train2014") -> dict[int, list[str]]:
    """COCO captions per image from a captions JSON file or the official SPICE jar.

    The captions are read by :func:`capeval.io.parse_references` (the rules of every caption
    file): images in the order of their first caption, each with its captions in file order
    (the order the shipped word vectors were trained in).

    Args:
        source: ``captions_<split>.json``, or ``spice-1.0.jar`` of pycocoevalcap 1.2, which holds
            ``coco/annotations/captions_train2014.json`` and ``captions_val2014.json`` (read,
            never modified).
        split: ``"train2014"`` or ``"val2014"`` (which member of the jar to read).

    Raises:
        ValueError: if the file is neither, or holds no captions
            (:class:`capeval.io.CaptionFileError` for malformed captions).
    """
    path = Path(source)
    if not path.is_file():
        raise ValueError(f"{path}: no such file (give captions_{split}.json or pycocoevalcap's spice-1.0.jar)")
    if zipfile.is_zipfile(path):
        member = COCO_MEMBER.format(split=split)
        with zipfile.ZipFile(path) as archive:
            if member not in archive.namelist():
                raise ValueError(f"{path}: archive has no {member}")
            raw, name = archive.read(member), f"{path}:{member}"
    else:
        raw, name = path.read_bytes(), str(path)
    captions = parse_references(raw, name=name, jsonl=False, order="annotations")
    if not all(isinstance(image_id, int) for image_id in captions):
        raise ValueError(f"{name}: expected integer COCO image ids")
    return cast(dict[int, list[str]], captions)


def _randomized_svd(
    matrix: Any, rank: int, rng: np.random.Generator
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Top ``rank`` left singular vectors and values of a symmetric sparse matrix (Halko et al. 2011)."""
    n = matrix.shape[0]
    probe = rng.standard_normal((n, rank + SVD_OVERSAMPLE))
    basis, _ = np.linalg.qr(matrix @ probe)
    for _ in range(SVD_POWER_ITERATIONS):
        basis, _ = np.linalg.qr(matrix @ (matrix.T @ basis))
    small = (matrix.T @ basis).T
    u_small, s, _ = np.linalg.svd(small, full_matrices=False)
    u = basis @ u_small
    # Fix each vector's sign (largest-magnitude entry positive) so runs are identical.
    signs = np.sign(u[np.abs(u).argmax(axis=0), np.arange(u.shape[1])])
    signs[signs == 0] = 1.0
    return (u * signs)[:, :rank], s[:rank]


def train_embeddings(
    sentences: Iterable[Sequence[str]],
    *,
    dim: int = EMBEDDING_DIM,
    window: int = WINDOW,
    min_count: int = MIN_COUNT,
    seed: int = 0,
    name: str | None = None,
) -> WordEmbeddings:
    """PPMI + truncated SVD word vectors from tokenized sentences.

    Args:
        sentences: Tokenized sentences (lists of tokens, e.g. PTB-tokenized COCO captions).
        dim: Vector size.
        window: Co-occurrence window on each side; counts are weighted 1/distance as word2vec's
            dynamic window does on average.
        min_count: Minimum corpus frequency of a vocabulary word.
        seed: Seed of the randomized SVD.
        name: Identifier for signatures (default ``coco-ppmi-svd-<dim>``).

    Returns:
        :class:`WordEmbeddings`, words sorted by decreasing frequency, then alphabetically.

    Raises:
        ValueError: if fewer than ``dim + 1`` words reach ``min_count``.
    """
    from scipy import sparse

    sentences = [list(s) for s in sentences]
    counts = Counter(w for s in sentences for w in s)
    words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if len(words) <= dim:
        raise ValueError(f"only {len(words)} words occur at least {min_count} times; need more than {dim}")
    index = {w: i for i, w in enumerate(words)}
    rows: list[npt.NDArray[np.int64]] = []
    cols: list[npt.NDArray[np.int64]] = []
    vals: list[npt.NDArray[np.float64]] = []
    ids = [np.array([index[w] for w in s if w in index], dtype=np.int64) for s in sentences]
    for offset in range(1, window + 1):
        weight = 1.0 / offset
        left = [x[:-offset] for x in ids if x.size > offset]
        right = [x[offset:] for x in ids if x.size > offset]
        if not left:
            break
        a, b = np.concatenate(left), np.concatenate(right)
        rows += [a, b]
        cols += [b, a]
        vals += [np.full(a.size, weight)] * 2
    n = len(words)
    cooc = sparse.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)).tocsr()
    cooc.sum_duplicates()
    total = cooc.sum()
    word_mass = np.asarray(cooc.sum(axis=1)).ravel()
    context_mass = word_mass**CONTEXT_SMOOTHING
    context_p = context_mass / context_mass.sum()
    coo = cooc.tocoo()
    pmi = np.log(coo.data / total) - np.log(word_mass[coo.row] / total) - np.log(context_p[coo.col])
    keep = pmi > 0
    ppmi = sparse.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=(n, n))
    u, s = _randomized_svd(ppmi, dim, np.random.default_rng(seed))
    vectors = u * s**EIGEN_WEIGHT
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), np.finfo(float).tiny)
    vectors16 = vectors.astype(np.float16)
    label = name or f"coco-ppmi-svd-{dim}"
    return WordEmbeddings(tuple(words), vectors16.astype(np.float32), label, _digest(words, vectors16))


def save_embeddings(embeddings: WordEmbeddings, path: str | Path, *, provenance: str = "") -> None:
    """Write vectors (float16), words and provenance to a compressed ``.npz``."""
    np.savez_compressed(
        path,
        words=np.array(embeddings.words),
        vectors=embeddings.vectors.astype(np.float16),
        name=np.array(embeddings.name),
        provenance=np.array(provenance),
    )


@lru_cache(maxsize=4)
def load_embeddings(path: str | None = None) -> WordEmbeddings:
    """Load vectors written by :func:`save_embeddings`; default: the vectors shipped with capeval.

    Raises:
        ValueError: if the file is missing or malformed.
    """
    if path is None:
        from capeval.data import data_path

        path = str(data_path("learned", DEFAULT_EMBEDDINGS))
    try:
        with np.load(path, allow_pickle=False) as data:
            words = tuple(str(w) for w in data["words"])
            vectors16 = data["vectors"]
            name = str(data["name"])
    except (OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read word embeddings ({exc})") from exc
    if vectors16.ndim != 2 or vectors16.shape[0] != len(words):
        raise ValueError(f"{path}: {len(words)} words but vectors of shape {vectors16.shape}")
    return WordEmbeddings(words, vectors16.astype(np.float32), name, _digest(words, vectors16))
