"""Gradient-boosted regression trees under a pairwise logistic loss (numpy only).

:func:`fit_trees` grows ``n_trees`` trees of a fixed ``depth`` on the same weighted pairs
``(better, worse)`` as the networks of :mod:`capeval.metrics.learned.training_v2`: each round
takes the gradient and diagonal Hessian of ``sum_c w_c * mean(pw * log(1 + exp(-(s_b - s_w))))``
with respect to every item's score, finds each level's splits on per-feature histograms of
:data:`N_BINS` quantile bins (of the training rows), sets the leaves by one Newton step and
adds them times the learning rate. Every step is a fixed sequence of numpy operations (ties
between equal gains go to the first feature and bin), so a fit is deterministic.

A fitted ensemble is three arrays (:class:`TreeEnsemble`): the feature and threshold of each
inner node (level by level; an item goes right when its raw feature value is ``>=`` the
threshold; an infinite threshold sends every item left) and the value of each leaf.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from capeval.metrics.base import FloatArray

__all__ = ["N_BINS", "TreeConfig", "TreeEnsemble", "fit_trees"]

#: Quantile bins per feature for the split search.
N_BINS = 32


@dataclass(frozen=True)
class TreeConfig:
    """Hyper-parameters of :func:`fit_trees` (fixed before any evaluation)."""

    n_trees: int = 300
    depth: int = 3
    learning_rate: float = 0.1
    #: L2 penalty on the leaf values (added to the Hessian sums).
    l2: float = 1e-3
    #: Smallest Hessian sum of a child for a split to count.
    min_hessian: float = 1e-4


@dataclass(frozen=True, eq=False)
class TreeEnsemble:
    """Trees of one depth: ``feature`` and ``threshold`` ``(n_trees, 2**depth - 1)``, ``leaf``
    ``(n_trees, 2**depth)``; inner nodes are stored level by level, left to right."""

    feature: np.ndarray
    threshold: FloatArray
    leaf: FloatArray

    @property
    def depth(self) -> int:
        return int(np.log2(self.leaf.shape[1]))

    def check(self, n_features: int) -> None:
        """Raise ``ValueError`` unless the arrays are consistent with ``n_features`` inputs."""
        t, inner = self.feature.shape
        if self.leaf.ndim != 2 or self.leaf.shape[0] != t or self.leaf.shape[1] != inner + 1:
            raise ValueError(f"tree arrays do not match: feature {self.feature.shape}, leaf {self.leaf.shape}")
        if self.leaf.shape[1] & (self.leaf.shape[1] - 1):
            raise ValueError(f"trees must be complete: {self.leaf.shape[1]} leaves")
        if self.threshold.shape != self.feature.shape:
            raise ValueError(f"tree thresholds {self.threshold.shape} do not match features {self.feature.shape}")
        if self.feature.size and (self.feature.min() < 0 or self.feature.max() >= n_features):
            raise ValueError(f"tree feature index outside 0..{n_features - 1}")
        if not np.isfinite(self.leaf).all() or np.isnan(self.threshold).any():
            raise ValueError("tree leaves must be finite and thresholds not NaN")

    def predict(self, x: FloatArray) -> FloatArray:
        """Sum of the trees' leaf values for each row of raw features ``x``."""
        out = np.zeros(len(x))
        rows = np.arange(len(x))
        for t in range(self.feature.shape[0]):
            out += self.leaf[t, _leaf_index(x, rows, self.feature[t], self.threshold[t], self.depth)]
        return out


def _leaf_index(x: FloatArray, rows: np.ndarray, feature: np.ndarray, threshold: FloatArray, depth: int) -> np.ndarray:
    node = np.zeros(len(x), dtype=np.int64)
    for level in range(depth):
        inner = (1 << level) - 1 + node
        node = 2 * node + (x[rows, feature[inner]] >= threshold[inner])
    return node


def _grad_hess(s: FloatArray, terms: Sequence[tuple[np.ndarray, FloatArray, float]]) -> tuple[FloatArray, FloatArray]:
    g = np.zeros_like(s)
    h = np.zeros_like(s)
    for p, pw, cw in terms:
        q = 1.0 / (1.0 + np.exp(s[p[:, 0]] - s[p[:, 1]]))
        w = cw * pw / len(p)
        gg = -w * q
        hh = w * q * (1.0 - q)
        g += np.bincount(p[:, 0], gg, len(s)) - np.bincount(p[:, 1], gg, len(s))
        h += np.bincount(p[:, 0], hh, len(s)) + np.bincount(p[:, 1], hh, len(s))
    return g, h


def fit_trees(
    x: FloatArray,
    train_rows: np.ndarray,
    terms: Sequence[tuple[np.ndarray, FloatArray, float]],
    config: TreeConfig | None = None,
) -> TreeEnsemble:
    """Boosted trees on raw features ``x`` (all items), bins from ``train_rows`` (a boolean mask).

    Args:
        x: ``(n, d)`` raw features of every item the pairs index.
        train_rows: Items the bins and the split statistics use.
        terms: ``(pairs (m, 2) of row indices (better, worse), pair weights, corpus weight)``.
        config: Hyper-parameters.
    """
    cfg = config or TreeConfig()
    n, d = x.shape
    depth = cfg.depth
    rows = np.flatnonzero(train_rows)
    quantiles = np.linspace(0.0, 1.0, N_BINS + 1)[1:-1]
    edges = [np.unique(np.quantile(x[rows, j], quantiles)) for j in range(d)]
    bins = np.column_stack([np.searchsorted(edges[j], x[rows, j], side="right") for j in range(d)])
    width = N_BINS + 1
    offset = (np.arange(d) * width)[None, :]
    s = np.zeros(n)
    all_rows = np.arange(n)
    features = np.zeros((cfg.n_trees, (1 << depth) - 1), dtype=np.int64)
    thresholds = np.full((cfg.n_trees, (1 << depth) - 1), np.inf)
    leaves = np.zeros((cfg.n_trees, 1 << depth))
    for t in range(cfg.n_trees):
        g, h = _grad_hess(s, terms)
        gr, hr = g[rows], h[rows]
        node = np.zeros(len(rows), dtype=np.int64)
        for level in range(depth):
            nodes = 1 << level
            idx = (bins + offset + (node * d * width)[:, None]).ravel()
            size = nodes * d * width
            gsum = np.bincount(idx, np.repeat(gr, d), size).reshape(nodes, d, width).cumsum(axis=2)
            hsum = np.bincount(idx, np.repeat(hr, d), size).reshape(nodes, d, width).cumsum(axis=2)
            gt, ht = gsum[:, :, -1:], hsum[:, :, -1:]
            gain = gsum**2 / (hsum + cfg.l2) + (gt - gsum) ** 2 / (ht - hsum + cfg.l2) - gt**2 / (ht + cfg.l2)
            gain[(hsum < cfg.min_hessian) | (ht - hsum < cfg.min_hessian)] = -np.inf
            right = np.zeros(len(rows), dtype=np.int64)
            for k in range(nodes):
                j, b = divmod(int(np.argmax(gain[k])), width)
                if not gain[k, j, b] > 0 or b >= len(edges[j]):
                    continue  # no split: every item goes left (infinite threshold)
                features[t, nodes - 1 + k] = j
                thresholds[t, nodes - 1 + k] = edges[j][b]
                sel = node == k
                right[sel] = bins[sel, j] > b
            node = 2 * node + right
        gl = np.bincount(node, gr, 1 << depth)
        hl = np.bincount(node, hr, 1 << depth)
        leaves[t] = -cfg.learning_rate * gl / (hl + cfg.l2)
        s += leaves[t, _leaf_index(x, all_rows, features[t], thresholds[t], depth)]
    return TreeEnsemble(features, thresholds, leaves)
