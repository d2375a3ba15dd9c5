"""Features of ``nneval-v2``: classic metrics with their parts, plus cheap text statistics.

Two groups, both computed on tokenized (lower-cased PTB) items of one corpus:

* **metric features** (:data:`METRIC_FEATURES`): the outputs of capeval's BLEU (1-4),
  METEOR, ROUGE-L, CIDEr-D, SPICE (F, precision, recall and the F of each tuple category)
  and Word Mover's similarity, each with default options (the metrics are the registry's,
  so a result already computed in the same run can be reused);
* **text features** (:data:`TEXT_FEATURES`, :func:`text_features`): clipped unigram and
  bigram precision/recall against the references, IDF-weighted unigram precision/recall
  (informativeness: document frequencies over the corpus' references, as CIDEr-D's),
  best single-reference unigram F, reference consensus (mean pairwise unigram F among the
  references themselves), length ratio, and greedy soft matching with the COCO word vectors
  of :mod:`capeval.metrics.learned.embeddings` (precision, recall, cosine of mean vectors);
  then, on content words (stop words of ``wmd`` removed, :func:`content_features`):
  unsupported candidate words (no exact match, or no reference word within cosine
  :data:`SUPPORT_COSINE`, plain and IDF-weighted; 1 for a candidate without content words;
  the worst word's best cosine), IDF-weighted
  soft precision/recall and best single-reference soft F, coverage of the reference consensus
  (words found in at least two references, weighted by how many: soft, exact, and the share
  missed), soft agreement among the references themselves, candidate-side informativeness
  (mean IDF of its content words, number of content words, length), and how many and how
  specific the unsupported words are (log counts without an exact / a supported match, the
  largest IDF among each, the IDF-weighted share without an exact match, and the smallest share
  of candidate words supported by a single reference);
* **background columns** (:data:`BACKGROUND_FEATURES`, :func:`background_features`): the other
  images of the corpus as a background. Each distinct reference set is one image; the
  candidate's similarity to its own set is ranked among its similarities to the other sets
  (TF-IDF cosine of content words and cosine of mean word vectors: percentile and z-score), and
  the own set's mean TF-IDF cosine with the others says how generic the image is. A background
  set that holds the candidate verbatim is left out of that candidate's comparisons (not of
  the genericness); at most :data:`MAX_BACKGROUND` sets (chosen and ordered by a hash of their
  text, so no value depends on the items' order) form the background.

:func:`feature_matrix` returns the ``(n, n_features)`` matrix in :data:`FEATURES` order.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from capeval.metrics.base import FloatArray
from capeval.metrics.learned._common import RegistryFeatures

__all__ = [
    "FEATURES",
    "METRIC_FEATURES",
    "METRIC_SOURCES",
    "BACKGROUND_FEATURES",
    "MAX_BACKGROUND",
    "TEXT_FEATURES",
    "Background",
    "FeatureSetV2",
    "background",
    "background_features",
    "content_features",
    "derived_columns",
    "document_frequencies",
    "text_features",
]

#: Metric output -> registry key of the metric computing it.
METRIC_SOURCES: Mapping[str, str] = {
    "bleu-1": "bleu",
    "bleu-2": "bleu",
    "bleu-3": "bleu",
    "bleu-4": "bleu",
    "meteor": "meteor",
    "rouge-l": "rouge-l",
    "cider-d": "cider-d",
    "spice": "spice",
    "spice-pr": "spice",
    "spice-re": "spice",
    "spice-object-f": "spice",
    "spice-attribute-f": "spice",
    "spice-relation-f": "spice",
    "spice-cardinality-f": "spice",
    "spice-color-f": "spice",
    "spice-size-f": "spice",
    "wmd": "wmd",
}
METRIC_FEATURES: tuple[str, ...] = tuple(METRIC_SOURCES)
#: Text statistics of :func:`text_features`, in column order.
TEXT_FEATURES: tuple[str, ...] = (
    "p1",
    "r1",
    "p2",
    "r2",
    "idf-p1",
    "idf-r1",
    "best-f1",
    "ref-consensus",
    "log-length-ratio",
    "emb-p",
    "emb-r",
    "emb-cos",
    "exact-unsup",
    "emb-unsup",
    "idf-unsup",
    "emb-min",
    "idf-emb-p",
    "idf-emb-r",
    "idf-emb-f-best",
    "cons-r",
    "cons-r-exact",
    "cons-miss",
    "ref-emb-consensus",
    "cand-idf-mean",
    "n-content",
    "cand-len",
    "n-unsup-emb",
    "n-unsup-exact",
    "max-idf-unsup-exact",
    "max-idf-unsup-emb",
    "idf-exact-unsup",
    "min-ref-support",
)
#: Cosine below which a content word counts as unsupported by (or missing from) the other side.
SUPPORT_COSINE = 0.5
#: Columns of :func:`background_features`, in column order.
BACKGROUND_FEATURES: tuple[str, ...] = ("bg-pct-tfidf", "bg-z-tfidf", "bg-pct-emb", "bg-z-emb", "bg-generic")
#: Largest number of reference sets in the background (larger corpora use a hashed subset).
MAX_BACKGROUND = 1000
#: Bound of the background z-scores (above every training value, 82): a background whose
#: similarities barely vary would otherwise give an unbounded z.
Z_LIMIT = 100.0
#: Similarities closer than this are ties (the same text, summed in another order).
TIE = 1e-9
FEATURES: tuple[str, ...] = METRIC_FEATURES + TEXT_FEATURES + BACKGROUND_FEATURES
#: Key of the text features' corpus data in :meth:`FeatureSetV2.prepare`'s result.
TEXT_KEY = "text-idf"
#: Key of the background columns' corpus data in :meth:`FeatureSetV2.prepare`'s result.
BACKGROUND_KEY = "background"


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _clipped_pr(cand: Counter[Any], refs: Sequence[Counter[Any]]) -> tuple[float, float]:
    """Precision against the max reference counts; recall as the mean over references."""
    if not cand:
        return 0.0, 0.0
    union: Counter[Any] = Counter()
    for r in refs:
        union |= r
    p = sum(min(c, union[g]) for g, c in cand.items()) / sum(cand.values())
    recalls = [sum(min(c, cand[g]) for g, c in r.items()) / sum(r.values()) for r in refs if r]
    return p, float(np.mean(recalls)) if recalls else 0.0


def _f1(a: Counter[Any], b: Counter[Any]) -> float:
    if not a or not b:
        return 0.0
    hit = sum((a & b).values())
    return 2.0 * hit / (sum(a.values()) + sum(b.values()))


def document_frequencies(references: Sequence[Sequence[str]]) -> tuple[Counter[str], int]:
    """Unigram document frequencies over a corpus' reference sets (one document per item)."""
    df: Counter[str] = Counter()
    for refs in references:
        df.update({w for r in refs for w in r.split()})
    return df, len(references)


def text_features(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    embeddings: Any = None,
    frequencies: tuple[Counter[str], int] | None = None,
) -> FloatArray:
    """``(n, len(TEXT_FEATURES))`` text statistics of tokenized items.

    Args:
        candidates: Tokenized candidates (space-separated tokens).
        references: Tokenized references of each candidate.
        embeddings: :class:`~capeval.metrics.learned.embeddings.WordEmbeddings` (default: the
            shipped COCO vectors).
        frequencies: :func:`document_frequencies` of the whole corpus (default: of these
            references), so that shards score as the whole corpus does.
    """
    from capeval.metrics.learned.embeddings import load_embeddings
    from capeval.metrics.learned.wmd import STOP_WORDS

    emb = embeddings if embeddings is not None else load_embeddings()
    index = emb.index()
    vectors = np.asarray(emb.vectors, dtype=np.float64)
    df, n_docs = frequencies if frequencies is not None else document_frequencies(references)
    n_docs = max(n_docs, 1)

    def idf(word: str) -> float:
        return math.log((n_docs + 1.0) / (df.get(word, 0) + 1.0))

    out = np.zeros((len(candidates), len(TEXT_FEATURES)))
    for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
        ct = cand.split()
        rts = [r.split() for r in refs]
        c1 = _ngrams(ct, 1)
        r1s = [_ngrams(r, 1) for r in rts]
        p1, r1 = _clipped_pr(c1, r1s)
        p2, r2 = _clipped_pr(_ngrams(ct, 2), [_ngrams(r, 2) for r in rts])
        ref_words = {w for r in rts for w in r}
        cw = [idf(w) for w in ct]
        idf_p = sum(v for w, v in zip(ct, cw, strict=True) if w in ref_words) / sum(cw) if sum(cw) > 0 else 0.0
        idf_r_parts = []
        for r in rts:
            rw = [idf(w) for w in r]
            cset = set(ct)
            total = sum(rw)
            if total > 0:
                idf_r_parts.append(sum(v for w, v in zip(r, rw, strict=True) if w in cset) / total)
        idf_r = float(np.mean(idf_r_parts)) if idf_r_parts else 0.0
        best = max((_f1(c1, r) for r in r1s), default=0.0)
        pair = [_f1(r1s[a], r1s[b]) for a in range(len(r1s)) for b in range(a + 1, len(r1s))]
        consensus = float(np.mean(pair)) if pair else 1.0
        mean_len = float(np.mean([len(r) for r in rts])) if rts else 1.0
        length = math.log((len(ct) + 1.0) / (mean_len + 1.0))
        crow = [index[w] for w in ct if w in index and w not in STOP_WORDS]
        rrow = [[index[w] for w in r if w in index and w not in STOP_WORDS] for r in rts]
        emb_p = emb_r = emb_cos = 0.0
        if crow and any(rrow):
            cv = vectors[crow]
            ps, rs, coss = [], [], []
            for rows in rrow:
                if not rows:
                    continue
                rv = vectors[rows]
                sim = cv @ rv.T
                ps.append(float(sim.max(axis=1).mean()))
                rs.append(float(sim.max(axis=0).mean()))
                a, b = cv.mean(axis=0), rv.mean(axis=0)
                denom = float(np.linalg.norm(a) * np.linalg.norm(b))
                coss.append(float(a @ b) / denom if denom > 0 else 0.0)
            emb_p, emb_r, emb_cos = float(np.max(ps)), float(np.mean(rs)), float(np.mean(coss))
        base = (p1, r1, p2, r2, idf_p, idf_r, best, consensus, length, emb_p, emb_r, emb_cos)
        out[i, : len(base)] = base
        out[i, len(base) :] = content_features(ct, rts, index, vectors, idf)
    return out


def content_features(
    candidate: Sequence[str],
    references: Sequence[Sequence[str]],
    index: Mapping[str, int],
    vectors: FloatArray,
    idf: Any,
) -> list[float]:
    """The content-word features of one item (``exact-unsup`` ... ``min-ref-support`` of :data:`TEXT_FEATURES`).

    Args:
        candidate: Candidate tokens.
        references: Tokens of each reference.
        index: Word -> row of ``vectors`` (unit length).
        vectors: Word vectors.
        idf: Function word -> inverse document frequency.
    """
    ct = _content(candidate)
    rts = [_content(r) for r in references]
    ref_words = {w for r in rts for w in r}
    unsup_exact = [w for w in ct if w not in ref_words]
    # Words without a supported match (words outside the vectors never have one).
    unsup_emb = [w for w in ct if w not in index]
    support: list[float] = []
    known = [w for w in ct if w in index]
    known_refs = [[w for w in r if w in index] for r in rts]
    pooled = sorted({w for r in known_refs for w in r})
    counts = Counter(w for r in rts for w in set(r))
    shared = {w: n for w, n in counts.items() if n >= 2}
    # A candidate without (known) content words has no supported word: its unsupported shares are 1.
    exact_unsup = float(np.mean([w not in ref_words for w in ct])) if ct else 1.0
    cand_words = set(ct)
    cons_exact = sum(n for w, n in shared.items() if w in cand_words) / sum(shared.values()) if shared else 0.0
    emb_unsup = idf_unsup = 1.0
    emb_min = idf_p = idf_r = f_best = cons = 0.0
    cons_words = [w for w in sorted(shared) if w in index]
    cons_miss = 1.0 if cons_words else 0.0
    if not pooled:
        unsup_emb = list(ct)
    if known and pooled:
        cv = vectors[[index[w] for w in known]]
        best = (cv @ vectors[[index[w] for w in pooled]].T).max(axis=1)
        unsup_emb = [w for w, b in zip(known, best, strict=True) if b < SUPPORT_COSINE] + unsup_emb
        wi = np.array([idf(w) for w in known])
        emb_min = float(best.min())
        emb_unsup = float((best < SUPPORT_COSINE).mean())
        idf_unsup = emb_unsup
        if wi.sum() > 0:
            idf_p = float((wi * best).sum() / wi.sum())
            idf_unsup = float((wi * (best < SUPPORT_COSINE)).sum() / wi.sum())
        recalls = []
        for words in known_refs:
            if not words:
                continue
            sim = cv @ vectors[[index[w] for w in words]].T
            support.append(float((sim.max(axis=1) >= SUPPORT_COSINE).mean()))
            wr = np.array([idf(w) for w in words])
            recalls.append(float((wr * sim.max(axis=0)).sum() / wr.sum()) if wr.sum() > 0 else 0.0)
            p = float((wi * sim.max(axis=1)).sum() / max(wi.sum(), 1e-9))
            r = float((wr * sim.max(axis=0)).sum() / max(wr.sum(), 1e-9))
            if p + r > 0:
                f_best = max(f_best, 2 * p * r / (p + r))
        idf_r = float(np.mean(recalls)) if recalls else 0.0
        if cons_words:
            covered = (vectors[[index[w] for w in cons_words]] @ cv.T).max(axis=1)
            wn = np.array([shared[w] for w in cons_words], dtype=np.float64)
            cons = float((wn * covered).sum() / wn.sum())
            cons_miss = float((wn * (covered < SUPPORT_COSINE)).sum() / wn.sum())
    agreement = []
    for a, words in enumerate(known_refs):
        others = sorted({w for b, r in enumerate(known_refs) if b != a for w in r})
        if words and others:
            sim = vectors[[index[w] for w in words]] @ vectors[[index[w] for w in others]].T
            agreement.append(float(sim.max(axis=1).mean()))
    ref_agreement = float(np.mean(agreement)) if agreement else 1.0
    informativeness = float(np.mean([idf(w) for w in ct])) if ct else 0.0
    idf_all = sum(idf(w) for w in ct)
    return [
        exact_unsup,
        emb_unsup,
        idf_unsup,
        emb_min,
        idf_p,
        idf_r,
        f_best,
        cons,
        cons_exact,
        cons_miss,
        ref_agreement,
        informativeness,
        math.log(1.0 + len(ct)),
        math.log(1.0 + len(candidate)),
        math.log(1.0 + len(unsup_emb)),
        math.log(1.0 + len(unsup_exact)),
        max((idf(w) for w in unsup_exact), default=0.0),
        max((idf(w) for w in unsup_emb), default=0.0),
        sum(idf(w) for w in unsup_exact) / idf_all if idf_all > 0 else exact_unsup,
        min(support) if support else 0.0,
    ]


@dataclass(frozen=True)
class Background:
    """The corpus' reference sets as the background of :func:`background_features`.

    Attributes:
        vocabulary: Content word -> column of the TF-IDF vectors.
        idf: ``log(m / df)`` of each column, ``df`` counted over the ``m`` distinct reference sets.
        tfidf: ``(b, V)`` unit-length TF-IDF vectors of the background sets (zero rows stay
            zero), in the order of the SHA-256 of the sets' text.
        mean_vectors: ``(b, dim)`` unit-length mean word vectors of the background sets (zero
            for a set without a word in the vectors).
        rows: Reference set (tuple of tokenized references) -> background row, for the sets in
            the background.
        verbatim: Tokenized reference -> background rows whose set holds it.
        n_sets: Number of distinct reference sets in the corpus (``m``).
    """

    vocabulary: Mapping[str, int]
    idf: npt.NDArray[np.float64]
    tfidf: Any
    mean_vectors: npt.NDArray[np.float64]
    rows: Mapping[tuple[str, ...], int]
    verbatim: Mapping[str, tuple[int, ...]]
    n_sets: int


def _set_order(refs: tuple[str, ...]) -> bytes:
    return hashlib.sha256("\n".join(refs).encode("utf-8")).digest()


def _content(tokens: Sequence[str]) -> list[str]:
    from capeval.metrics.learned.wmd import STOP_WORDS

    return [w for w in tokens if w not in STOP_WORDS]


def _mean_vector(words: Sequence[str], index: Mapping[str, int], vectors: FloatArray) -> FloatArray:
    rows = [index[w] for w in words if w in index]
    if not rows:
        return np.zeros(vectors.shape[1])
    v = vectors[rows].mean(axis=0)
    norm = float(np.linalg.norm(v))
    return np.asarray(v / norm if norm > 0 else v, dtype=np.float64)


def _tfidf_rows(docs: Sequence[Sequence[str]], vocabulary: Mapping[str, int], idf: FloatArray) -> Any:
    """Unit-length TF-IDF rows (sparse) of content-word lists; words outside the vocabulary are dropped."""
    import scipy.sparse as sp

    cols = [[vocabulary[w] for w in d if w in vocabulary] for d in docs]
    row = np.repeat(np.arange(len(cols)), [len(c) for c in cols])
    col = np.fromiter((j for c in cols for j in c), dtype=np.int64, count=len(row))
    m = sp.csr_matrix((idf[col], (row, col)), shape=(len(cols), len(idf)))
    m.sum_duplicates()
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    return sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ m


def background(references: Sequence[Sequence[str]], embeddings: Any = None) -> Background:
    """The :class:`Background` of a corpus from its tokenized references (one list per item)."""
    from capeval.metrics.learned.embeddings import load_embeddings

    sets = list(dict.fromkeys(tuple(r) for r in references))
    m = len(sets)
    # Rows in the order of the sets' hashes: neither the choice nor any sum over the rows
    # depends on the order of the items.
    chosen = sorted(sets, key=_set_order)[:MAX_BACKGROUND]
    rows = {s: b for b, s in enumerate(chosen)}
    words: dict[tuple[str, ...], list[str]] = {}
    df: Counter[str] = Counter()
    for s in sets:
        content = [w for r in s for w in _content(r.split())]
        df.update(set(content))
        if s in rows:
            words[s] = content
    ordered = sorted(df)
    vocabulary = {w: j for j, w in enumerate(ordered)}
    idf = np.array([math.log(m / df[w]) for w in ordered], dtype=np.float64)
    verbatim: dict[str, list[int]] = {}
    for b, s in enumerate(chosen):
        for r in dict.fromkeys(" ".join(r.split()) for r in s):
            verbatim.setdefault(r, []).append(b)
    emb = embeddings if embeddings is not None else load_embeddings()
    index, vectors = emb.index(), np.asarray(emb.vectors, dtype=np.float64)
    tfidf = _tfidf_rows([words[s] for s in chosen], vocabulary, idf).tocsr()
    mean_vectors = np.array([_mean_vector(words[s], index, vectors) for s in chosen]).reshape(
        len(chosen), vectors.shape[1]
    )
    return Background(vocabulary, idf, tfidf, mean_vectors, rows, {r: tuple(b) for r, b in verbatim.items()}, m)


def _contrast(own: FloatArray, sims: FloatArray, keep: npt.NDArray[np.bool_]) -> tuple[FloatArray, FloatArray]:
    """Percentile and z-score of ``own`` among each row's kept ``sims``; 0.5 and 0 when none is kept.

    Similarities within :data:`TIE` of ``own`` are ties (counted half): the same text gives the
    same similarity up to rounding. A spread (standard deviation) below :data:`TIE` gives z 0.
    """
    k = keep.sum(axis=1)
    diff = sims - own[:, None]
    below = ((diff < -TIE) & keep).sum(axis=1)
    ties = ((np.abs(diff) <= TIE) & keep).sum(axis=1)
    pct = np.where(k > 0, (below + 0.5 * ties) / np.maximum(k, 1), 0.5)
    n = np.maximum(k, 1)
    mean = np.where(keep, sims, 0.0).sum(axis=1) / n
    sd = np.sqrt(np.where(keep, (sims - mean[:, None]) ** 2, 0.0).sum(axis=1) / n)
    z = np.where((k > 0) & (sd > TIE), (own - mean) / np.maximum(sd, TIE), 0.0)
    return pct, np.clip(z, -Z_LIMIT, Z_LIMIT)


def background_features(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    bg: Background | None = None,
    embeddings: Any = None,
    *,
    chunk: int = 2048,
) -> FloatArray:
    """``(n, len(BACKGROUND_FEATURES))`` background columns of tokenized items.

    Args:
        candidates: Tokenized candidates.
        references: Tokenized references of each candidate.
        bg: :func:`background` of the whole corpus (default: of these references), so that
            shards score as the whole corpus does.
        embeddings: Word vectors (default: the shipped COCO vectors).
        chunk: Items per block of the similarity matrices.
    """
    from capeval.metrics.learned.embeddings import load_embeddings

    emb = embeddings if embeddings is not None else load_embeddings()
    index, vectors = emb.index(), np.asarray(emb.vectors, dtype=np.float64)
    bg = bg if bg is not None else background(references, emb)
    out = np.zeros((len(candidates), len(BACKGROUND_FEATURES)))
    n_bg = bg.tfidf.shape[0]
    for start in range(0, len(candidates), chunk):
        cands = [c.split() for c in candidates[start : start + chunk]]
        # Each distinct own set of the block is prepared once (items of one image share it).
        sets = [tuple(r) for r in references[start : start + chunk]]
        distinct = list(dict.fromkeys(sets))
        position = {s: i for i, s in enumerate(distinct)}
        of_item = np.array([position[s] for s in sets], dtype=np.int64)
        cwords = [_content(c) for c in cands]
        owords = [[w for r in rs for w in _content(r.split())] for rs in distinct]
        # The own set (when it is in the background) is never compared with itself.
        own_row = np.array([bg.rows.get(rs, -1) for rs in distinct], dtype=np.int64)[of_item]
        not_own = np.ones((len(cands), n_bg), dtype=bool)
        in_bg = np.flatnonzero(own_row >= 0)
        not_own[in_bg, own_row[in_bg]] = False
        keep = not_own.copy()
        for i, c in enumerate(cands):
            keep[i, list(bg.verbatim.get(" ".join(c), ()))] = False
        ct, ot = _tfidf_rows(cwords, bg.vocabulary, bg.idf), _tfidf_rows(owords, bg.vocabulary, bg.idf)[of_item]
        sims = (ct @ bg.tfidf.T).toarray()
        own = np.asarray(ct.multiply(ot).sum(axis=1)).ravel()
        p1, z1 = _contrast(own, sims, keep)
        cv = np.array([_mean_vector(w, index, vectors) for w in cwords]).reshape(len(cands), -1)
        ov = np.array([_mean_vector(w, index, vectors) for w in owords]).reshape(len(distinct), -1)[of_item]
        # One product per row, so that a row's values do not depend on the block it is in.
        emb_sims = np.array([bg.mean_vectors @ v for v in cv]).reshape(len(cands), n_bg)
        p2, z2 = _contrast((cv * ov).sum(axis=1), emb_sims, keep)
        # Genericness: the own set against the other background sets.
        gen_sims = (ot @ bg.tfidf.T).toarray()
        n_other = not_own.sum(axis=1)
        generic = np.where(n_other > 0, np.where(not_own, gen_sims, 0.0).sum(axis=1) / np.maximum(n_other, 1), 0.0)
        out[start : start + len(cands)] = np.column_stack([p1, z1, p2, z2, generic])
    return out


def derived_columns(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    embeddings: Any = None,
    prepared: Mapping[str, Any] | None = None,
) -> FloatArray:
    """The columns after the metric features: :func:`text_features`, then :func:`background_features`.

    Args:
        candidates: Tokenized candidates.
        references: Tokenized references of each candidate.
        embeddings: Word vectors (default: the shipped COCO vectors).
        prepared: :meth:`FeatureSetV2.prepare` of the whole corpus (default: these items are the corpus).
    """
    frequencies = prepared.get(TEXT_KEY) if prepared is not None else None
    bg = prepared.get(BACKGROUND_KEY) if prepared is not None else None
    text = text_features(candidates, references, embeddings, frequencies)
    return np.hstack([text, background_features(candidates, references, bg, embeddings)])


class FeatureSetV2(RegistryFeatures):
    """The metrics behind ``nneval-v2``'s features (built lazily, default options).

    Args:
        tokenizer: Tokenizer of the feature metrics (they receive tokenized text).
        options: Extra constructor options per registry key (e.g. ``{"spice": {"cache": False}}``).
    """

    def __init__(self, *, tokenizer: Any = "none", options: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        super().__init__(FEATURES, METRIC_SOURCES, tokenizer=tokenizer, options=options)

    def fingerprint(self) -> str:
        """Short hash of the feature metrics' configuration (values of their signature fields)."""
        return self._fingerprint(
            ["text:" + ",".join(TEXT_FEATURES), f"background:{','.join(BACKGROUND_FEATURES)}:{MAX_BACKGROUND}"]
        )

    def prepare(self, references: Sequence[Sequence[str]]) -> dict[str, Any]:
        """Each feature metric's corpus-level reference data, the IDF features' frequencies and the background."""
        out = self._metric_prepare(references)
        out[TEXT_KEY] = document_frequencies(references)
        out[BACKGROUND_KEY] = background(references, getattr(self.metric("wmd"), "embeddings", None))
        return out

    def metric_columns(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> FloatArray:
        """``(n, len(METRIC_FEATURES))`` metric outputs of tokenized items."""
        return self._metric_matrix(self._metric_outputs(candidates, references, None, None), len(candidates))

    @staticmethod
    def _metric_matrix(columns: Mapping[str, FloatArray], n: int) -> FloatArray:
        if not n:
            return np.zeros((0, len(METRIC_FEATURES)))
        # A SPICE category without tuples on either side has no F (NaN): count it as 0.
        return np.nan_to_num(np.column_stack([columns[f] for f in METRIC_FEATURES]), nan=0.0)

    def _matrix(
        self,
        columns: Mapping[str, FloatArray],
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        prepared: Mapping[str, Any] | None,
    ) -> FloatArray:
        """Metric columns (NaN as 0), then :func:`text_features` and :func:`background_features`."""
        metric = self._metric_matrix(columns, len(candidates))
        embeddings = getattr(self.metric("wmd"), "embeddings", None)
        return np.hstack([metric, derived_columns(candidates, references, embeddings, prepared)])
