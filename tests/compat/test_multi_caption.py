"""Self-CIDEr against a direct implementation of its definition; multi-candidate SPICE modes."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from capeval.metrics.multi import multi_spice, self_cider
from capeval.metrics.spice import PrecomputedParser

REFS = [
    ["a dog runs on the grass", "a brown dog is running", "the dog plays outside"],
    ["a cat sleeps on a bed", "the cat is asleep", "a cat lying down"],
    ["two men ride bikes", "people riding bicycles on a street"],
]
SETS = [
    ["a dog runs", "a dog is running on grass", "a brown dog plays"],
    ["a cat sleeps", "a cat sleeps", "a cat sleeps on a bed", "the cat"],
]


def _grams(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    words = text.split()
    return Counter(tuple(words[i : i + k]) for k in range(1, n + 1) for i in range(len(words) - k + 1))


def _direct(captions: list[str], refs: list[list[str]], n: int = 4) -> tuple[np.ndarray, float]:
    """The definition, spelled out: TF-IDF cosine per order, averaged; eigenvalue diversity."""
    df: Counter[tuple[str, ...]] = Counter()
    for item in refs:
        df.update({g for r in item for g in _grams(r)})
    log_docs = math.log(len(refs))

    def vec(text: str) -> list[dict[tuple[str, ...], float]]:
        out: list[dict[tuple[str, ...], float]] = [{} for _ in range(n)]
        for g, tf in _grams(text).items():
            out[len(g) - 1][g] = tf * (log_docs - math.log(max(1.0, df[g])))
        return out

    vecs = [vec(c) for c in captions]
    m = len(captions)
    kernel = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            total = 0.0
            for k in range(n):
                a, b = vecs[i][k], vecs[j][k]
                dot = sum(v * b.get(g, 0.0) for g, v in a.items())
                na, nb = math.sqrt(sum(v * v for v in a.values())), math.sqrt(sum(v * v for v in b.values()))
                total += dot / (na * nb) if na and nb else dot
            kernel[i, j] = total / n
    root = np.sqrt(np.clip(np.linalg.eigvalsh(kernel), 0, None))
    return kernel, -math.log(root[-1] / root.sum()) / math.log(m)


def test_self_cider_matches_its_definition() -> None:
    result = self_cider(SETS, REFS, tokenizer="none")
    for k, captions in enumerate(SETS):
        kernel, diversity = _direct(captions, REFS)
        np.testing.assert_allclose(result.kernels[k], kernel, rtol=0, atol=1e-12)
        assert abs(result.item_scores[k] - diversity) <= 1e-12
    assert abs(result.score - result.item_scores.mean()) <= 1e-15
    assert 0 <= result.item_scores.min() and result.item_scores.max() <= 1


def test_self_cider_bounds_and_errors() -> None:
    same = self_cider([["a dog runs on the grass"] * 4], REFS, tokenizer="none")
    assert same.item_scores[0] == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="at least 2 captions"):
        self_cider([["a dog"]], REFS)
    with pytest.raises(ValueError, match="either references"):
        self_cider(SETS)


def test_multi_spice_modes() -> None:
    parser = PrecomputedParser(
        {"a red bus": [["bus"], ["bus", "red"]], "a bus": [["bus"]], "a red car": [["car"], ["car", "red"]]}
    )
    opts = {"tokenizer": "none", "parser": parser, "cache": False, "synonyms": False}
    cands, refs = [["a bus", "a red car"], ["a red bus"]], [["a red bus"], ["a bus"]]
    best = multi_spice(cands, refs, mode="best", ids=[7, 8], **opts)
    mean = multi_spice(cands, refs, mode="mean", **opts)
    union = multi_spice(cands, refs, mode="all", **opts)
    assert best.item_scores.tolist() == pytest.approx([2 / 3, 2 / 3]) and best.ids == (7, 8)
    assert mean.item_scores.tolist() == pytest.approx([1 / 3, 2 / 3])
    assert union.item_scores.tolist() == pytest.approx([0.4, 2 / 3])  # merged graph: P 1/3, R 1/2
    assert best.candidate_scores is not None and len(best.candidate_scores[0]) == 2
    with pytest.raises(ValueError, match="mode must be one of"):
        multi_spice(cands, refs, mode="max", **opts)
    with pytest.raises(ValueError, match="image 1: expected a non-empty list"):
        multi_spice([["a bus"], []], refs, **opts)
