"""Lexical similarities learned from training captions, for the soft-matching TRI-SEM kernel.

* :func:`distributional_similarity`: cosine between words' positive-PMI vectors of positional
  contexts (the words up to two positions away, with their offset) in the captions.
* :func:`alignment_similarity`: how strongly two words occur in *different* captions of the
  same image (one caption says "dog", another "puppy"): normalized PMI of that cross-caption
  co-occurrence, clipped at 0.
* :func:`lin_similarity`: Lin's (1998) WordNet similarity, with information content counted
  on the training captions. Needs a WordNet that can be installed (NLTK's reader with its
  ``wordnet`` corpus); ``None`` when it is not there.

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


def lin_similarity(captions: Sequence[str], words: Sequence[str]) -> F64 | None:
    """Lin's WordNet similarity (best pair of noun or verb senses; IC from the captions), or ``None``.

    ``None`` when NLTK or its WordNet corpus cannot be loaded (it is not part of any
    package capeval depends on). Information content: each word occurrence adds
    ``1 / number of its senses`` to each of its synsets and their hypernyms (Resnik 1995).
    """
    try:
        from nltk.corpus import wordnet as wn  # type: ignore[import-not-found, import-untyped, unused-ignore]

        wn.ensure_loaded()
    except Exception:  # noqa: BLE001 - any failure to load the optional corpus means "not available"
        return None
    counts = Counter(t for c in captions for t in tokenize(c))
    freq: dict[Any, float] = {}
    for w, n in counts.items():
        senses = wn.synsets(w, pos="n") + wn.synsets(w, pos="v")
        for s in senses:
            for anc in {s, *s.closure(lambda x: x.hypernyms() + x.instance_hypernyms())}:
                freq[anc] = freq.get(anc, 0.0) + n / len(senses)
    roots = float(sum(v for s, v in freq.items() if not s.hypernyms() and not s.instance_hypernyms()))
    total = max(roots, 1.0)

    def ic(s: Any) -> float:
        return float(-np.log(max(freq.get(s, 0.0), 1e-9) / total))

    senses = [wn.synsets(w, pos="n")[:3] + wn.synsets(w, pos="v")[:3] for w in words]
    sim = np.eye(len(words))
    for i in range(len(words)):
        for j in range(i + 1, len(words)):
            best = 0.0
            for a in senses[i]:
                for b in senses[j]:
                    if a.pos() != b.pos():
                        continue
                    common = a.lowest_common_hypernyms(b)
                    if not common:
                        continue
                    denom = ic(a) + ic(b)
                    if denom > 0:
                        best = max(best, 2.0 * max(ic(c) for c in common) / denom)
            sim[i, j] = sim[j, i] = min(best, 1.0)
    return sim


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
