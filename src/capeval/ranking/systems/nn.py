"""The nearest-neighbour baseline of Hodosh et al. (2013) ("NN5").

A query image borrows the five captions of its nearest training image (largest image-kernel
value); a candidate caption is scored by its mean IDF-weighted F1 against those five
captions. F1 over word types: precision is the IDF mass of the candidate's words found in a
training caption over the candidate's IDF mass, recall the same over the training caption's
mass. The same matrix ranks captions for an image (annotation) and images for a caption
(search).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.ranking.systems.kernels import Vocabulary, tokenize

__all__ = ["idf_f1", "nearest_neighbour_scores"]

F64 = npt.NDArray[np.float64]


def _type_rows(captions: Sequence[str], vocabulary: Vocabulary, idf: Mapping[str, float]) -> Any:
    from scipy import sparse

    rows, cols, vals = [], [], []
    for i, c in enumerate(captions):
        for t in dict.fromkeys(tokenize(c)):  # word types in caption order: columns, and sums, do not vary by run
            rows.append(i)
            cols.append(vocabulary.id(t))
            vals.append(idf.get(t, idf.get("", 1.0)))
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(captions), max(len(vocabulary), 1)))


def idf_f1(candidates: Sequence[str], references: Sequence[str], idf: Mapping[str, float]) -> F64:
    """``(n_candidates, n_references)`` IDF-weighted F1 of word-type overlap.

    Args:
        candidates: Captions to score.
        references: Captions to compare with.
        idf: Word weights; the key ``""`` gives the weight of unknown words (default 1).

    Example:
        >>> idf_f1(["a dog run"], ["a dog"], {"a": 1.0, "dog": 2.0, "run": 1.0}).round(4).tolist()
        [[0.8571]]
    """
    from scipy import sparse

    vocabulary = Vocabulary()
    a = _type_rows(candidates, vocabulary, idf)
    b = _type_rows(references, vocabulary, idf)
    width = len(vocabulary)
    a = sparse.csr_matrix((a.data, a.indices, a.indptr), shape=(a.shape[0], width))
    b = sparse.csr_matrix((b.data, b.indices, b.indptr), shape=(b.shape[0], width))
    overlap = np.asarray(
        (a @ sparse.csr_matrix((np.ones_like(b.data), b.indices, b.indptr), shape=b.shape).T).toarray()
    )
    mass_a = np.asarray(a.sum(axis=1)).ravel()
    mass_b = np.asarray(b.sum(axis=1)).ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        p = overlap / mass_a[:, None]
        r = overlap / mass_b[None, :]
        f = 2 * p * r / (p + r)
    return np.where(np.isfinite(f), f, 0.0)


def idf_weights(captions: Sequence[str]) -> dict[str, float]:
    """``log(N / df)`` of every word over ``captions`` (documents); unknown words (key ``""``) get ``log(N)``."""
    df: dict[str, int] = {}
    for c in captions:
        for t in set(tokenize(c)):
            df[t] = df.get(t, 0) + 1
    n = len(captions)
    out = {t: math.log(n / k) for t, k in df.items()}
    out[""] = math.log(max(n, 1))
    return out


def nearest_neighbour_scores(
    image_kernel_rows: Any,
    train_captions: Sequence[Sequence[str]],
    candidates: Sequence[str],
    idf: Mapping[str, float],
) -> F64:
    """NN5 scores ``(n_query_images, n_candidates)``.

    Args:
        image_kernel_rows: ``(n_query_images, n_train)`` image-kernel values against training images.
        train_captions: The captions of each training image.
        candidates: The candidate captions (the pool).
        idf: Word weights (see :func:`idf_f1`).

    Raises:
        ValueError: on inconsistent sizes.
    """
    k = np.asarray(image_kernel_rows, dtype=np.float64)
    if k.ndim != 2 or k.shape[1] != len(train_captions):
        raise ValueError(f"image kernel rows {k.shape} do not match {len(train_captions)} training images")
    nearest = np.argmax(k, axis=1)
    used = sorted(set(nearest.tolist()))
    refs = [c for i in used for c in train_captions[i]]
    starts = np.cumsum([0] + [len(train_captions[i]) for i in used])
    f1 = idf_f1(candidates, refs, idf)  # (n_candidates, n_refs)
    where = {img: j for j, img in enumerate(used)}
    out = np.empty((k.shape[0], len(candidates)))
    for q, img in enumerate(nearest):
        j = where[int(img)]
        out[q] = f1[:, starts[j] : starts[j + 1]].mean(axis=1)
    return out
