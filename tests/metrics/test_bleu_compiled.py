"""BLEU's compiled clipped-match counter against its vectorized path and a direct count."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from capeval.metrics import _bleu_kernel
from capeval.metrics.bleu import BLEU

WORDS = "a the dog dogs cat on in with red is".split()


def _clipped_by_hand(cand: str, refs: list[str], n: int) -> list[int]:
    def grams(s: str, k: int) -> Counter[tuple[str, ...]]:
        w = s.split()
        return Counter(tuple(w[i : i + k]) for i in range(len(w) - k + 1))

    out = []
    for k in range(1, n + 1):
        c = grams(cand, k)
        best: Counter[tuple[str, ...]] = Counter()
        for r in refs:
            best |= grams(r, k)  # element-wise maximum
        out.append(sum(min(v, best[g]) for g, v in c.items()))
    return out


@pytest.mark.parametrize("n", [1, 3, 4])
def test_compiled_counts_equal_vectorized_and_by_hand(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    rng = random.Random(n)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 16)))

    cands = [sentence() for _ in range(200)]
    refs = [[sentence() for _ in range(rng.randint(1, 5))] for _ in cands]
    metric = BLEU(n=n, tokenizer="none")
    compiled = metric.score_tokenized(candidates=cands, references=refs)
    with monkeypatch.context() as patch:
        patch.setattr(_bleu_kernel, "available", lambda n, n_vocab: False)
        vectorized = metric.score_tokenized(candidates=cands, references=refs)
    np.testing.assert_array_equal(compiled.stats, vectorized.stats)
    correct = compiled.stats[:, 2 + n : 2 + 2 * n].astype(int).tolist()
    assert correct == [_clipped_by_hand(c, r, n) for c, r in zip(cands, refs, strict=True)]


def test_not_available_beyond_packed_keys() -> None:
    assert _bleu_kernel.available(4, 1000)
    assert not _bleu_kernel.available(5, 1000)  # five 16-bit words do not fit in 64 bits
    assert not _bleu_kernel.available(4, 1 << 16)
