"""BLEU-1..4 exactly as the official COCO caption evaluation computes them.

Reference implementation: ``pycocoevalcap==1.2`` ``bleu/bleu_scorer.py`` (``Bleu(4)``, which
runs ``compute_score(option="closest")``). Default options are equivalent to the official
evaluation:

* words are ``str.split()`` of the PTB-tokenized caption;
* clipped n-gram matches against the maximum count over the references;
* the brevity penalty uses the *closest* reference length (ties go to the shorter one);
* the corpus score pools counts over all items (it is not a mean of item scores);
* the per-item values are the official per-sentence values, which add ``1e-15`` to each
  match count and ``1e-9`` to each n-gram total, so a candidate with no 4-gram match gets a
  tiny positive BLEU-4 (e.g. ``3.75e-05``) rather than 0.

Statistics row per item: ``[cand_len, ref_len, guess_1..n, correct_1..n]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from capeval.metrics import _bleu_kernel
from capeval.metrics.base import FloatArray, Metric
from capeval.metrics.ngrams import (
    IntArray,
    NgramTable,
    encode_words,
    group_runs,
    ngram_table,
    sort_with_positions,
)
from capeval.tokenizers.base import Tokenizer

__all__ = ["BLEU", "clipped_matches"]

#: Added to match counts by the official scorer "so that if guess is 0 still return 0".
BLEU_TINY = 1e-15
#: Added to n-gram totals and reference lengths by the official scorer to avoid division by zero.
BLEU_SMALL = 1e-9
#: Highest n-gram order of the COCO evaluation.
BLEU_MAX_N = 4


def clipped_matches(table: NgramTable, n_candidates: int, ref_item: IntArray, n: int) -> IntArray:
    """Clipped n-gram matches per item and order: ``sum_g min(count_cand(g), max_ref count(g))``.

    Args:
        table: N-gram table of ``candidates + flattened references`` (candidates first).
        n_candidates: Number of candidate sentences (= items) at the start of the table.
        ref_item: Item index of each reference sentence, in table order.
        n: Highest n-gram order.

    Returns:
        ``(n_items, n)`` integer matrix.
    """
    is_cand_entry = table.sentence < n_candidates
    # Only reference n-grams that occur in some candidate can be matched.
    in_candidates = np.zeros(table.n_grams, dtype=bool)
    in_candidates[table.gram[is_cand_entry]] = True
    keep = is_cand_entry | in_candidates[table.gram]
    sentence, gram, count = table.sentence[keep], table.gram[keep], table.count[keep]
    item_of_sentence = np.concatenate([np.arange(n_candidates, dtype=np.int64), ref_item])
    item = item_of_sentence[sentence]
    is_cand = (sentence < n_candidates).astype(np.int64)
    count_bits = max(1, int(count.max()).bit_length()) if count.shape[0] else 1
    gram_bits = max(1, int(table.n_grams).bit_length())
    item_bits = max(1, int(n_candidates).bit_length())
    if item_bits + gram_bits + count_bits + 1 > 63:  # pragma: no cover - would need billions of n-grams
        raise ValueError("corpus too large for one pass; score it in shards")
    # Sorting (item, gram, is_cand, count) puts each item's reference counts for a gram in
    # ascending order just before the candidate's own count for that gram.
    key = (((item << gram_bits) | gram) << (count_bits + 1)) | (is_cand << count_bits) | count
    key = np.sort(key)
    group = key >> (count_bits + 1)
    cand_flag = (key >> count_bits) & 1
    value = key & ((1 << count_bits) - 1)
    cand_rows = np.flatnonzero(cand_flag)
    prev = np.maximum(cand_rows - 1, 0)
    has_ref = (cand_rows > 0) & (cand_flag[prev] == 0) & (group[prev] == group[cand_rows])
    matched = np.where(has_ref, np.minimum(value[cand_rows], value[prev]), 0)
    rows_item = group[cand_rows] >> gram_bits
    rows_order = table.orders_of(group[cand_rows] & ((1 << gram_bits) - 1))
    flat = np.bincount(rows_item * n + rows_order - 1, weights=matched, minlength=n_candidates * n)
    out = np.rint(flat).astype(np.int64).reshape(n_candidates, n)
    return out


def _in_own_candidate(words: IntArray, lengths: IntArray, n_candidates: int, ref_item: IntArray) -> Any:
    """For every word of ``candidates + references``: does its item's candidate contain it?"""
    item = np.repeat(np.concatenate([np.arange(n_candidates, dtype=np.int64), ref_item]), lengths)
    is_ref = np.repeat(np.arange(lengths.shape[0]) >= n_candidates, lengths)
    word_bits = max(1, int(words.max()).bit_length()) if words.shape[0] else 1
    keys = (((item << word_bits) | words) << 1) | is_ref
    sorted_keys, order = sort_with_positions(keys)
    starts, run_lengths = group_runs(sorted_keys >> 1)
    # Within a run of equal (item, word), candidate occurrences sort first.
    has_cand = np.repeat((sorted_keys[starts] & 1) == 0, run_lengths)
    active = np.empty(words.shape[0], dtype=bool)
    active[order] = has_cand
    return active


class BLEU(Metric):
    """BLEU-1..n with the official COCO evaluation's corpus and per-item values.

    Args:
        n: Highest n-gram order (the COCO evaluation reports 1..4).
        tokenizer: Tokenizer name or instance (default ``"ptb"``, the COCO tokenizer).

    Example:
        >>> bleu = BLEU(tokenizer="none")
        >>> r = bleu.score(candidates=["a man rides a horse"], references=[["a man rides a horse"]])
        >>> round(r.scores["bleu-4"], 6)
        1.0

    Reference: Papineni et al. 2002; pycocoevalcap 1.2 ``Bleu(4)``.
    """

    name = "bleu"
    higher_is_better = True
    # The compiled counter scores ~250,000 items a second: worker processes only pay off far above that.
    parallel_min_items = 1 << 20

    def __init__(self, *, n: int = BLEU_MAX_N, tokenizer: str | Tokenizer = "ptb") -> None:
        super().__init__(tokenizer=tokenizer)
        if n < 1:
            raise ValueError(f"BLEU order n must be >= 1, got {n}")
        self.n = n
        #: ``bleu-n`` first (primary), then ``bleu-1`` .. ``bleu-(n-1)``.
        self.outputs = (f"bleu-{n}", *(f"bleu-{k}" for k in range(1, n)))
        #: ``bleu-k`` -> ``Bleu_k``.
        self.official_names = {f"bleu-{k}": f"Bleu_{k}" for k in range(1, n + 1)}

    @property
    def stat_names(self) -> tuple[str, ...]:
        """``cand_len, ref_len, guess_1..n, correct_1..n``."""
        return (
            "cand_len",
            "ref_len",
            *(f"guess_{k}" for k in range(1, self.n + 1)),
            *(f"correct_{k}" for k in range(1, self.n + 1)),
        )

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """``n`` and the reference-length rule."""
        return (("n", str(self.n)), ("reflen", "closest"))

    def item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Rows ``[cand_len, closest_ref_len, guess_1..n, correct_1..n]``."""
        n_items = len(candidates)
        flat_refs = [ref for refs in references for ref in refs]
        n_refs = np.fromiter((len(refs) for refs in references), dtype=np.int64, count=n_items)
        ref_item = np.repeat(np.arange(n_items, dtype=np.int64), n_refs)
        words, lengths, vocab = encode_words([*candidates, *flat_refs])
        cand_len = lengths[:n_items]
        ref_len = lengths[n_items:]
        # Closest reference length: smallest |ref_len - cand_len|, ties to the shorter reference.
        dist = np.abs(ref_len - cand_len[ref_item])
        width = int(ref_len.max()).bit_length() + 1 if ref_len.shape[0] else 1
        packed = (dist << width) | ref_len
        first = np.cumsum(n_refs) - n_refs
        closest = np.minimum.reduceat(packed, first) & ((1 << width) - 1) if n_items else packed
        guess = np.maximum(0, cand_len[:, None] - np.arange(self.n)[None, :])
        if _bleu_kernel.available(self.n, len(vocab)):
            correct = _bleu_kernel.clipped_matches(words, lengths, n_items, n_refs, self.n)
        else:
            # A reference word that its item's candidate lacks cannot be part of a match:
            # n-grams containing one are never built.
            active = _in_own_candidate(words, lengths, n_items, ref_item)
            table = ngram_table(words, lengths, vocab, self.n, active=active)
            correct = clipped_matches(table, n_items, ref_item, self.n)
        return np.column_stack([cand_len, closest, guess, correct]).astype(np.float64)

    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Corpus BLEU-1..n from pooled counts, as the official scorer computes it."""
        n = self.n
        cand_len, ref_len = float(totals[0]), float(totals[1])
        guess, correct = totals[2 : 2 + n], totals[2 + n : 2 + 2 * n]
        scores = []
        product = 1.0
        for k in range(n):
            product *= (float(correct[k]) + BLEU_TINY) / (float(guess[k]) + BLEU_SMALL)
            scores.append(product ** (1.0 / (k + 1)))
        ratio = (cand_len + BLEU_TINY) / (ref_len + BLEU_SMALL)
        if ratio < 1:
            penalty = math.exp(1 - 1 / ratio)
            scores = [s * penalty for s in scores]
        named = {f"bleu-{k + 1}": s for k, s in enumerate(scores)}
        return {name: named[name] for name in self.outputs}

    def item_outputs(self, stats: FloatArray) -> dict[str, FloatArray]:
        """The official per-sentence values (vectorized; same operation order)."""
        n = self.n
        cand_len, ref_len = stats[:, 0], stats[:, 1]
        guess, correct = stats[:, 2 : 2 + n], stats[:, 2 + n : 2 + 2 * n]
        factors = (correct + BLEU_TINY) / (guess + BLEU_SMALL)
        products = np.cumprod(factors, axis=1)
        scores = products ** (1.0 / np.arange(1, n + 1))
        ratio = (cand_len + BLEU_TINY) / (ref_len + BLEU_SMALL)
        short = ratio < 1
        if short.any():
            penalty = np.exp(1 - 1 / ratio[short])
            scores[short] *= penalty[:, None]
        named = {f"bleu-{k + 1}": scores[:, k].copy() for k in range(n)}
        return {name: named[name] for name in self.outputs}
