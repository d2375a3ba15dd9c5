"""CIDEr-D (the COCO evaluation's "CIDEr") and the original CIDEr.

CIDEr-D reproduces ``pycocoevalcap==1.2`` ``cider/cider_scorer.py`` (the scorer the COCO
evaluation reports as ``CIDEr``):

* n-grams of orders 1..4 from ``str.split()`` of the PTB-tokenized caption, raw counts as
  term frequencies;
* document frequency of an n-gram = number of *items* (images) whose references contain it,
  taken from the references being evaluated (so a caption's score depends on which other
  images are scored with it), and ``idf = log(n_items) - log(max(1, df))``;
* per order, the candidate vector is compared with each reference vector as
  ``sum_g min(v_c(g), v_r(g)) * v_r(g) / (|v_c| |v_r|)`` (clipping);
* each comparison is multiplied by ``e ** (-(delta ** 2) / (2 * sigma ** 2))`` with
  ``sigma = 6``, where the official code's "length" is the number of *bigrams* of the
  sentence (``len - 1`` for two or more words, 0 for one word), not its word count;
* the item score is the mean over orders of the sum over references, divided by the
  number of references, times 10; the corpus score is the mean of the item scores.

Two departures are available as options: document frequencies from a frozen external
corpus (``df=DocumentFrequencies...``, the convention of reinforcement-learning rewards,
where batch-local frequencies would be degenerate), and :class:`CIDEr`, the original metric
of Vedantam et al. (2015) without clipping, length penalty or the factor 10.

Statistics row per item: ``[item_score, 1]`` (the corpus score is a mean of item scores).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from capeval.metrics import _cider_kernel
from capeval.metrics.base import FloatArray, MeanMetric, warn_caller
from capeval.metrics.ngrams import (
    IntArray,
    NgramTable,
    count_ngrams,
    group_runs,
    ranks_within,
    sort_with_positions,
)
from capeval.tokenizers.base import Tokenizer

__all__ = ["CIDEr", "CIDErD", "DocumentFrequencies", "OneDocumentWarning", "SelfCIDErResult", "self_cider"]

#: Gaussian length-penalty width of CIDEr-D (Vedantam et al. 2015; pycocoevalcap ``sigma=6.0``).
CIDER_D_SIGMA = 6.0
#: Scale factor of CIDEr-D, "to make the scores comparable to other metrics" (pycocoevalcap ``* 10.0``).
CIDER_D_SCALE = 10.0
#: Highest n-gram order (pycocoevalcap ``n=4``).
CIDER_MAX_N = 4


class OneDocumentWarning(UserWarning):
    """CIDEr with document frequencies from the references of one image: every score is 0.

    With one document, every n-gram of the references occurs in all documents, so every idf is
    ``log(1) - log(1) = 0`` (the official code gives 0 too). Score all images of a corpus in one
    call, or give frozen document frequencies (``df=``).
    """


def _warn_one_document(metric: str) -> None:
    warn_caller(
        OneDocumentWarning(
            f"{metric}: document frequencies from the references of a single image make every idf "
            "log(1/1) = 0, so every score is 0; score all images in one call (the frequencies come from "
            "all their references) or give frozen document frequencies (df=...)"
        )
    )


@dataclass(frozen=True, eq=False)
class DocumentFrequencies:
    """N-gram document frequencies of a reference corpus, frozen for reuse.

    A document is an item (an image with all its references), as in the official scorer.
    The n-grams are stored as an index (words, and each n-gram as its prefix n-gram plus a
    last word) so that looking up a whole batch is a few vectorized searches.

    Build with :meth:`from_references`; save and load with :meth:`save` / :meth:`load`.

    Attributes:
        n_documents: Number of documents; ``log(n_documents)`` is the idf numerator.
        name: Short label recorded in the signature (``df:<name>-<n_documents>``).
        n: Highest n-gram order counted.
    """

    n_documents: int
    name: str
    n: int
    vocab: tuple[str, ...]
    prefix: IntArray
    last_word: IntArray
    offsets: IntArray
    df: FloatArray
    _word_index: dict[str, int] = field(default_factory=dict, repr=False)
    _order_keys: dict[int, IntArray] = field(default_factory=dict, repr=False)
    _tables: list[_cider_kernel.GramIndex] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not self._word_index:
            self._word_index.update((w, i) for i, w in enumerate(self.vocab))

    @classmethod
    def from_references(
        cls, references: Sequence[Sequence[str]], *, name: str = "external", n: int = CIDER_MAX_N
    ) -> DocumentFrequencies:
        """Count document frequencies over tokenized references (``references[i]``: item ``i``).

        Example:
            >>> df = DocumentFrequencies.from_references([["a dog", "a dog runs"], ["a cat"]], n=2)
            >>> df.get("a"), df.get("a dog"), df.get("dog a")
            (2, 1, 0)
        """
        compiled = _cider_kernel.frequency_table(references, n)
        if compiled is not None:
            vocab, prefix, last_word, offsets, counts, index = compiled
            frozen = cls(
                n_documents=len(references),
                name=name,
                n=n,
                vocab=vocab,
                prefix=prefix,
                last_word=last_word,
                offsets=offsets,
                df=counts,
            )
            frozen._tables.append(index)
            return frozen
        flat = [ref for refs in references for ref in refs]
        n_refs = np.fromiter((len(r) for r in references), dtype=np.int64, count=len(references))
        table = count_ngrams(flat, n=n)
        ref_item = np.repeat(np.arange(len(references), dtype=np.int64), n_refs)
        df = _document_frequency(table.gram, ref_item[table.sentence], table.n_grams, len(references))
        return cls(
            n_documents=len(references),
            name=name,
            n=n,
            vocab=table.vocab,
            prefix=table.prefix,
            last_word=table.last_word,
            offsets=table.offsets,
            df=df,
        )

    def get(self, ngram: str) -> int:
        """Document frequency of one n-gram given as space-joined words (0 if unseen)."""
        words = ngram.split()
        if not 1 <= len(words) <= self.n:
            return 0
        table = count_ngrams([ngram], n=len(words))
        ids = self._map(table)
        gram = int(table.gram[table.order == len(words)][0])
        return int(self.df[ids[gram]]) if ids[gram] >= 0 else 0

    def _map(self, table: NgramTable) -> IntArray:
        """Id in this index of every gram id of ``table`` (-1 where unseen)."""
        index = self._word_index
        word_map = np.fromiter((index.get(w, -1) for w in table.vocab), dtype=np.int64, count=len(table.vocab))
        out = np.full(table.n_grams, -1, dtype=np.int64)
        n_words = len(self.vocab)
        for k in range(1, min(table.n, self.n) + 1):
            lo, hi = int(table.offsets[k - 1]), int(table.offsets[k])
            if hi == lo:
                continue
            last = word_map[table.last_word[lo:hi]]
            if k == 1:
                out[lo:hi] = last
                continue
            parent = out[table.prefix[lo:hi]]
            ok = (parent >= 0) & (last >= 0)
            x_lo = int(self.offsets[k - 1])
            keys = self._keys(k)
            query = (parent - self.offsets[k - 2]) * n_words + last
            pos = np.searchsorted(keys, query[ok])
            pos_c = np.minimum(pos, max(keys.shape[0] - 1, 0))
            found = (keys.shape[0] > 0) & (keys[pos_c] == query[ok]) if keys.shape[0] else np.zeros(pos.shape, bool)
            ids = np.full(hi - lo, -1, dtype=np.int64)
            sel = np.flatnonzero(ok)[found]
            ids[sel] = x_lo + pos_c[found]
            out[lo:hi] = ids
        return out

    def _keys(self, k: int) -> IntArray:
        """Order-``k`` ids of this index are sorted by (local prefix id, last word): those keys (cached)."""
        if k not in self._order_keys:
            lo, hi = int(self.offsets[k - 1]), int(self.offsets[k])
            self._order_keys[k] = (self.prefix[lo:hi] - self.offsets[k - 2]) * len(self.vocab) + self.last_word[lo:hi]
        return self._order_keys[k]

    def hash_tables(self) -> _cider_kernel.GramIndex:
        """These frequencies as the compiled path's hash-table index (built once)."""
        if not self._tables:
            self._tables.append(
                _cider_kernel.build_tables(self.prefix, self.last_word, self.offsets, self.df, self.n, len(self.vocab))
            )
        return self._tables[0]

    def lookup(self, table: NgramTable) -> FloatArray:
        """Document frequency of every gram id of ``table`` (0 for unseen n-grams)."""
        ids = self._map(table)
        return np.where(ids >= 0, self.df[np.maximum(ids, 0)], 0.0) if ids.shape[0] else np.zeros(0)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write to a compressed ``.npz`` file."""
        meta = json.dumps(
            {
                "format": "capeval-df-1",
                "name": self.name,
                "n": self.n,
                "n_documents": self.n_documents,
                "vocab": list(self.vocab),
            },
            ensure_ascii=False,
        )
        with open(path, "wb") as fh:
            np.savez_compressed(
                fh,
                meta=np.frombuffer(meta.encode("utf-8"), dtype=np.uint8),
                prefix=self.prefix,
                last_word=self.last_word,
                offsets=self.offsets,
                df=self.df,
            )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> DocumentFrequencies:
        """Read a file written by :meth:`save`.

        Raises:
            ValueError: if the file is not a capeval document-frequency file.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(data["meta"].tobytes().decode("utf-8"))
                arrays = {k: data[k] for k in ("prefix", "last_word", "offsets", "df")}
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a capeval document-frequency file ({exc})") from None
        if not isinstance(meta, dict) or meta.get("format") != "capeval-df-1":
            raise ValueError(f"{path}: not a capeval document-frequency file (missing format tag)")
        return cls(
            n_documents=int(meta["n_documents"]),
            name=str(meta["name"]),
            n=int(meta["n"]),
            vocab=tuple(meta["vocab"]),
            **arrays,
        )


def _document_frequency(gram: IntArray, item_of_entry: IntArray, n_grams: int, n_items: int) -> FloatArray:
    """Number of distinct items among the entries of each gram id (entries as parallel arrays)."""
    if gram.shape[0] == 0:
        return np.zeros(n_grams, dtype=np.float64)
    item_bits = max(1, int(n_items).bit_length())
    keys = np.sort((gram << item_bits) | item_of_entry)
    starts, _ = group_runs(keys)
    return np.bincount(keys[starts] >> item_bits, minlength=n_grams).astype(np.float64)


class _ReferenceFrequencies:
    """Document frequencies of the evaluated references, counted only when a subset needs them."""

    def __init__(self, references: Sequence[Sequence[str]], n: int) -> None:
        self.references = references
        self.n = n
        self._frozen: DocumentFrequencies | None = None

    def frozen(self) -> DocumentFrequencies:
        """The counted frequencies (computed once)."""
        if self._frozen is None:
            self._frozen = DocumentFrequencies.from_references(self.references, name="refs", n=self.n)
        return self._frozen


class _CIDErBase(MeanMetric):
    """Shared machinery of CIDEr-D and CIDEr (vectorized over the whole batch)."""

    clip: bool
    sigma: float | None
    scale: float
    # Shards would each count the corpus document frequencies again; one pass is faster.
    parallel_safe = False

    def __init__(
        self, *, n: int = CIDER_MAX_N, df: DocumentFrequencies | str | None = None, tokenizer: str | Tokenizer = "ptb"
    ) -> None:
        super().__init__(tokenizer=tokenizer)
        if n < 1:
            raise ValueError(f"CIDEr order n must be >= 1, got {n}")
        if isinstance(df, str):
            df = DocumentFrequencies.load(df)
        if df is not None and df.n < n:
            raise ValueError(f"document frequencies count n-grams up to {df.n}, but n={n}")
        self.n = n
        self.df = df

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """``n``, ``sigma`` (CIDEr-D) and the document-frequency source."""
        fields = [("n", str(self.n))]
        if self.sigma is not None:
            fields.append(("sigma", f"{self.sigma:g}"))
        fields.append(("df", "refs" if self.df is None else f"{self.df.name}-{self.df.n_documents}"))
        return tuple(fields)

    def prepare(self, references: Sequence[Sequence[str]]) -> DocumentFrequencies | _ReferenceFrequencies:
        """Document frequencies: the frozen external ones, or those of the evaluated references.

        The latter are counted lazily: scoring the same references in one batch counts them
        alongside the candidates; scoring a subset (a shard, a resample) freezes them first.
        """
        if self.df is not None:
            return self.df
        return _ReferenceFrequencies(references, self.n)

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Per-item scores; one candidate per item."""
        df = prepared
        if isinstance(prepared, _ReferenceFrequencies):
            df = None if prepared.references is references else prepared.frozen()
        return self.score_batch(candidates, np.arange(len(candidates)), references, df=df, tokenized=True)

    def score_batch(
        self,
        candidates: Sequence[str],
        item_index: Sequence[int] | IntArray,
        references: Sequence[Sequence[str]],
        *,
        df: DocumentFrequencies | None = None,
        tokenized: bool = False,
    ) -> FloatArray:
        """Score many candidates per item in one call (e.g. sampled captions for RL rewards).

        Args:
            candidates: Candidate captions.
            item_index: ``item_index[c]`` is the item (index into ``references``) of candidate ``c``.
            references: Reference captions, item-major.
            tokenized: The captions are already tokenized (space-joined tokens). By default they
                go through the metric's tokenizer first, as in :meth:`score` (candidates and
                references as two streams); with ``tokenizer="none"`` nothing changes either way.

        Returns:
            One score per candidate. Document frequencies come from ``df`` if given, else from
            the metric's external ones, else from ``references``.
        """
        if not tokenized and self.tokenizer.name != "none":
            candidates, references = self.tokenize(candidates, references)
        item_of_cand = np.asarray(item_index, dtype=np.int64).reshape(-1)
        n_cands, n_items = len(candidates), len(references)
        if item_of_cand.shape[0] != n_cands:
            raise ValueError(f"{item_of_cand.shape[0]} item indices for {n_cands} candidates")
        if n_cands == 0:
            return np.zeros(0, dtype=np.float64)
        if item_of_cand.min() < 0 or item_of_cand.max() >= n_items:
            raise ValueError(f"item index out of range 0..{n_items - 1}")
        n_refs = np.fromiter((len(r) for r in references), dtype=np.int64, count=n_items)
        if (n_refs == 0).any():
            raise ValueError(f"item {int(np.flatnonzero(n_refs == 0)[0])}: no reference captions")
        flat_refs = [ref for refs in references for ref in refs]
        frozen = df if df is not None else self.df
        if frozen is None and n_items == 1:
            _warn_one_document(self.name)
        scores = None
        if frozen is None and _cider_kernel.available(self.n, 0):
            scores = _cider_kernel.score_with_reference_frequencies(
                candidates,
                item_of_cand,
                flat_refs,
                n_refs,
                n=self.n,
                sigma=self.sigma,
                clip=self.clip,
                scale=self.scale,
            )
        elif frozen is not None and _cider_kernel.available(self.n, len(frozen.vocab)):
            scores = _cider_kernel.score_batch(
                candidates,
                item_of_cand,
                flat_refs,
                n_refs,
                frozen._word_index,
                frozen.hash_tables(),
                frozen.n_documents,
                n=self.n,
                sigma=self.sigma,
                clip=self.clip,
                scale=self.scale,
            )
        if scores is not None:
            return scores
        first_ref = np.cumsum(n_refs) - n_refs
        table = count_ngrams([*candidates, *flat_refs], n=self.n)
        n_ref_sents = len(flat_refs)
        ref_item = np.repeat(np.arange(n_items, dtype=np.int64), n_refs)
        is_ref_entry = table.sentence >= n_cands

        # Inverse document frequency of each gram id.
        if frozen is None:
            ref_e = np.flatnonzero(is_ref_entry)
            doc_freq = _document_frequency(
                table.gram[ref_e], ref_item[table.sentence[ref_e] - n_cands], table.n_grams, n_items
            )
            log_docs = math.log(float(n_items))
        else:
            doc_freq = frozen.lookup(table)
            log_docs = math.log(float(frozen.n_documents))
        idf = log_docs - np.log(np.maximum(1.0, doc_freq))
        weight = table.count * idf[table.gram]

        # Norm of each sentence's vector, per order.
        n_sents = n_cands + n_ref_sents
        order0 = table.orders_of(table.gram) - 1
        norms = np.sqrt(
            np.bincount(table.sentence * self.n + order0, weights=weight * weight, minlength=n_sents * self.n)
        ).reshape(n_sents, self.n)

        # Candidate/reference pairs: candidate c against each reference of its item.
        pairs_per_cand = n_refs[item_of_cand]
        pair_start = np.cumsum(pairs_per_cand) - pairs_per_cand
        n_pairs = int(pairs_per_cand.sum())
        pair_cand = np.repeat(np.arange(n_cands, dtype=np.int64), pairs_per_cand)
        pair_ref = ranks_within(pairs_per_cand) + first_ref[item_of_cand][pair_cand]  # index into flat references

        dots = self._dot_products(
            table, weight, order0, is_ref_entry, item_of_cand, ref_item, first_ref, pair_start, n_cands, n_pairs
        )
        denom = norms[pair_cand] * norms[n_cands + pair_ref]
        nonzero = denom != 0
        values = np.where(nonzero, dots / np.where(nonzero, denom, 1.0), dots)
        if self.sigma is not None:
            # The official "length" is the number of bigrams: len - 1, or 0 for one word.
            bigrams = np.maximum(table.lengths - 1, 0).astype(np.float64)
            delta = bigrams[pair_cand] - bigrams[n_cands + pair_ref]
            values = values * (math.e ** (-(delta**2) / (2 * self.sigma**2)))[:, None]
        per_cand = np.zeros((n_cands, self.n), dtype=np.float64)
        np.add.at(per_cand, pair_cand, values)
        score = per_cand.sum(axis=1) / self.n
        mean: FloatArray = score / pairs_per_cand * self.scale
        return mean

    def _dot_products(
        self,
        table: NgramTable,
        weight: FloatArray,
        order0: IntArray,
        is_ref_entry: Any,
        item_of_cand: IntArray,
        ref_item: IntArray,
        first_ref: IntArray,
        pair_start: IntArray,
        n_cands: int,
        n_pairs: int,
    ) -> FloatArray:
        """Per pair and order: sum over shared grams of ``min(v_c, v_r) * v_r`` (clipped) or ``v_c * v_r``."""
        gram_bits = max(1, int(table.n_grams).bit_length())
        item_of_sentence = np.concatenate([item_of_cand, ref_item])
        # Sort all entries by (item, gram), candidates first within each group; then every
        # reference entry pairs with the candidate entries at the start of its group.
        flag = is_ref_entry.astype(np.int64)
        keys = (((item_of_sentence[table.sentence] << gram_bits) | table.gram) << 1) | flag
        sorted_keys, order = sort_with_positions(keys)
        run_starts, run_lengths = group_runs(sorted_keys >> 1)
        n_cand_in_run = np.add.reduceat(1 - (sorted_keys & 1), run_starts) if run_starts.shape[0] else run_starts
        run_of = np.repeat(np.arange(run_starts.shape[0], dtype=np.int64), run_lengths)
        is_ref_sorted = (sorted_keys & 1) == 1
        ref_pos = np.flatnonzero(is_ref_sorted & (n_cand_in_run[run_of] > 0))
        n_partner = n_cand_in_run[run_of[ref_pos]]
        rep_ref_pos = np.repeat(ref_pos, n_partner)
        rep_cand = order[run_starts[run_of[rep_ref_pos]] + ranks_within(n_partner)]
        rep_ref = order[rep_ref_pos]
        wc, wr = weight[rep_cand], weight[rep_ref]
        contrib = (np.minimum(wc, wr) if self.clip else wc) * wr
        cand_sent = table.sentence[rep_cand]
        ref_sent = table.sentence[rep_ref] - n_cands
        pair = pair_start[cand_sent] + (ref_sent - first_ref[item_of_cand[cand_sent]])
        dots = np.zeros(n_pairs * self.n, dtype=np.float64)
        np.add.at(dots, pair * self.n + order0[rep_cand], contrib)
        return dots.reshape(n_pairs, self.n)


class CIDErD(_CIDErBase):
    """CIDEr-D as the COCO evaluation computes it (reported there as ``CIDEr``).

    Args:
        n: Highest n-gram order (4).
        sigma: Width of the Gaussian length penalty (6).
        df: ``None`` for document frequencies from the evaluated references (official), or a
            :class:`DocumentFrequencies` (or a path to one) frozen from another corpus.
        tokenizer: Tokenizer name or instance (default ``"ptb"``).

    Example:
        >>> m = CIDErD(tokenizer="none")
        >>> r = m.score(candidates=["a dog runs", "a cat sleeps"],
        ...             references=[["a dog runs", "the dog is running"], ["a cat is sleeping"]])
        >>> [round(float(x), 4) for x in r.item_scores]
        [4.2533, 2.2393]

    Reference: Vedantam, Zitnick and Parikh 2015; pycocoevalcap 1.2 ``Cider``.
    """

    name = "cider-d"
    outputs = ("cider-d",)
    official_names = {"cider-d": "CIDEr"}
    clip = True
    scale = CIDER_D_SCALE

    def __init__(
        self,
        *,
        n: int = CIDER_MAX_N,
        sigma: float = CIDER_D_SIGMA,
        df: DocumentFrequencies | str | None = None,
        tokenizer: str | Tokenizer = "ptb",
    ) -> None:
        super().__init__(n=n, df=df, tokenizer=tokenizer)
        if not sigma > 0:
            raise ValueError(f"sigma must be positive, got {sigma}")
        self.sigma = float(sigma)


class CIDEr(_CIDErBase):
    """The original CIDEr (Vedantam et al. 2015, COCO caption paper section 3.6).

    Mean over orders 1..n of the average cosine similarity between TF-IDF n-gram vectors of
    the candidate and each reference; no clipping, no length penalty, no factor 10. IDF
    uses ``max(1, df)`` like CIDEr-D so that n-grams absent from every reference get a
    finite weight. Not what the COCO server reports as "CIDEr" (that is :class:`CIDErD`), hence
    its registry name ``cider-original``.

    Example:
        >>> m = CIDEr(tokenizer="none")
        >>> r = m.score(candidates=["a dog runs", "a cat sleeps"],
        ...             references=[["a dog runs", "the dog is running"], ["a cat is sleeping"]])
        >>> [round(float(x), 4) for x in r.item_scores]
        [0.426, 0.2271]
    """

    name = "cider-original"
    outputs = ("cider-original",)
    clip = False
    sigma = None
    scale = 1.0


@dataclass(frozen=True)
class SelfCIDErResult:
    """Self-CIDEr diversity of several captions per image.

    Attributes:
        score: Mean of the per-image diversities.
        item_scores: Diversity of each image's caption set, in ``[0, 1]`` (0: all alike).
        kernels: Each image's ``m x m`` CIDEr kernel matrix ``K[i, j] = CIDEr(c_i, c_j)``.
    """

    score: float
    item_scores: FloatArray
    kernels: tuple[FloatArray, ...]


def self_cider(
    captions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]] | None = None,
    *,
    df: DocumentFrequencies | None = None,
    tokenizer: str | Tokenizer = "ptb",
    n: int = CIDER_MAX_N,
) -> SelfCIDErResult:
    """Self-CIDEr (Wang and Chan, CVPR 2019): how different the captions of each image are.

    For the ``m`` captions ``c_1..c_m`` of an image, ``K[i, j]`` is the original CIDEr of ``c_i``
    against ``c_j`` alone (mean over n-gram orders of the cosine similarity of TF-IDF vectors; no
    clipping, no length penalty; ``K[i, i]`` is the share of the ``n`` orders in which ``c_i`` has
    n-grams, 1 for a caption of ``n`` words or more). With ``lambda`` the
    eigenvalues of ``K`` (negatives clipped to 0), the diversity is::

        -log(sqrt(lambda_max) / sum(sqrt(lambda))) / log(m)

    0 when all captions are the same (one non-zero eigenvalue), 1 when they share nothing
    (``K`` diagonal and constant). This is the definition of the paper and of the self-critical
    codebases' ``eval_self_cider`` (kernel from their ``Cider`` scores divided by 10, document
    frequencies of the evaluated images' references).

    Args:
        captions: ``captions[k]``: the ``m >= 2`` candidate captions of image ``k``.
        references: The reference captions of all evaluated images (``references[k]``: image ``k``),
            whose document frequencies weight the n-grams; or give ``df``.
        df: Frozen document frequencies (tokenized with the same tokenizer) instead of ``references``.
        tokenizer: Applied to captions and references (``"none"`` for tokenized text).
        n: Highest n-gram order.

    Example:
        >>> refs = [["a dog runs", "a brown dog"], ["a cat sleeps", "the cat is asleep"]]
        >>> same = self_cider([["a dog runs"] * 3], refs, tokenizer="none").score
        >>> varied = self_cider([["a dog runs", "a cat sleeps", "the dog is brown"]], refs, tokenizer="none").score
        >>> round(same, 6), varied > 0.5
        (0.0, True)
    """
    if isinstance(captions, str):
        raise ValueError("captions must be a list of caption lists, one per image")
    if (references is None) == (df is None):
        raise ValueError("give either references (whose document frequencies weight n-grams) or df")
    metric = CIDEr(n=n, df=df, tokenizer=tokenizer)
    sets = [list(group) for group in captions]
    for k, group in enumerate(sets):
        if len(group) < 2:
            raise ValueError(f"image {k}: self-CIDEr needs at least 2 captions, got {len(group)}")
        for j, caption in enumerate(group):
            if not isinstance(caption, str):
                raise ValueError(f"image {k}: caption {j} must be a string, got {type(caption).__name__}")
    flat = [c for group in sets for c in group]
    flat_tok = metric.tokenizer.tokenize(flat)
    if df is None:
        assert references is not None
        ref_flat = metric.tokenizer.tokenize([r for refs in references for r in refs])
        ref_tok: list[list[str]] = []
        pos = 0
        for refs in references:
            if len(refs) == 0:
                raise ValueError(f"image {len(ref_tok)}: no reference captions")
            ref_tok.append(ref_flat[pos : pos + len(refs)])
            pos += len(refs)
        df = DocumentFrequencies.from_references(ref_tok, name="refs", n=n)
    # Every caption against every caption of its image, each as the only reference of an item.
    candidates: list[str] = []
    item_index: list[int] = []
    starts = np.cumsum([0, *map(len, sets)])
    for k, group in enumerate(sets):
        for i in range(len(group)):
            for j in range(len(group)):
                candidates.append(flat_tok[starts[k] + i])
                item_index.append(int(starts[k]) + j)
    values = metric.score_batch(candidates, item_index, [[c] for c in flat_tok], df=df, tokenized=True)
    kernels: list[FloatArray] = []
    scores = np.empty(len(sets))
    pos = 0
    for k, group in enumerate(sets):
        m = len(group)
        kernel = values[pos : pos + m * m].reshape(m, m)
        pos += m * m
        kernels.append(kernel)
        eig = np.clip(np.linalg.eigvalsh(kernel), 0, None)
        root = np.sqrt(eig)
        scores[k] = -math.log(root[-1] / root.sum()) / math.log(m) if root.sum() > 0 else 0.0
    return SelfCIDErResult(score=float(scores.mean()) if len(sets) else 0.0, item_scores=scores, kernels=tuple(kernels))
