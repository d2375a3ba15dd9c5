"""Reading the Flickr8K distribution files: captions, splits, expert judgments.

The files are the authors' own (``Flickr8k.token.txt``, ``Flickr8k.lemma.token.txt``,
``Flickr_8k.{train,dev,test}Images.txt``, ``ExpertAnnotations.txt``,
``CrowdFlowerAnnotations.txt``). Caption ids are ``<image>#<k>``, ``k`` in 0..4.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = [
    "Flickr8K",
    "Split",
    "JUDGMENT_FILES",
    "JudgmentFile",
    "read_captions",
    "read_crowd_judgments",
    "read_expert_judgments",
    "read_flickr8k",
    "read_split",
]

PathLike = str | os.PathLike[str]
#: Captions per image in Flickr8K.
CAPTIONS_PER_IMAGE = 5


def read_captions(path: PathLike) -> dict[str, list[str]]:
    """``image id -> captions`` (in caption-number order) from a ``image#k <TAB> caption`` file.

    Raises:
        ValueError: on a malformed line or a duplicate caption id (naming the line).
    """
    where = os.fspath(path)
    numbered: dict[str, dict[int, str]] = {}
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            cid, sep, text = line.partition("\t")
            image, hash_, k = cid.partition("#")
            if not sep or not hash_ or not k.isdigit():
                raise ValueError(f"{where}, line {n}: expected 'image#k<TAB>caption', got {line[:60]!r}")
            slot = numbered.setdefault(image, {})
            if int(k) in slot:
                raise ValueError(f"{where}, line {n}: caption {cid!r} appears twice")
            slot[int(k)] = text.strip()
    return {im: [caps[k] for k in sorted(caps)] for im, caps in numbered.items()}


def read_split(path: PathLike) -> list[str]:
    """Image ids of a split file (one per line).

    Raises:
        ValueError: on a repeated image id.
    """
    ids = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{os.fspath(path)}: an image id is listed twice")
    return ids


@dataclass(frozen=True)
class Split:
    """Images of one split with their captions (``CAPTIONS_PER_IMAGE`` each, image-major)."""

    name: str
    images: tuple[str, ...]
    captions: tuple[tuple[str, ...], ...]  # per image
    lemmas: tuple[tuple[str, ...], ...]  # per image, the lemmatized captions

    @property
    def caption_ids(self) -> list[str]:
        """``image#k`` of every caption, image-major (the columns of a score matrix)."""
        return [f"{im}#{k}" for im, caps in zip(self.images, self.captions, strict=True) for k in range(len(caps))]

    def flat_lemmas(self) -> list[str]:
        """Every lemmatized caption, image-major."""
        return [c for caps in self.lemmas for c in caps]


@dataclass(frozen=True)
class Flickr8K:
    """The three splits of the ranking experiments."""

    train: Split
    dev: Split
    test: Split

    def split(self, name: str) -> Split:
        """The split called ``name`` (``train``, ``dev`` or ``test``)."""
        if name not in ("train", "dev", "test"):
            raise ValueError(f"unknown split {name!r} (train, dev or test)")
        out: Split = getattr(self, name)
        return out


def _find(folder: Path, name: str) -> Path:
    path = folder / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: Flickr8K file not found")
    return path


def read_flickr8k(folder: PathLike) -> Flickr8K:
    """The train/dev/test splits with raw and lemmatized captions, from the distribution files.

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: when an image of a split has no captions, or not ``CAPTIONS_PER_IMAGE``.
    """
    root = Path(folder)
    raw = read_captions(_find(root, "Flickr8k.token.txt"))
    lemma = read_captions(_find(root, "Flickr8k.lemma.token.txt"))
    splits = {}
    for name, file in (
        ("train", "Flickr_8k.trainImages.txt"),
        ("dev", "Flickr_8k.devImages.txt"),
        ("test", "Flickr_8k.testImages.txt"),
    ):
        images = read_split(_find(root, file))
        for im in images:
            for table, what in ((raw, "Flickr8k.token.txt"), (lemma, "Flickr8k.lemma.token.txt")):
                n = len(table.get(im, ()))
                if n != CAPTIONS_PER_IMAGE:
                    raise ValueError(f"{file}: image {im!r} has {n} captions in {what}, expected {CAPTIONS_PER_IMAGE}")
        splits[name] = Split(
            name,
            tuple(images),
            tuple(tuple(raw[im]) for im in images),
            tuple(tuple(lemma[im]) for im in images),
        )
    return Flickr8K(**splits)


def read_expert_judgments(
    path: PathLike, images: Sequence[str], caption_ids: Sequence[str]
) -> tuple[npt.NDArray[np.float64], int]:
    """Mean expert score (1-4) of every judged (image, caption) pair of a split; 0 where unjudged.

    The gold pairs (a caption written for the image) are set to 4 (they describe it), as
    Hodosh et al. count them relevant; relevant: a mean of at least 3.

    Returns:
        ``(matrix (n_images, n_captions), number of judged pairs inside the split)``.

    Raises:
        ValueError: on a malformed line (naming it).
    """

    def expert(where: str, values: list[str]) -> float:
        try:
            scores = [float(v) for v in values]
        except ValueError:
            raise ValueError(f"{where}: scores are not numbers") from None
        if any(not 1.0 <= v <= 4.0 for v in scores):
            raise ValueError(f"{where}: expert scores must be 1 to 4, got {' '.join(values)}")
        return float(np.mean(scores))

    return _read_judgments(path, images, caption_ids, "three scores", expert, gold=4.0)


def read_crowd_judgments(
    path: PathLike, images: Sequence[str], caption_ids: Sequence[str]
) -> tuple[npt.NDArray[np.float64], int]:
    """CrowdFlower "yes" fraction of every judged (image, caption) pair of a split; 0 where unjudged.

    ``CrowdFlowerAnnotations.txt`` lines: image, caption id, yes fraction, yes votes, no votes.
    The gold pairs are set to 1; Hodosh et al. count a pair relevant when at least two thirds
    of its judges said yes (``capeval rank --threshold 0.66``).

    Returns:
        ``(matrix (n_images, n_captions), number of judged pairs inside the split)``.

    Raises:
        ValueError: on a malformed line, or a fraction that disagrees with its votes (naming it).
    """

    def crowd(where: str, values: list[str]) -> float:
        try:
            fraction, yes, no = float(values[0]), int(values[1]), int(values[2])
        except ValueError:
            raise ValueError(f"{where}: expected a yes fraction and two vote counts") from None
        if yes < 0 or no < 0 or yes + no == 0 or abs(fraction - yes / (yes + no)) > 1e-6:
            raise ValueError(f"{where}: yes fraction {values[0]} does not match {yes} yes and {no} no votes")
        return fraction

    return _read_judgments(path, images, caption_ids, "a yes fraction and two vote counts", crowd, gold=1.0)


def _read_judgments(
    path: PathLike,
    images: Sequence[str],
    caption_ids: Sequence[str],
    what: str,
    parse: Callable[[str, list[str]], float],
    *,
    gold: float,
) -> tuple[npt.NDArray[np.float64], int]:
    """The judgment matrix of a split from ``image caption-id v1 v2 v3`` lines (gold pairs = ``gold``)."""
    where = os.fspath(path)
    rows = {im: i for i, im in enumerate(images)}
    cols = {c: j for j, c in enumerate(caption_ids)}
    out = np.zeros((len(images), len(caption_ids)))
    for c, j in cols.items():
        i = rows.get(c.partition("#")[0])
        if i is not None:
            out[i, j] = gold
    used = 0
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 5:
                raise ValueError(f"{where}, line {n}: expected image, caption id and {what}")
            value = parse(f"{where}, line {n}", parts[2:])
            row, col = rows.get(parts[0]), cols.get(parts[1])
            if row is None or col is None:
                continue
            if parts[1].partition("#")[0] != parts[0]:
                out[row, col] = value
            used += 1
    return out, used


@dataclass(frozen=True)
class JudgmentFile:
    """One of the distribution's human-judgment files and how its judgments become relevance.

    Attributes:
        kind: ``expert`` or ``crowd`` (``judgments-<kind>.npy`` in a ``rank-systems`` folder).
        file: The distribution's file name.
        read: Its reader (``path, images, caption ids -> (matrix, judged pairs)``).
        threshold: The value from which a pair counts as relevant (``capeval rank --threshold``).
        rule: That rule in words.
    """

    kind: str
    file: str
    read: Callable[[PathLike, Sequence[str], Sequence[str]], tuple[npt.NDArray[np.float64], int]]
    threshold: float
    rule: str


#: The judgment files of Flickr8K, as Hodosh et al. (2013) turn them into relevance.
JUDGMENT_FILES = (
    JudgmentFile("expert", "ExpertAnnotations.txt", read_expert_judgments, 3.0, "mean expert score >= 3"),
    JudgmentFile(
        "crowd",
        "CrowdFlowerAnnotations.txt",
        read_crowd_judgments,
        0.66,
        "at least 2/3 of the CrowdFlower judges said yes",
    ),
)
