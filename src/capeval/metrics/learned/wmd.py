"""Word Mover's similarity: ``exp(-WMD)`` between a candidate and its references.

Word Mover's Distance (Kusner et al. 2015, "From word embeddings to document distances") is
the least total distance, in embedding space, that the normalised bag of words of one text
must travel to become the other's: an optimal-transport problem whose ground cost is the
Euclidean distance between word vectors. NNEval (Sharif et al. 2018, following Kilickaya et
al. 2017) turns it into a similarity with a negative exponential, ``exp(-WMD)``.

capeval's choices (each one is in the signature):

* Embeddings: NNEval used word2vec GoogleNews vectors (300-d, 3M words), which no package
  registry carries. capeval ships 100-d PPMI-SVD vectors trained on the COCO train2014
  captions (:mod:`capeval.metrics.learned.embeddings`); they are unit-length, so ground
  distances lie in [0, 2].
* Out-of-vocabulary tokens are dropped, as gensim's ``wmdistance`` does; a candidate or
  reference with no known word has similarity 0.
* Stop words: removed by default (``stopwords="drop"``, :data:`STOP_WORDS`), as Kusner et
  al. did; ``"keep"`` keeps them. Dropping them raises caption-level Kendall tau-c from
  0.340 to 0.462 on Flickr8K-Expert (dev) (``docs/metrics/wmd.md``).
* Several references: the item score is the **mean** similarity over references by default
  (``combine="mean"``); ``"max"`` takes the best one. The mean correlates slightly better
  with human judgments on Flickr8K-Expert (dev) and THumB (``docs/metrics/wmd.md``).
* The transport problem is solved exactly with POT (``pot`` on PyPI) when installed, else
  with scipy's HiGHS linear programme; both give the same optimum.

Statistics row per item: ``[item_score, 1]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics.base import FloatArray, MeanMetric
from capeval.metrics.learned.embeddings import WordEmbeddings, load_embeddings
from capeval.tokenizers.base import Tokenizer

__all__ = ["COMBINE_RULES", "STOP_WORDS", "WMDSimilarity", "word_movers_distance"]

#: How the similarities to several references become one item score.
COMBINE_RULES = ("max", "mean")
#: Function words removed with ``stopwords="drop"``: English articles, be/have/do forms,
#: pronouns, prepositions and conjunctions that are frequent in captions (capeval's own list).
STOP_WORDS = frozenset(
    """a an the and or but of in on at to for with from by into onto over under near next up
    down out off through across along around behind beside between above below while as it its
    is are was were be been being has have had do does did this that these those there here
    his her their our my your he she they we you i him them some very""".split()
)


def _bag(
    tokens: Sequence[str], index: dict[str, int], drop: frozenset[str]
) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """Vocabulary rows of the in-vocabulary words and their normalised counts."""
    counts: dict[int, int] = {}
    for token in tokens:
        if token in drop:
            continue
        row = index.get(token)
        if row is not None:
            counts[row] = counts.get(row, 0) + 1
    if not counts:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    rows = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
    weights = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    return rows, weights / weights.sum()


def _emd(a: FloatArray, b: FloatArray, cost: FloatArray) -> float:
    """Exact earth mover's distance between histograms ``a`` and ``b`` under ``cost``."""
    if a.size == 1 or b.size == 1:
        # One side is a single point: all mass moves to (or from) it.
        return float((cost * (a[:, None] if b.size == 1 else b[None, :])).sum())
    try:
        import ot
    except ImportError:
        return _emd_linprog(a, b, cost)
    return float(ot.emd2(a, b, cost))


def _emd_linprog(a: FloatArray, b: FloatArray, cost: FloatArray) -> float:
    try:
        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix, vstack
    except ImportError as exc:
        from capeval._install import needs_extra

        raise ImportError(needs_extra("WMD (optimal transport with POT or scipy)", "learned")) from exc

    m, n = cost.shape
    flat = np.arange(m * n)
    rows_a = coo_matrix((np.ones(m * n), (flat // n, flat)), shape=(m, m * n))
    rows_b = coo_matrix((np.ones(m * n), (flat % n, flat)), shape=(n, m * n))
    # One constraint is redundant (both sides sum to 1); drop it for a well-posed system.
    equality = vstack([rows_a, rows_b]).tocsr()[:-1]
    res = linprog(cost.ravel(), A_eq=equality, b_eq=np.concatenate([a, b])[:-1], bounds=(0, None), method="highs")
    if not res.success:
        raise RuntimeError(f"transport problem failed: {res.message}")
    return float(res.fun)


def word_movers_distance(
    candidate: Sequence[str],
    reference: Sequence[str],
    embeddings: WordEmbeddings | None = None,
    *,
    stopwords: str = "drop",
) -> float:
    """Word Mover's Distance between two token lists (``inf`` when one has no known word).

    Example:
        >>> word_movers_distance("a dog runs".split(), "a dog runs".split())
        0.0
    """
    emb = embeddings or load_embeddings()
    drop = STOP_WORDS if stopwords == "drop" else frozenset()
    index = emb.index()
    rows_c, w_c = _bag(candidate, index, drop)
    rows_r, w_r = _bag(reference, index, drop)
    if rows_c.size == 0 or rows_r.size == 0:
        return float("inf")
    return _emd(w_c, w_r, _distances(emb.vectors[rows_c], emb.vectors[rows_r]))


def _distances(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32]) -> FloatArray:
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    squared = (x64**2).sum(1)[:, None] + (y64**2).sum(1)[None, :] - 2.0 * x64 @ y64.T
    return np.asarray(np.sqrt(np.maximum(squared, 0.0)), dtype=np.float64)


class WMDSimilarity(MeanMetric):
    """Word Mover's similarity ``exp(-WMD)`` to the references (NNEval's WMD feature).

    Args:
        combine: ``"mean"`` (default) or ``"max"`` of the similarities to the references.
        stopwords: ``"drop"`` (default: remove :data:`STOP_WORDS` first) or ``"keep"``.
        embeddings: Vectors to use (default: the COCO vectors shipped with capeval).
        tokenizer: Tokenizer name or instance (default ``"ptb"``).

    Raises:
        ValueError: on an unknown ``combine`` or ``stopwords`` value.

    Example:
        >>> wmd = WMDSimilarity(tokenizer="ws")
        >>> r = wmd.score(candidates=["a dog runs on grass"], references=[["a dog runs on the grass"]])
        >>> r.score
        1.0
    """

    name = "wmd"
    outputs = ("wmd",)

    def __init__(
        self,
        *,
        combine: str = "mean",
        stopwords: str = "drop",
        embeddings: WordEmbeddings | None = None,
        tokenizer: str | Tokenizer = "ptb",
    ) -> None:
        super().__init__(tokenizer=tokenizer)
        if combine not in COMBINE_RULES:
            raise ValueError(f"combine must be one of {', '.join(COMBINE_RULES)}, got {combine!r}")
        if stopwords not in ("keep", "drop"):
            raise ValueError(f"stopwords must be 'keep' or 'drop', got {stopwords!r}")
        self.combine = combine
        self.stopwords = stopwords
        self._embeddings = embeddings

    @property
    def embeddings(self) -> WordEmbeddings:
        """The word vectors (loaded on first use)."""
        if self._embeddings is None:
            self._embeddings = load_embeddings()
        return self._embeddings

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """``combine`` over references of ``exp(-WMD(candidate, reference))``."""
        emb = self.embeddings
        index = emb.index()
        drop = STOP_WORDS if self.stopwords == "drop" else frozenset()
        out = np.zeros(len(candidates))
        for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
            rows_c, w_c = _bag(cand.split(), index, drop)
            sims = np.zeros(len(refs))
            if rows_c.size:
                for j, ref in enumerate(refs):
                    rows_r, w_r = _bag(ref.split(), index, drop)
                    if rows_r.size:
                        cost = _distances(emb.vectors[rows_c], emb.vectors[rows_r])
                        sims[j] = np.exp(-_emd(w_c, w_r, cost))
            out[i] = sims.max() if self.combine == "max" else sims.mean()
        return out

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """Embeddings (name and digest), stop-word rule and reference combination."""
        emb = self.embeddings
        return (("emb", f"{emb.name}-{emb.digest}"), ("stop", self.stopwords), ("refs", self.combine))
