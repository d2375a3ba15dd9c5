"""ROUGE-L as the COCO evaluation computes it, plus ROUGE-N and ROUGE-S of the COCO paper.

ROUGE-L reproduces ``pycocoevalcap==1.2`` ``rouge/rouge.py``:

* words are ``caption.split(" ")`` (single spaces; an empty caption is one empty word);
* with ``l_j`` the longest common subsequence with reference ``j``, precision
  ``P = max_j l_j / |c|`` and recall ``R = max_j l_j / |s_j|`` are maximised *separately*
  over the references (they may come from different references);
* ``ROUGE_L = (1 + b^2) P R / (R + b^2 P)`` with ``b = 1.2``, 0 when P or R is 0;
* the corpus score is the mean of the item scores.

Longest common subsequences are computed with the bit-parallel algorithm of Allison and
Dix (1986) / Hyyrö (2004): the candidate (up to 64 words) is one machine word and each
reference a compiled scan over its words; candidates longer than that are vectorized over
all pairs at once, with Python integers as bit vectors where both sides exceed 64 words.

ROUGE-N and ROUGE-S follow the definitions in section 3.4 of the COCO caption paper
(Chen et al. 2015); no official implementation exists for them in the COCO evaluation, so
they are tested against hand-computed values:

* ROUGE-N is n-gram recall pooled over the references:
  ``sum_j sum_g min(h_g(c), h_g(s_j)) / sum_j sum_g h_g(s_j)``;
* ROUGE-S uses skip-bigrams (ordered word pairs with at most ``max_gap`` words between
  them, 4 by default): ``P = max_j f(c, s_j) / g(c)``, ``R = max_j f(c, s_j) / g(s_j)``,
  where ``f`` counts clipped skip-bigram matches and ``g`` a sentence's skip-bigrams, and
  the score is the same F-measure as ROUGE-L with ``b = 1.2``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from capeval.metrics import _numba
from capeval.metrics.base import FloatArray, MeanMetric
from capeval.metrics.ngrams import IntArray, bounds, encode_words, group_runs, ranks_within, sort_with_positions
from capeval.tokenizers.base import Tokenizer

__all__ = ["ROUGEL", "ROUGEN", "ROUGES", "lcs_against_candidates", "lcs_lengths"]

#: Recall weight of the COCO evaluation's ROUGE-L F-measure (pycocoevalcap ``self.beta = 1.2``).
ROUGE_BETA = 1.2
#: Maximum number of words skipped inside a ROUGE-S skip-bigram (COCO caption paper, section 3.4).
ROUGE_S_MAX_GAP = 4
#: Bits per machine word of the vectorized LCS.
_WORD_BITS = 64


def _lcs_python(a: Sequence[int], b: Sequence[int]) -> int:
    """Bit-parallel LCS length with Python integers (any length)."""
    if len(b) < len(a):
        a, b = b, a
    masks: dict[int, int] = {}
    for j, word in enumerate(b):
        masks[word] = masks.get(word, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for word in a:
        u = v & masks.get(word, 0)
        v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def lcs_lengths(words: IntArray, starts: IntArray, lengths: IntArray, left: IntArray, right: IntArray) -> IntArray:
    """Longest-common-subsequence length of many sentence pairs.

    Args:
        words: Word ids of all sentences, concatenated.
        starts: Offset of each sentence in ``words``.
        lengths: Number of words of each sentence.
        left: First sentence of each pair.
        right: Second sentence of each pair.

    Returns:
        LCS length of each pair.

    Example:
        >>> w = np.array([0, 1, 2, 3, 1, 3, 2])  # "a b c d" and "b d c"
        >>> int(lcs_lengths(w, np.array([0, 4]), np.array([4, 3]), np.array([0]), np.array([1]))[0])
        2
    """
    n_pairs = left.shape[0]
    out = np.zeros(n_pairs, dtype=np.int64)
    if n_pairs == 0:
        return out
    # The bit vector runs over the shorter-or-equal "row" sentence; the other is scanned.
    swap = lengths[right] > lengths[left]
    row = np.where(swap, left, right)  # bits
    col = np.where(swap, right, left)  # scanned
    fits = lengths[row] <= _WORD_BITS
    for p in np.flatnonzero(~fits):
        a = words[starts[col[p]] : starts[col[p]] + lengths[col[p]]].tolist()
        b = words[starts[row[p]] : starts[row[p]] + lengths[row[p]]].tolist()
        out[p] = _lcs_python(a, b)
    idx = np.flatnonzero(fits & (lengths[row] > 0) & (lengths[col] > 0))
    if idx.shape[0] == 0:
        return out
    row, col = row[idx], col[idx]
    row_len, col_len = lengths[row], lengths[col]

    # Match masks: for every (row sentence, word), the bit set of its positions.
    row_sents = np.flatnonzero(np.bincount(row, minlength=lengths.shape[0]))
    rs_len = lengths[row_sents]
    tok_bit = ranks_within(rs_len)
    tok = np.repeat(starts[row_sents], rs_len) + tok_bit
    word_bits = max(1, int(words.max()).bit_length() if words.shape[0] else 1)
    table_key = (np.repeat(row_sents, rs_len) << word_bits) | words[tok]

    # Scan columns in order of decreasing length so the active pairs are always a prefix;
    # the queries of step t are stored contiguously ("t-major").
    by_len = np.argsort(-col_len, kind="stable")
    row, col, row_len, col_len, idx = row[by_len], col[by_len], row_len[by_len], col_len[by_len], idx[by_len]
    active_counts = np.searchsorted(-col_len, -np.arange(int(col_len[0])), side="left")
    q_pair = np.concatenate([np.arange(a, dtype=np.int64) for a in active_counts])
    q_step = np.repeat(np.arange(active_counts.shape[0], dtype=np.int64), active_counts)
    q_key = (row[q_pair] << word_bits) | words[starts[col[q_pair]] + q_step]
    q_masks = _join_masks(table_key, tok_bit, q_key)
    out[idx] = _lcs_from_scan(q_masks, active_counts, row_len)
    return out


def _join_masks(table_key: IntArray, table_bit: IntArray, query_key: IntArray) -> Any:
    """For each query key, the OR of ``1 << table_bit`` over the table entries with that key (0 if none).

    One sort joins the queries with the table: equal keys sort together, table entries first.
    """
    both = np.concatenate([table_key << 1, (query_key << 1) | 1])
    both_sorted, order = sort_with_positions(both)
    run_starts, run_lengths = group_runs(both_sorted >> 1)
    n_table = table_key.shape[0]
    bits = np.zeros(both.shape[0], dtype=np.uint64)
    bits[:n_table] = np.uint64(1) << table_bit.astype(np.uint64)
    run_masks = np.bitwise_or.reduceat(bits[order], run_starts) if order.shape[0] else bits[:0]
    is_query = (both_sorted & 1) == 1
    out = np.zeros(query_key.shape[0], dtype=np.uint64)
    out[order[is_query] - n_table] = np.repeat(run_masks, run_lengths)[is_query]
    return out


def _lcs_from_scan(t_major: Any, active: IntArray, width: IntArray) -> IntArray:
    """Run the bit-parallel LCS recurrence and count the LCS of each bit vector.

    ``t_major`` holds the match masks of step 0 for the first ``active[0]`` vectors, then those
    of step 1 for the first ``active[1]``, and so on; ``width[i]`` is vector ``i``'s length in bits.
    """
    v = np.full(width.shape[0], np.iinfo(np.uint64).max, dtype=np.uint64)
    step_start = bounds(active)
    for t, n_active in enumerate(active.tolist()):
        m = t_major[step_start[t] : step_start[t + 1]]
        va = v[:n_active]
        u = va & m
        v[:n_active] = (va + u) | (va - u)
    low = np.where(
        width >= _WORD_BITS, np.iinfo(np.uint64).max, (np.uint64(1) << width.astype(np.uint64)) - np.uint64(1)
    ).astype(np.uint64)
    return width - _popcount(v & low)


def lcs_against_candidates(
    words: IntArray, starts: IntArray, lengths: IntArray, n_candidates: int, ref_item: IntArray
) -> IntArray:
    """LCS length of each reference sentence with its item's candidate.

    Sentences ``0..n_candidates-1`` are the candidates (one per item); the others are
    references, reference ``r`` belonging to item ``ref_item[r]``. The candidate is the bit
    vector (it is shared by all references of its item), and each reference is scanned
    only at its words that the candidate contains: other words leave the vector unchanged.
    Candidates longer than 64 words go through :func:`lcs_lengths`.
    """
    n_refs = ref_item.shape[0]
    out = np.zeros(n_refs, dtype=np.int64)
    if n_refs == 0:
        return out
    cand_len = lengths[:n_candidates]
    ref_sent = np.arange(n_refs, dtype=np.int64) + n_candidates
    wide = cand_len[ref_item] > _WORD_BITS
    if wide.any():
        idx = np.flatnonzero(wide)
        out[idx] = lcs_lengths(words, starts, lengths, ref_item[idx], ref_sent[idx])
    narrow = np.flatnonzero(~wide)
    if narrow.shape[0]:
        # Group the references by item so each candidate's masks are built once.
        order = narrow[np.argsort(ref_item[narrow], kind="stable")]
        n_words = int(words.max()) + 1 if words.shape[0] else 1
        out[order] = _lcs_narrow(words, starts, lengths, ref_item[order], ref_sent[order], n_words)
    return out


@_numba.jit
def _lcs_narrow(words: Any, starts: Any, lengths: Any, cand: Any, ref: Any, n_words: int) -> Any:  # pragma: no cover
    """LCS of sentence ``ref[r]`` with candidate ``cand[r]`` (at most 64 words; equal candidates adjacent).

    The candidate is the bit vector: ``mask[w]`` has the bits of the positions of word ``w``;
    each reference word updates it with the recurrence ``v = (v + u) | (v - u)``, ``u = v & mask[w]``.
    """
    mask = np.zeros(n_words, dtype=np.uint64)
    out = np.empty(cand.shape[0], dtype=np.int64)
    current = -1
    for r in range(cand.shape[0]):
        c = cand[r]
        c_start, c_len = starts[c], lengths[c]
        if c != current:
            if current >= 0:
                for t in range(starts[current], starts[current] + lengths[current]):
                    mask[words[t]] = np.uint64(0)
            for t in range(c_len):
                mask[words[c_start + t]] |= np.uint64(1) << np.uint64(t)
            current = c
        v = ~np.uint64(0)
        for t in range(starts[ref[r]], starts[ref[r]] + lengths[ref[r]]):
            m = mask[words[t]]
            if m:
                u = v & m
                v = (v + u) | (v - u)
        zeros = ~v
        if c_len < 64:
            zeros &= (np.uint64(1) << np.uint64(c_len)) - np.uint64(1)
        count = 0
        while zeros:
            zeros &= zeros - np.uint64(1)
            count += 1
        out[r] = count
    return out


def _popcount(x: Any) -> IntArray:
    """Number of set bits of each uint64."""
    if hasattr(np, "bitwise_count"):
        return np.asarray(np.bitwise_count(x), dtype=np.int64)
    return np.asarray(
        np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1), dtype=np.int64
    )  # pragma: no cover


def _f_measure(precision: FloatArray, recall: FloatArray, beta: float) -> FloatArray:
    """``(1 + b^2) P R / (R + b^2 P)``, 0 where P or R is 0 (official operation order)."""
    ok = (precision != 0) & (recall != 0)
    b2 = beta**2
    num = (1 + b2) * precision * recall
    den = np.where(ok, recall + b2 * precision, 1.0)
    return np.where(ok, num / den, 0.0)


class ROUGEL(MeanMetric):
    """ROUGE-L with beta = 1.2 as in the COCO evaluation.

    Args:
        beta: Recall weight of the F-measure (1.2).
        tokenizer: Tokenizer name or instance (default ``"ptb"``).

    Example:
        >>> m = ROUGEL(tokenizer="none")
        >>> r = m.score(candidates=["a dog runs", "a cat sleeps"],
        ...             references=[["a dog runs", "the dog is running"], ["a cat is sleeping"]])
        >>> [round(float(x), 6) for x in r.item_scores]
        [1.0, 0.557078]

    Reference: Lin 2004; pycocoevalcap 1.2 ``Rouge``.
    """

    name = "rouge-l"
    outputs = ("rouge-l",)
    official_names = {"rouge-l": "ROUGE_L"}
    # The compiled LCS scores ~400,000 items a second: worker processes only pay off far above that.
    parallel_min_items = 1 << 20

    def __init__(self, *, beta: float = ROUGE_BETA, tokenizer: str | Tokenizer = "ptb") -> None:
        super().__init__(tokenizer=tokenizer)
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta}")
        self.beta = float(beta)

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """``beta``."""
        return (("beta", f"{self.beta:g}"),)

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Per-item ROUGE-L."""
        n_items = len(candidates)
        n_refs = np.fromiter((len(r) for r in references), dtype=np.int64, count=n_items)
        flat_refs = [ref for refs in references for ref in refs]
        words, lengths, _ = encode_words([*candidates, *flat_refs], sep=" ")
        starts = np.cumsum(lengths) - lengths
        ref_item = np.repeat(np.arange(n_items, dtype=np.int64), n_refs)
        ref_sent = np.arange(len(flat_refs), dtype=np.int64) + n_items
        lcs = lcs_against_candidates(words, starts, lengths, n_items, ref_item).astype(np.float64)
        prec = lcs / lengths[ref_item]
        rec = lcs / lengths[ref_sent]
        first = np.cumsum(n_refs) - n_refs
        prec_max = np.maximum.reduceat(prec, first) if n_items else prec
        rec_max = np.maximum.reduceat(rec, first) if n_items else rec
        return _f_measure(prec_max, rec_max, self.beta)


def _ngram_counter(words: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def _skip_bigrams(words: list[str], max_gap: int) -> Counter[tuple[str, str]]:
    return Counter(
        (words[i], words[j]) for i in range(len(words)) for j in range(i + 1, min(len(words), i + max_gap + 2))
    )


class ROUGEN(MeanMetric):
    """ROUGE-N: n-gram recall pooled over the references (COCO caption paper, section 3.4).

    Example:
        >>> m = ROUGEN(n=1, tokenizer="none")
        >>> r = m.score(candidates=["a dog runs"], references=[["a dog runs", "the dog is running"]])
        >>> round(r.score, 6)  # (3 + 1) matched unigrams / (3 + 4) reference unigrams
        0.571429
    """

    name = "rouge-n"
    outputs = ("rouge-n",)

    def __init__(self, *, n: int = 2, tokenizer: str | Tokenizer = "ptb") -> None:
        super().__init__(tokenizer=tokenizer)
        if n < 1:
            raise ValueError(f"ROUGE-N order must be >= 1, got {n}")
        self.n = n

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """``n``."""
        return (("n", str(self.n)),)

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Per-item pooled n-gram recall (0 when the references have no n-gram)."""
        out = np.zeros(len(candidates), dtype=np.float64)
        for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
            cand_counts = _ngram_counter(cand.split(), self.n)
            matched = total = 0
            for ref in refs:
                ref_counts = _ngram_counter(ref.split(), self.n)
                matched += sum(min(c, cand_counts[g]) for g, c in ref_counts.items())
                total += sum(ref_counts.values())
            out[i] = matched / total if total else 0.0
        return out


class ROUGES(MeanMetric):
    """ROUGE-S: skip-bigram F-measure with a maximum gap (COCO caption paper, section 3.4).

    Example:
        >>> m = ROUGES(tokenizer="none")
        >>> r = m.score(candidates=["a b c"], references=[["a c b"]])
        >>> round(r.score, 6)  # skip-bigrams ab ac bc vs ac ab cb: 2 of 3 match
        0.666667
    """

    name = "rouge-s"
    outputs = ("rouge-s",)

    def __init__(
        self, *, max_gap: int = ROUGE_S_MAX_GAP, beta: float = ROUGE_BETA, tokenizer: str | Tokenizer = "ptb"
    ) -> None:
        super().__init__(tokenizer=tokenizer)
        if max_gap < 0:
            raise ValueError(f"max_gap must be >= 0, got {max_gap}")
        self.max_gap = max_gap
        self.beta = float(beta)

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """``gap`` and ``beta``."""
        return (("gap", str(self.max_gap)), ("beta", f"{self.beta:g}"))

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Per-item skip-bigram F-measure."""
        prec = np.zeros(len(candidates), dtype=np.float64)
        rec = np.zeros(len(candidates), dtype=np.float64)
        for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
            cand_skips = _skip_bigrams(cand.split(), self.max_gap)
            n_cand = sum(cand_skips.values())
            for ref in refs:
                ref_skips = _skip_bigrams(ref.split(), self.max_gap)
                hits = sum(min(c, cand_skips[g]) for g, c in ref_skips.items())
                n_ref = sum(ref_skips.values())
                if n_cand:
                    prec[i] = max(prec[i], hits / n_cand)
                if n_ref:
                    rec[i] = max(rec[i], hits / n_ref)
        return _f_measure(prec, rec, self.beta)
