"""Lexical similarities learned from training captions, for the soft-matching TRI-SEM kernel.

* :func:`distributional_similarity`: cosine between words' positive-PMI vectors of positional
  contexts (the words up to two positions away, with their offset) in the captions.
* :func:`alignment_similarity`: how strongly two words occur in *different* captions of the
  same image (one caption says "dog", another "puppy"): normalized PMI of that cross-caption
  co-occurrence, clipped at 0.
* :func:`lin_similarity`: Lin's (1998) WordNet similarity, with SemCor information content
  (:mod:`capeval.ranking.systems.wordnet`; WordNet 3.0 is read from the user's install, the
  ``wordnet`` extra); ``None`` when there is none.

:func:`combine_similarities` averages what is available and keeps, for each word, its
strongest mutual neighbours, giving the sparse matrix ``S`` (unit diagonal) that
:func:`capeval.ranking.systems.kernels.semantic_ngram_kernel` uses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.ranking.systems.kernels import tokenize

__all__ = [
    "alignment_similarity",
    "combine_similarities",
    "distributional_similarity",
    "lin_similarity",
    "similarity_vocabulary",
]

F64 = npt.NDArray[np.float64]


def similarity_vocabulary(captions: Sequence[str], min_count: int = 5) -> list[str]:
    """Words occurring at least ``min_count`` times in ``captions``, most frequent first (ties: alphabetical)."""
    counts = Counter(t for c in captions for t in tokenize(c))
    return sorted((w for w, n in counts.items() if n >= min_count), key=lambda w: (-counts[w], w))


def _ppmi_cosine(co: F64) -> F64:
    total = co.sum()
    rows = co.sum(axis=1, keepdims=True)
    cols = co.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(co * total / (rows * cols))
    ppmi = np.where(np.isfinite(pmi) & (pmi > 0), pmi, 0.0)
    norms = np.linalg.norm(ppmi, axis=1, keepdims=True)
    unit = ppmi / np.where(norms > 0, norms, 1.0)
    sim: F64 = unit @ unit.T
    np.fill_diagonal(sim, 1.0)
    return sim


def distributional_similarity(captions: Sequence[str], words: Sequence[str], window: int = 2) -> F64:
    """Cosine of positive-PMI vectors of positional contexts, over ``words`` (unit diagonal).

    A word's contexts are the words at each offset ``-window..-1, 1..window`` in the same
    caption (offset and word together, so "a _ run" contexts make "dog" and "puppy" alike;
    words outside ``words`` count as one unknown word). A Gram matrix of unit vectors, hence PSD
    (a word without contexts gets a 1 on the diagonal only, which keeps it so).
    """
    index = {w: i for i, w in enumerate(words)}
    n = len(words)
    offsets = [o for o in range(-window, window + 1) if o]
    co = np.zeros((n, len(offsets) * (n + 1)))
    for c in captions:
        ids = [index.get(t, n) for t in tokenize(c)]
        for p, w in enumerate(ids):
            if w == n:
                continue
            for k, o in enumerate(offsets):
                q = p + o
                if 0 <= q < len(ids):
                    co[w, k * (n + 1) + ids[q]] += 1.0
    return _ppmi_cosine(co)


def alignment_similarity(caption_groups: Sequence[Sequence[str]], words: Sequence[str]) -> F64:
    """Normalized PMI of two words occurring in different captions of the same image, clipped at 0.

    Args:
        caption_groups: The captions of each training image.
        words: The words to relate.
    """
    index = {w: i for i, w in enumerate(words)}
    n = len(words)
    pair = np.zeros((n, n))
    single = np.zeros(n)
    events = 0
    for group in caption_groups:
        sets = [np.array(sorted({index[t] for t in tokenize(c) if t in index}), dtype=np.int64) for c in group]
        for a in range(len(sets)):
            for b in range(len(sets)):
                if a == b:
                    continue
                events += 1
                single[sets[a]] += 1.0
                if sets[a].size and sets[b].size:
                    pair[np.ix_(sets[a], sets[b])] += 1.0
    if events == 0:
        return np.eye(n)
    p_pair = pair / events
    p_single = single / events
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(p_pair / np.outer(p_single, p_single))
        npmi = pmi / -np.log(p_pair)
    sim = np.where(np.isfinite(npmi) & (npmi > 0), npmi, 0.0)
    sim = np.minimum(np.maximum(sim, sim.T), 1.0)
    np.fill_diagonal(sim, 1.0)
    return sim


def lin_similarity(
    captions: Sequence[str],
    words: Sequence[str],
    *,
    information_content: str = "semcor",
    senses: int | None = 3,
    wordnet: Any = None,
) -> F64 | None:
    """Lin's WordNet similarity of ``words`` (best pair of noun or verb senses), or ``None`` without WordNet.

    WordNet 3.0 is read at run time (:mod:`capeval.ranking.systems.wordnet`: the ``wordnet``
    extra, or ``$CAPEVAL_WORDNET``); ``None`` when no database is found.

    Args:
        captions: The training captions (counted only for ``information_content="captions"``).
        words: The words to relate.
        information_content: ``semcor`` (WordNet's SemCor sense counts, add-one smoothed) or
            ``captions`` (each occurrence of a word in ``captions`` spread over its senses).
        senses: Senses of each part of speech considered per word (WordNet's order), ``None``: all.
        wordnet: A loaded :class:`~capeval.ranking.systems.wordnet.WordNet` (default: :func:`load_wordnet`).

    Raises:
        ValueError: on an unknown ``information_content``.
    """
    from capeval.ranking.systems.wordnet import WordNetNotFound, lin_matrix, load_wordnet

    if information_content not in ("semcor", "captions"):
        raise ValueError(f"information_content must be 'semcor' or 'captions', got {information_content!r}")
    if wordnet is None:
        try:
            wordnet = load_wordnet()
        except WordNetNotFound:
            return None
    if information_content == "captions":
        wordnet = wordnet.with_word_counts(Counter(t for c in captions for t in tokenize(c)))
    return lin_matrix(wordnet, words, senses=senses)


def combine_similarities(matrices: Sequence[F64 | None], *, neighbours: int = 5, threshold: float = 0.2) -> Any:
    """Average of the available similarity matrices, sparsified: scipy CSR with unit diagonal.

    Each word keeps its ``neighbours`` most similar other words whose averaged similarity is at
    least ``threshold``, and a pair is kept when both words keep each other (symmetric, and no
    word has more than ``neighbours`` neighbours, which bounds the soft n-gram matches).

    Raises:
        ValueError: when no matrix is given, or their shapes differ.
    """
    from scipy import sparse

    present = [np.asarray(m, dtype=np.float64) for m in matrices if m is not None]
    if not present:
        raise ValueError("no lexical similarity to combine")
    if any(m.shape != present[0].shape for m in present):
        raise ValueError("lexical similarity matrices have different shapes")
    avg = np.mean(present, axis=0)
    np.fill_diagonal(avg, -np.inf)
    n = avg.shape[0]
    rows, cols, vals = [], [], []
    if n > 1 and neighbours > 0:
        k = min(neighbours, n - 1)
        top = np.argpartition(-avg, k - 1, axis=1)[:, :k]
        for i in range(n):
            for j in top[i]:
                if avg[i, j] >= threshold:
                    rows.append(i)
                    cols.append(int(j))
                    vals.append(float(avg[i, j]))
    m = sparse.csr_matrix((vals, (rows, cols)), shape=(n, n))
    m = m.minimum(m.T)
    return (m + sparse.identity(n, format="csr")).tocsr()
