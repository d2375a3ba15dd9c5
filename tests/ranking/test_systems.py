"""The ranking systems of Hodosh et al. (2013) on small synthetic data: kernels, KCCA, NN, pipeline, CLI.

Known values are worked out by hand in the comments; positive semi-definiteness is checked
through the smallest eigenvalue wherever a kernel is PSD by construction.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("scipy")

from capeval.ranking.systems import kernels as K  # noqa: E402
from capeval.ranking.systems import lexical  # noqa: E402
from capeval.ranking.systems.kcca import KernelEigen, center_kernel, cosine_scores, fit_kcca  # noqa: E402
from capeval.ranking.systems.nn import idf_f1, idf_weights, nearest_neighbour_scores  # noqa: E402


def _min_eig(k: np.ndarray) -> float:
    return float(np.linalg.eigvalsh((k + k.T) / 2).min())


# ------------------------------------------------------------------------------------------ image


def test_intersection_kernel_known_values_and_psd() -> None:
    a = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    b = np.array([[2.0, 1.0, 1.0]])
    assert K.intersection_kernel(a, b).tolist() == [[2.0], [1.0]]  # 1+1+0, 0+0+1
    rng = np.random.default_rng(0)
    h = rng.random((40, 12)) * (rng.random((40, 12)) < 0.5)
    k = K.intersection_kernel(h)
    assert np.allclose(k, k.T)
    assert np.allclose(np.diag(k), h.sum(axis=1), rtol=1e-6)
    assert _min_eig(k) > -1e-6


def test_intersection_kernel_rejects_negative_and_mismatched_histograms() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        K.intersection_kernel([[-1.0, 1.0]])
    with pytest.raises(ValueError, match="equal widths"):
        K.intersection_kernel([[1.0, 1.0]], [[1.0]])


def test_pyramid_kernel_levels_weights_and_psd() -> None:
    words = 2
    one = np.zeros((1, 16, words))
    one[0, :, 0] = 1  # word 0 everywhere
    other = np.zeros((1, 16, words))
    other[0, :8, 0] = 1  # word 0 in the top half, word 1 in the bottom half
    other[0, 8:, 1] = 1
    # level 0: min over words of normalized histograms (1, 0) and (.5, .5) -> .5; level 1: the
    # top two quadrants match (.25 each) -> .5; level 2: 8 of 16 cells match -> .5
    expected = 0.25 * 0.5 + 0.25 * 0.5 + 0.5 * 0.5
    assert K.pyramid_kernel(one, other)[0, 0] == pytest.approx(expected)
    assert K.pyramid_kernel(one)[0, 0] == pytest.approx(1.0)  # self-similarity is the weights' sum
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 4, size=(25, 16, 5))
    k = K.pyramid_kernel(counts)
    assert _min_eig(k) > -1e-6
    assert np.allclose(np.diag(k), 1.0, atol=1e-6)


def test_image_kernel_averages_features_and_powers_stay_psd() -> None:
    from capeval.ranking.systems.image_features import ImageFeatures, VisualWordConfig

    rng = np.random.default_rng(2)
    counts = {f: rng.integers(0, 3, size=(15, 16, 4)).astype(np.uint16) for f in ("colour", "texture", "sift")}
    feats = ImageFeatures(tuple(str(i) for i in range(15)), counts, {}, VisualWordConfig())
    base = K.image_kernel(feats)
    mean = np.mean([K.pyramid_kernel(c) for c in counts.values()], axis=0)
    assert np.allclose(base, mean)
    for power in (2, 3):
        k = K.image_kernel(feats, power=power)
        assert np.allclose(k, base**power)
        assert _min_eig(k) > -1e-6  # Schur product theorem
    sub = feats.subset(["3", "0"])
    assert np.allclose(K.image_kernel(sub, feats), base[[3, 0]])
    with pytest.raises(KeyError, match="no visual words"):
        feats.subset(["nope"])


# ------------------------------------------------------------------------------------------- text


def test_bow_kernel_known_value_idf_and_psd() -> None:
    v = K.Vocabulary()
    x = K.bow_features([["a dog run"], ["a dog"], ["a cat"]], v, weighting="none")
    k = (x @ x.T).toarray()
    assert k[0, 1] == pytest.approx(2 / (np.sqrt(3) * np.sqrt(2)))
    assert k[1, 2] == pytest.approx(0.5)
    df = K.document_frequencies(["a dog run", "a dog", "a cat"])
    xi = K.bow_features([["a dog run"], ["a dog"], ["a cat"]], K.Vocabulary(), weighting="idf", df=df)
    ki = (xi @ xi.T).toarray()
    assert ki[1, 2] < k[1, 2]  # the shared "a" is in every document: IDF weighs it least
    assert _min_eig(ki) > -1e-9
    # a five-caption document sums its captions; unknown words are dropped when not growing
    five = K.bow_features([["a dog", "the dog"]], v, weighting="none", grow=False)
    assert five.nnz == 2  # "a" and "dog"; "the" is not in the vocabulary
    with pytest.raises(ValueError, match="weighting"):
        K.bow_features([["a"]], K.Vocabulary(), weighting="tf")


def test_tokenize_drops_punctuation_only_tokens() -> None:
    assert K.tokenize("A dog 's ball .") == ["a", "dog", "'s", "ball"]


def test_tagrank_features_known_values_and_psd() -> None:
    v = K.Vocabulary()
    x = K.tagrank_features([["dog run fast"]], v).toarray()[0]
    width = len(v)
    presence, absolute, relative = x[:width], x[width : 2 * width], x[2 * width :]
    dog, fast = v.index["dog"], v.index["fast"]
    # before normalization: absolute ranks 1/log2(2), 1/log2(3), 1/log2(4); relative 1, 2/3, 1/3
    abs_raw = np.array([1.0, 1 / np.log2(3), 0.5])
    assert absolute[fast] / absolute[dog] == pytest.approx(abs_raw[2] / abs_raw[0])
    assert relative[fast] / relative[dog] == pytest.approx(1 / 3)
    assert presence[dog] == pytest.approx(presence[fast])
    assert np.linalg.norm(x) == pytest.approx(1.0)
    docs = [["a dog run", "dog on grass"], ["a cat sit"], ["grass and dog"], ["run dog run"]]
    feats = K.tagrank_features(docs, K.Vocabulary())
    assert _min_eig((feats @ feats.T).toarray()) > -1e-9


def test_trigram_kernel_known_value_and_psd() -> None:
    vocabs = [K.Vocabulary() for _ in range(3)]
    x = K.ngram_features([["a b c"], ["a b d"]], vocabs)
    k = K.ngram_kernel(x, x)
    # unigrams 2/3, bigrams {ab, bc} vs {ab, bd} 1/2, trigrams 0
    assert k[0, 1] == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)
    assert np.allclose(np.diag(k), 1.0)
    # n-grams do not cross caption boundaries: "a b" + "c" shares no bigram "b c" with "b c"
    y = K.ngram_features([["a b", "c"], ["b c"]], [K.Vocabulary() for _ in range(2)])
    assert K.ngram_kernel(y, y)[0, 1] == pytest.approx((2 / np.sqrt(3) / np.sqrt(2) + 0) / 2)
    rng = np.random.default_rng(3)
    words = list("abcdef")
    docs = [[" ".join(rng.choice(words, 6))] for _ in range(20)]
    vs = [K.Vocabulary() for _ in range(3)]
    f = K.ngram_features(docs, vs, weighting="sqrt-idf", df=K.document_frequencies([d[0] for d in docs], 3))
    assert _min_eig(K.ngram_kernel(f, f)) > -1e-9


def test_blended_trigram_kernel_known_values_limits_and_psd() -> None:
    vocabs = [K.Vocabulary() for _ in range(3)]
    x = K.ngram_features([["a b c"], ["a b d"]], vocabs)
    # decay 1: shared 2 unigrams + 1 bigram + 0 trigrams over sqrt((3 + 2 + 1)^2) = 3 / 6
    assert K.blended_ngram_kernel(x, x, 1.0)[0, 1] == pytest.approx(3 / 6)
    # decay l: (2 l^2 + l^4) / (3 l^2 + 2 l^4 + l^6)
    lam = 0.5
    want = (2 * lam**2 + lam**4) / (3 * lam**2 + 2 * lam**4 + lam**6)
    k = K.blended_ngram_kernel(x, x, lam)
    assert k[0, 1] == pytest.approx(want) and np.allclose(np.diag(k), 1.0)
    # a small decay leans on unigrams: the kernel tends to the unigram cosine, 2/3
    assert K.blended_ngram_kernel(x, x, 1e-3)[0, 1] == pytest.approx(2 / 3, abs=1e-5)
    # rows against other rows: the same values as the square kernel
    y = K.ngram_features([["a b d"]], vocabs, grow=False)
    assert K.blended_ngram_kernel(y, x, lam)[0, 0] == pytest.approx(want)
    rng = np.random.default_rng(5)
    words = list("abcdef")
    docs = [[" ".join(rng.choice(words, 6)), " ".join(rng.choice(words, 3))] for _ in range(20)]
    vs = [K.Vocabulary() for _ in range(3)]
    f = K.ngram_features(docs, vs, weighting="idf", df=K.document_frequencies([c for d in docs for c in d], 3))
    assert _min_eig(K.blended_ngram_kernel(f, f, 0.3)) > -1e-9
    for bad in (0.0, 1.5, -0.2):
        with pytest.raises(ValueError, match="decay"):
            K.blended_ngram_kernel(f, f, bad)


def test_tagrank_idf_weighting_scales_each_word() -> None:
    df = K.document_frequencies(["dog run", "dog sit", "cat run", "a dog"], 1)
    plain = K.tagrank_features([["dog cat"]], v := K.Vocabulary()).toarray()[0]
    weighted = K.tagrank_features([["dog cat"]], v, grow=False, weighting="idf", df=df).toarray()[0]
    dog, cat, width = v.index["dog"], v.index["cat"], len(v)
    # idf: log(5 / 4) + 1 for dog (3 of 4 captions), log(5 / 2) + 1 for cat (1 of 4)
    ratio = (np.log(5 / 2) + 1) / (np.log(5 / 4) + 1)
    for block in range(3):
        b = block * width
        assert (weighted[b + cat] / weighted[b + dog]) == pytest.approx(ratio * plain[b + cat] / plain[b + dog])
    assert np.linalg.norm(weighted) == pytest.approx(1.0)


def test_semantic_trigram_kernel_known_values() -> None:
    vocabs = [K.Vocabulary() for _ in range(2)]
    x = K.ngram_features([["dog run"], ["puppy run"]], vocabs)
    sim = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])
    k = K.semantic_ngram_kernel(x, x, vocabs, sim, ["dog", "puppy", "run"])
    # averaged: unigrams (0.5 + 1) / (sqrt 2 sqrt 2) = 0.75; bigrams: 0.5 * 1 = 0.5
    assert k[0, 1] == pytest.approx((0.75 + 0.5) / 2)
    assert np.allclose(np.diag(k), 1.0)
    lam = 0.5
    k = K.semantic_ngram_kernel(x, x, vocabs, sim, ["dog", "puppy", "run"], decay=lam)
    # blended: unigrams 0.5 + 1 = 1.5 against self 2; bigrams 0.5 against self 1
    assert k[0, 1] == pytest.approx((1.5 * lam**2 + 0.5 * lam**4) / (2 * lam**2 + lam**4))
    assert np.allclose(np.diag(k), 1.0)
    with pytest.raises(ValueError, match="decay"):
        K.semantic_ngram_kernel(x, x, vocabs, sim, ["dog", "puppy", "run"], decay=2.0)


@pytest.mark.parametrize("decay", [None, 0.3])
def test_semantic_trigram_kernel_identity_and_psd(decay: float | None) -> None:
    rng = np.random.default_rng(4)
    words = list("abcdefg")
    docs = [[" ".join(rng.choice(words, 5)), " ".join(rng.choice(words, 4))] for _ in range(15)]
    vs = [K.Vocabulary() for _ in range(3)]
    f = K.ngram_features(docs, vs)
    plain = K.ngram_kernel(f, f) if decay is None else K.blended_ngram_kernel(f, f, decay)
    # identity similarity gives the TRI kernel back; words outside S match only themselves
    assert np.allclose(K.semantic_ngram_kernel(f, f, vs, np.eye(3), ["a", "b", "c"], decay=decay), plain)
    # a PSD word similarity gives a PSD kernel (Kronecker products of PSD matrices)
    emb = rng.normal(size=(7, 3))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    assert _min_eig(K.semantic_ngram_kernel(f, f, vs, emb @ emb.T, words, decay=decay)) > -1e-8


def test_lexical_similarities_from_captions() -> None:
    captions = [["a dog run", "a puppy run", "a dog play"], ["a cat sit", "a kitten sit", "a cat sleep"]] * 3
    flat = [c for g in captions for c in g]
    words = lexical.similarity_vocabulary(flat, min_count=3)
    assert words[0] == "a" and "puppy" in words and "kitten" in words
    dist = lexical.distributional_similarity(flat, words)
    assert np.allclose(np.diag(dist), 1.0) and _min_eig(dist) > -1e-9
    ix = {w: i for i, w in enumerate(words)}
    assert dist[ix["dog"], ix["puppy"]] > dist[ix["dog"], ix["kitten"]]
    align = lexical.alignment_similarity(captions, words)
    assert np.allclose(align, align.T) and align.min() >= 0 and align.max() <= 1
    assert align[ix["dog"], ix["puppy"]] > 0 and align[ix["dog"], ix["kitten"]] == 0
    s = lexical.combine_similarities([dist, align, None], neighbours=1, threshold=0.0).toarray()
    assert np.allclose(np.diag(s), 1.0) and np.allclose(s, s.T)
    assert ((s > 0).sum(axis=1) <= 2).all()  # itself and at most one mutual neighbour
    assert s[ix["dog"], ix["puppy"]] > 0 or s[ix["dog"], ix["play"]] > 0
    with pytest.raises(ValueError, match="no lexical similarity"):
        lexical.combine_similarities([None])


# ------------------------------------------------------------------------------------------- KCCA


def test_kcca_recovers_a_planted_correlation() -> None:
    rng = np.random.default_rng(5)
    n = 200
    z = rng.normal(size=n)
    x = np.c_[rng.normal(size=(n, 3)), z + 0.1 * rng.normal(size=n)]
    y = np.c_[-z + 0.1 * rng.normal(size=n), rng.normal(size=(n, 4))]
    model = fit_kcca(KernelEigen.from_kernel(x @ x.T), KernelEigen.from_kernel(y @ y.T), kappa=0.1, dims=3)
    assert model.correlations[0] > 0.95 and model.correlations[1] < 0.5
    assert (np.diff(model.correlations) <= 1e-12).all()
    # new pairs drawn the same way are aligned in the shared space
    zt = rng.normal(size=50)
    xt = np.c_[rng.normal(size=(50, 3)), zt + 0.1 * rng.normal(size=50)]
    yt = np.c_[-zt + 0.1 * rng.normal(size=50), rng.normal(size=(50, 4))]
    pi = model.project_images(xt @ x.T, 1)[:, 0]
    pt = model.project_texts(yt @ y.T, 1)[:, 0]
    assert abs(np.corrcoef(pi, pt)[0, 1]) > 0.95
    assert abs(np.corrcoef(pi, zt)[0, 1]) > 0.95
    # the SVD formulation agrees with the generalized eigenproblem of Hardoon et al.
    from scipy.linalg import eigh

    kx, _ = center_kernel(x @ x.T)
    ky, _ = center_kernel(y @ y.T)
    kappa = 0.1
    zero = np.zeros((n, n))
    lhs = np.block([[zero, kx @ ky], [ky @ kx, zero]])
    rhs = np.block([[kx @ kx + kappa * kx, zero], [zero, ky @ ky + kappa * ky]]) + 1e-9 * np.eye(2 * n)
    top = eigh(lhs, rhs, eigvals_only=True)[-1]
    assert model.correlations[0] == pytest.approx(top, rel=1e-4)


def test_kcca_with_a_nonlinear_kernel_and_the_text_shift() -> None:
    rng = np.random.default_rng(6)
    n = 150
    t = rng.uniform(-2, 2, size=n)
    x = np.c_[t, rng.normal(size=n)]
    y = np.c_[t**2 + 0.05 * rng.normal(size=n), rng.normal(size=n)]  # a correlation that is not linear in x

    def rbf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.exp(-((a[:, None, :] - b[None, :, :]) ** 2).sum(-1) / 2)

    ex, ey = KernelEigen.from_kernel(rbf(x, x), rank=60), KernelEigen.from_kernel(y @ y.T)
    plain = fit_kcca(ex, ey, kappa=0.5, dims=1)
    assert plain.correlations[0] > 0.9
    # the diagonal shift trains on the text kernel plus shift * I: its eigenvalues move, not its eigenvectors
    shifted = fit_kcca(ex, ey, kappa=0.5, dims=1, text_shift=5.0)
    moved = dataclasses.replace(ey, values=ey.values + 5.0)
    assert np.allclose(shifted.text_weights, fit_kcca(ex, moved, kappa=0.5, dims=1).text_weights)
    assert not np.allclose(shifted.text_weights, plain.text_weights)
    with pytest.raises(ValueError, match="kappa"):
        fit_kcca(ex, ey, kappa=0.0)


def test_kcca_gram_route_equals_the_thin_svd_tall_and_wide() -> None:
    rng = np.random.default_rng(9)
    x, y = rng.normal(size=(60, 12)), rng.normal(size=(60, 5))
    y[:, 0] += x[:, 0]
    for a, b in ((x, y), (y, x)):  # more image than text eigenpairs, then fewer
        ea, eb = KernelEigen.from_kernel(a @ a.T), KernelEigen.from_kernel(b @ b.T)
        model = fit_kcca(ea, eb, kappa=0.3, text_shift=0.5)
        la, lb = ea.values, eb.values + 0.5
        c = (np.sqrt(la / (la + 0.3))[:, None] * (ea.vectors.T @ eb.vectors)) * np.sqrt(lb / (lb + 0.3))[None, :]
        p, s, qt = np.linalg.svd(c, full_matrices=False)
        assert np.allclose(model.correlations, s)
        signs = np.sign((model.image_weights * np.sqrt(la * la + 0.3 * la)[:, None] * p).sum(axis=0))
        assert np.allclose(model.image_weights * np.sqrt(la * la + 0.3 * la)[:, None] * signs, p, atol=1e-8)
        assert np.allclose(model.text_weights * np.sqrt(lb * lb + 0.3 * lb)[:, None] * signs, qt.T, atol=1e-8)
        short = fit_kcca(ea, eb, kappa=0.3, text_shift=0.5, dims=3)
        assert np.allclose(model.truncate(3).correlations, short.correlations)
        assert np.allclose(np.abs(model.truncate(3).image_weights), np.abs(short.image_weights))


def test_incomplete_cholesky_factor_matches_the_exact_decomposition() -> None:
    rng = np.random.default_rng(8)
    x = rng.normal(size=(80, 6))
    kernel = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 8)
    asked: list[int] = []

    def column(i: int) -> np.ndarray:
        asked.append(i)
        return kernel[:, i]

    factor = KernelEigen.from_columns(np.diag(kernel), column, rank=80, tol=1e-12)
    exact = KernelEigen.from_kernel(kernel, method="exact")
    r = 10
    assert np.allclose(factor.values[:r], exact.values[:r], rtol=1e-6)
    assert np.allclose(np.abs(factor.vectors[:, :r].T @ exact.vectors[:, :r]), np.eye(r), atol=1e-5)
    assert sorted(asked) == sorted(set(asked)) and factor.is_factor and not exact.is_factor
    # new items: rows against the pivots give the eigen-coordinates of the full centred rows
    new = rng.normal(size=(5, 6))
    rows = np.exp(-((new[:, None] - x[None]) ** 2).sum(-1) / 8)
    a = factor.coordinates(rows[:, factor.columns])[:, :r]
    b = exact.coordinates(rows)[:, :r]
    assert np.allclose(np.abs(a), np.abs(b), atol=1e-5)
    # a low-rank factor stops at the rank; G G' <= K, so its spectrum is below the kernel's, and close
    low = KernelEigen.from_columns(np.diag(kernel), lambda i: kernel[:, i], rank=30)
    assert low.columns.size == 30
    assert (low.values[:3] <= exact.values[:3] + 1e-9).all() and (low.values[:3] >= 0.8 * exact.values[:3]).all()
    path = Path(tempfile.mkdtemp()) / "f.npz"
    low.save(path)
    again = KernelEigen.load(path)
    assert np.array_equal(again.basis, low.basis) and np.array_equal(again.columns, low.columns)
    with pytest.raises(ValueError, match="kernel rows must be"):
        low.coordinates(rows)


def test_block_ranks_equal_evaluate_ranking_with_ties() -> None:
    from capeval.ranking import evaluate_ranking
    from capeval.ranking.systems.pipeline import block_ranks

    rng = np.random.default_rng(9)
    for scores in (rng.normal(size=(12, 36)), rng.integers(0, 3, size=(12, 36)).astype(float)):
        annotation, search = block_ranks(scores, 3)
        gold = [c // 3 for c in range(36)]
        assert (annotation == evaluate_ranking(scores, gold, task="annotation").ranks).all()
        assert (search == evaluate_ranking(scores, gold, task="search").ranks).all()
    with pytest.raises(ValueError, match="per image"):
        block_ranks(np.zeros((4, 10)), 3)


def test_cosine_scores() -> None:
    s = cosine_scores([[1.0, 0.0], [0.0, 0.0]], [[2.0, 0.0], [1.0, 1.0]])
    assert np.allclose(s, [[1.0, 1 / np.sqrt(2)], [0.0, 0.0]])


# --------------------------------------------------------------------------------------------- NN


def test_idf_f1_and_nearest_neighbour_scores() -> None:
    idf = {"a": 0.0, "dog": 2.0, "run": 1.0, "cat": 2.0, "": 1.0}
    f = idf_f1(["a dog run", "a cat"], ["a dog", "a cat sit"], idf)
    # P = 2/3, R = 1 -> 0.8; "a cat" vs "a cat sit" ("sit" unknown, weight 1): P 1, R 2/3 -> 0.8
    assert f[0, 0] == pytest.approx(0.8) and f[1, 1] == pytest.approx(0.8) and f[0, 1] == 0.0
    train = [["a dog run", "dog run"], ["a cat sit", "cat sit"]]
    kernel = np.array([[0.2, 0.9], [0.8, 0.1]])  # query 0 is nearest training image 1 (cats)
    scores = nearest_neighbour_scores(kernel, train, ["cat sit", "dog run"], idf)
    assert scores[0, 0] > scores[0, 1] and scores[1, 1] > scores[1, 0]
    assert scores[1, 1] == pytest.approx(np.mean(idf_f1(["dog run"], train[0], idf)))
    w = idf_weights(["a dog", "a cat"])
    assert w["a"] == 0.0 and w["dog"] == pytest.approx(np.log(2))
    with pytest.raises(ValueError, match="training images"):
        nearest_neighbour_scores(np.zeros((1, 3)), train, ["x"], idf)


# ------------------------------------------------------------------------------- synthetic dataset

_COLOURS = {"red": (220, 30, 30), "green": (30, 200, 40), "blue": (30, 40, 220), "yellow": (230, 220, 30)}
_SHAPES = ("stripe", "dot")


def _write_dataset(root: Path, n_train: int = 16, n_dev: int = 8, n_test: int = 8) -> tuple[Path, Path]:
    """Tiny images (a coloured pattern on grey) whose captions name the colour and the pattern."""
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(7)
    data, images = root / "data", root / "images"
    data.mkdir()
    images.mkdir()
    names = list(_COLOURS)
    lines, lemma, splits = [], [], {"train": [], "dev": [], "test": []}
    count = 0
    for split, n in (("train", n_train), ("dev", n_dev), ("test", n_test)):
        for i in range(n):
            colour, shape = names[i % len(names)], _SHAPES[(i // len(names)) % 2]
            im = np.full((48, 64, 3), 128, dtype=np.uint8)
            im += rng.integers(0, 20, size=im.shape, dtype=np.uint8)
            if shape == "stripe":
                im[:, ::8] = _COLOURS[colour]
                im[:, 1::8] = _COLOURS[colour]
            else:
                im[::6, ::6] = _COLOURS[colour]
            image_id = f"{1000 + count}_{split}{i}.jpg"
            count += 1
            cv2.imwrite(str(images / image_id), cv2.cvtColor(im, cv2.COLOR_RGB2BGR))
            splits[split].append(image_id)
            for k in range(5):
                extra = ("a picture", "the image", "this photo", "one view", "a scene")[k]
                if split != "train" and k == 4:
                    extra = f"an unseen {split} word"  # n-grams the training captions never have
                lines.append(f"{image_id}#{k}\t{extra.capitalize()} shows {colour} {shape}s .")
                lemma.append(f"{image_id}#{k}\t{extra.capitalize()} show {colour} {shape} .")
    (data / "Flickr8k.token.txt").write_text("\n".join(lines) + "\n")
    (data / "Flickr8k.lemma.token.txt").write_text("\n".join(lemma) + "\n")
    for split, file in (("train", "Flickr_8k.trainImages.txt"), ("dev", "Flickr_8k.devImages.txt")):
        (data / file).write_text("\n".join(splits[split]) + "\n")
    (data / "Flickr_8k.testImages.txt").write_text("\n".join(splits["test"]) + "\n")
    test = splits["test"]
    expert = [f"{test[0]}\t{test[-1]}#0\t4\t4\t3", f"{test[0]}\t{test[1 % len(test)]}#2\t1\t1\t1"]
    (data / "ExpertAnnotations.txt").write_text("\n".join(expert) + "\n")
    crowd = [f"{test[0]}\t{test[-1]}#0\t0.666666666666667\t2\t1", f"{test[0]}\t{test[1 % len(test)]}#2\t0\t0\t3"]
    (data / "CrowdFlowerAnnotations.txt").write_text("\n".join(crowd) + "\n")
    return data, images


def test_flickr8k_reader_and_judgments(tmp_path: Path) -> None:
    from capeval.ranking.systems import read_crowd_judgments, read_expert_judgments, read_flickr8k

    data, _ = _write_dataset(tmp_path)
    d = read_flickr8k(data)
    assert len(d.train.images) == 16 and len(d.test.caption_ids) == 40
    assert d.test.lemmas[0][0].endswith("stripe .")
    j, used = read_expert_judgments(data / "ExpertAnnotations.txt", d.test.images, d.test.caption_ids)
    assert used == 2
    assert j[0, 35] == pytest.approx(11 / 3) and j[0, 7] == 1.0 and j[0, 0] == 4.0 and j[1, 0] == 0.0
    c, used = read_crowd_judgments(data / "CrowdFlowerAnnotations.txt", d.test.images, d.test.caption_ids)
    assert used == 2 and c[0, 35] == pytest.approx(2 / 3) and c[0, 7] == 0.0 and c[0, 0] == 1.0 and c[1, 0] == 0.0
    for bad, message in (
        ("a.jpg\ta.jpg#0\t0.5\t2\t1\n", "does not match 2 yes and 1 no"),
        ("a.jpg\ta.jpg#0\tmany\t2\t1\n", "a yes fraction and two vote counts"),
        ("a.jpg\ta.jpg#0\t1\t1\n", "line 1: expected image, caption id and a yes fraction"),
    ):
        (tmp_path / "crowd.txt").write_text(bad)
        with pytest.raises(ValueError, match=message):
            read_crowd_judgments(tmp_path / "crowd.txt", d.test.images, d.test.caption_ids)
    (tmp_path / "expert.txt").write_text("a.jpg\ta.jpg#0\t4\t5\t3\n")
    with pytest.raises(ValueError, match="expert scores must be 1 to 4"):
        read_expert_judgments(tmp_path / "expert.txt", d.test.images, d.test.caption_ids)
    (data / "Flickr_8k.devImages.txt").write_text("no_such_image.jpg\n")
    with pytest.raises(ValueError, match="has 0 captions"):
        read_flickr8k(data)
    (data / "Flickr8k.token.txt").write_text("broken line\n")
    with pytest.raises(ValueError, match="line 1"):
        read_flickr8k(data)


def test_visual_words_from_images(tmp_path: Path) -> None:
    from capeval.ranking.systems.image_features import (
        VisualWordConfig,
        extract_visual_words,
        load_image,
        sift_descriptors,
        texture_descriptors,
    )

    data, images = _write_dataset(tmp_path, 6, 1, 1)
    ids = sorted(p.name for p in images.iterdir())
    rgb = load_image(images / ids[0])
    assert rgb.shape == (224, 224, 3)
    desc, cells = texture_descriptors(rgb)
    assert desc.shape == (112 * 112, 8) and np.bincount(cells).tolist() == [784] * 16
    sift, cells = sift_descriptors(rgb)
    assert sift.shape == (27 * 27, 128) and cells.max() == 15
    config = VisualWordConfig(words={"colour": 4, "texture": 4, "sift": 4}, codebook_images=3, codebook_samples=600)
    cache = tmp_path / "cache"
    f = extract_visual_words(images, ids, ids[:6], config=config, cache_dir=cache, progress=False)
    assert f.counts["colour"].shape == (8, 16, 4)
    assert (f.counts["colour"].sum(axis=(1, 2)) == 112 * 112).all()
    again = extract_visual_words(images, ids, ids[:6], config=config, cache_dir=cache, progress=False)
    assert all((again.counts[k] == f.counts[k]).all() for k in f.counts)  # from the cache
    (images / "broken.jpg").write_bytes(b"not an image")
    with pytest.raises(ValueError, match="not a readable image"):
        load_image(images / "broken.jpg")
    with pytest.raises(FileNotFoundError, match="missing.jpg"):
        extract_visual_words(images, ["missing.jpg"], ids, config=config, progress=False)


def test_rank_systems_command_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capeval.cli.main import main

    data, images = _write_dataset(tmp_path)
    out = tmp_path / "out"
    args = ["rank-systems", "--data", str(data), "--images", str(images), "--out", str(out)]
    args += ["--systems", "nn,bow1,bow5,tagrank,tri5,tri5sem", "--words", "4,4,4", "--codebook-images", "8"]
    args += ["--kappas", "0.1,1", "--dims", "2,4", "--image-rank", "12", "--text-rank", "12", "--top-models", "3"]
    args += ["--cache-dir", str(tmp_path / "cache"), "--quiet"]
    assert main(args) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["captions"][:2] == [f"{manifest['images'][0]}#0", f"{manifest['images'][0]}#1"]
    assert len(manifest["systems"]["bow5"]["selected"]) == 3
    assert manifest["judgments"]["expert_pairs"] == 2 and manifest["judgments"]["file"] == "judgments-expert.npy"
    assert manifest["judgments"]["crowd_pairs"] == 2 and manifest["judgments"]["crowd_file"] == "judgments-crowd.npy"
    for system in ("nn", "bow1", "bow5", "tagrank", "tri5", "tri5sem"):
        for task in ("annotation", "search"):
            m = np.load(out / f"{system}.{task}.npy")
            assert m.shape == (8, 40) and np.isfinite(m).all()
    # the Borda files rank each direction: annotation rows and search columns are permutations
    ann, sea = np.load(out / "bow5.annotation.npy"), np.load(out / "bow5.search.npy")
    assert (np.sort(-ann, axis=1) == np.arange(1, 41)).all()
    assert (np.sort(-sea, axis=0) == np.arange(1, 9)[:, None]).all()
    # capeval rank reads them; the colour words make the text systems better than chance
    capsys.readouterr()
    files = [str(out / f"{s}.annotation.npy") for s in ("nn", "bow5", "tri5sem")]
    rank = ["rank", "--task", "annotation", "--captions-per-image", "5", "--scores", *files, "--format", "csv"]
    assert main([*rank, "--judgments", str(out / "judgments-expert.npy")]) == 0
    rows = {r["system"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert set(rows) == {"nn.annotation", "bow5.annotation", "tri5sem.annotation"}
    assert float(rows["bow5.annotation"]["median rank"]) < 20  # chance: about 20 of 40
    assert "S@1" in rows["nn.annotation"]
    assert main([*rank, "--judgments", str(out / "judgments-crowd.npy"), "--threshold", "0.66"]) == 0
    assert "S@1" in capsys.readouterr().out
    # a second run reads the cached visual words and kernels and writes the same matrices
    assert main(args) == 0
    assert (np.load(out / "bow5.annotation.npy") == ann).all()
    # the incomplete Cholesky factor of the image kernel (large training sets) runs the same way
    low = tmp_path / "low"
    assert main([*args[:6], str(low), *args[7:], "--systems", "bow5", "--image-decomposition", "cholesky"]) == 0
    assert json.loads((low / "manifest.json").read_text())["grid"]["image_decomposition"] == "cholesky"
    assert np.load(low / "bow5.search.npy").shape == (8, 40)


def test_rank_systems_command_rejects_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from capeval.cli.main import main

    base = ["rank-systems", "--data", str(tmp_path), "--images", str(tmp_path), "--out", str(tmp_path / "o")]
    assert main([*base, "--systems", "nn,kcca9"]) == 2
    assert "unknown system 'kcca9'" in capsys.readouterr().err
    assert main([*base, "--kappas", "0,1"]) == 2
    with pytest.raises(SystemExit):
        main([*base, "--image-decomposition", "qr"])
    assert "invalid choice: 'qr'" in capsys.readouterr().err
    assert main(["rank-systems", "--data", str(tmp_path), "--images", str(tmp_path / "none"), "--out", "o"]) == 2
    assert "image folder not found" in capsys.readouterr().err


def _tiny_dataset_features(tmp_path: Path) -> tuple[Any, Any]:
    """The synthetic dataset's splits and visual words (codebooks of 4 words)."""
    from capeval.ranking.systems import extract_visual_words, read_flickr8k
    from capeval.ranking.systems.image_features import VisualWordConfig

    data, images = _write_dataset(tmp_path)
    d = read_flickr8k(data)
    ids = list(d.train.images + d.dev.images + d.test.images)
    config = VisualWordConfig(words={"colour": 4, "texture": 4, "sift": 4}, codebook_images=8, codebook_samples=600)
    features = extract_visual_words(images, ids, d.train.images, config=config, progress=False)
    return d, features


def test_run_systems_takes_a_new_text_kernel_by_name(tmp_path: Path) -> None:
    from capeval.ranking.systems import KCCAGrid, run_systems
    from capeval.ranking.systems.pipeline import TEXT_KERNELS, TextKernelSpec

    d, features = _tiny_dataset_features(tmp_path)
    grid = KCCAGrid(kappas=(0.1, 1.0), dims=(2, 4), image_rank=12, text_rank=12, top_models=2)
    mine = {"tri5-averaged": TextKernelSpec("tri", 5, "none"), "tri5-blend1": TextKernelSpec("tri", 5, "idf", 1.0)}
    out = tmp_path / "out"
    manifest = run_systems(
        d, features, out, systems=["tri5", *mine], grid=grid, progress=False, text_kernels=mine, evaluate="dev"
    )
    assert manifest["systems"]["tri5-blend1"]["text_kernel"] == {
        "kind": "tri",
        "captions": 5,
        "weighting": "idf",
        "decay": 1.0,
    }
    assert manifest["systems"]["tri5"]["text_kernel"]["decay"] == TEXT_KERNELS["tri5"].decay
    assert np.load(out / "tri5-averaged.search.npy").shape == (8, 40)
    with pytest.raises(ValueError, match="unknown system 'mine'"):
        run_systems(d, features, out, systems=["mine"], grid=grid, progress=False)
    with pytest.raises(ValueError, match="nearest-neighbour"):
        run_systems(
            d, features, out, systems=["nn"], grid=grid, progress=False, text_kernels={"nn": mine["tri5-averaged"]}
        )


def test_dev_and_test_runs_share_the_training_image_decompositions(tmp_path: Path) -> None:
    from capeval.ranking.systems import KCCAGrid, run_systems

    d, features = _tiny_dataset_features(tmp_path)
    grid = KCCAGrid(kappas=(1.0,), dims=(2,), image_powers=(2,), text_shifts=(0.0,), top_models=1)
    cache = tmp_path / "cache"
    for split in ("test", "dev"):
        run_systems(d, features, tmp_path / split, systems=["bow5"], evaluate=split, grid=grid, cache_dir=cache)
    kernels = sorted(p.name for p in (cache / "kernels").iterdir())
    assert len([k for k in kernels if "-p2-exact-" in k]) == 1  # decomposed once for both runs
    assert len([k for k in kernels if k.endswith("-train-full.npy")]) == 1
    assert len([k for k in kernels if k.endswith("-rows-full.npy")]) == 2  # the dev and the test rows
