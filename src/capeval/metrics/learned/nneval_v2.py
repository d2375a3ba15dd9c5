"""``nneval-v2``: a text-only learned caption metric trained on human judgments.

The score of a caption is a small network over the features of
:mod:`capeval.metrics.learned.features_v2` (classic metrics with their precision/recall and
SPICE category parts, n-gram informativeness, reference consensus, length ratio, soft
matching with COCO word vectors, and how the candidate's own references rank among the
corpus' other reference sets): standardised inputs -> one layer of ``tanh`` units -> one
output, blended (when the model has them) with boosted trees on the same features
(:mod:`capeval.metrics.learned.trees`), mapped to 0..1 by a logistic function. It is trained
on graded ratings, yes-fractions and pairwise preferences together
(``capeval.metrics.learned.training_v2``); its data,
protocol and figures are in ``docs/metrics/nneval-v2.md``. The model ships as
``capeval/data/learned/nneval-v2.npz``.

Statistics row per item: ``[item_score, 1]``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from capeval.metrics.base import FloatArray, MeanMetric
from capeval.metrics.learned._common import (
    checked_features,
    load_model_npz,
    model_digest,
    model_signature_fields,
    save_model_npz,
    warn_feature_config,
)
from capeval.metrics.learned.trees import TreeEnsemble
from capeval.tokenizers.base import Tokenizer

__all__ = ["DEFAULT_MODEL_V2", "SMALL_CORPUS", "NNEvalV2", "ScorerModel", "load_model_v2"]

log = logging.getLogger("capeval")

#: Below this many images (distinct reference sets) in a corpus a warning says the background
#: columns are less reliable (model card: Limitations).
SMALL_CORPUS = 50


#: File name of the shipped model inside ``capeval/data/learned``.
DEFAULT_MODEL_V2 = "nneval-v2.npz"
#: Arrays of a model with boosted trees (all present or none).
_TREE_ARRAYS = ("tree_feature", "tree_threshold", "tree_leaf", "blend")
_MEMO_SIZE = 4


@dataclass(frozen=True, eq=False)
class ScorerModel:
    """Standardisation, a ``tanh`` hidden layer and a linear output (``w1`` may have 0 columns),
    optionally blended with boosted trees on the raw features.

    Attributes:
        features: Feature names, in input column order.
        mean: Per-feature mean of the training data.
        scale: Per-feature standard deviation of the training data.
        params: ``[W1 (d, h), b1 (h,), w2 (h + d,), b2 ()]``: the output reads the hidden units
            and the standardised inputs (a linear skip).
        meta: Provenance: seed, hyper-parameters, data, figures.
        trees: Boosted trees (:class:`~capeval.metrics.learned.trees.TreeEnsemble`) or ``None``.
        blend: With trees: ``[a, b]``, the output is ``a * network + b * trees``.
    """

    features: tuple[str, ...]
    mean: FloatArray
    scale: FloatArray
    params: list[FloatArray]
    meta: Mapping[str, Any] = field(default_factory=dict)
    trees: TreeEnsemble | None = None
    blend: FloatArray | None = None

    def _tree_arrays(self) -> dict[str, FloatArray]:
        if self.trees is None:
            return {}
        blend = self.blend if self.blend is not None else np.array([0.5, 0.5])
        return {
            "tree_feature": np.asarray(self.trees.feature, dtype=np.float64),
            "tree_threshold": self.trees.threshold,
            "tree_leaf": self.trees.leaf,
            "blend": np.asarray(blend, dtype=np.float64),
        }

    @property
    def digest(self) -> str:
        """First 12 hex digits of the SHA-256 of features, standardisation, parameters (and trees)."""
        return model_digest(self.features, (self.mean, self.scale, *self.params, *self._tree_arrays().values()))

    @property
    def seed(self) -> int:
        return int(self.meta.get("seed", -1))

    def logits(self, features: FloatArray) -> FloatArray:
        """Raw output of each row of raw features (checked: shape and finiteness)."""
        x = checked_features(features, self.features)
        net = forward(self.params, (x - self.mean) / self.scale)
        if self.trees is None:
            return net
        a, b = self._tree_arrays()["blend"]
        return np.asarray(a * net + b * self.trees.predict(x), dtype=np.float64)

    def predict(self, features: FloatArray) -> FloatArray:
        """Score in 0..1 of each row of raw features."""
        return np.asarray(1.0 / (1.0 + np.exp(-self.logits(features))), dtype=np.float64)

    def save(self, path: str | Path) -> None:
        """Write the model to a compressed ``.npz`` (arrays plus JSON provenance)."""
        arrays = {"mean": self.mean, "scale": self.scale, **self._tree_arrays()}
        save_model_npz(path, self.features, self.params, self.meta, arrays)

    @classmethod
    def load(cls, path: str | Path) -> ScorerModel:
        """Read a model written by :meth:`save`.

        Raises:
            ValueError: if the file is missing or malformed.
        """
        features, arrays, params, meta = load_model_npz(
            path, ("mean", "scale"), "an nneval-v2 model", n_params=4, optional=_TREE_ARRAYS
        )
        d = len(features)
        w1, b1, w2, _ = params
        if w1.shape[0] != d or b1.shape != (w1.shape[1],) or w2.shape != (w1.shape[1] + d,):
            raise ValueError(f"{path}: parameter shapes do not match {d} features")
        trees, blend = None, None
        present = [k for k in _TREE_ARRAYS if k in arrays]
        if present:
            if len(present) != len(_TREE_ARRAYS):
                raise ValueError(f"{path}: tree arrays incomplete (has {present}, needs {list(_TREE_ARRAYS)})")
            feature = arrays["tree_feature"]
            if not np.array_equal(feature, np.round(feature)):
                raise ValueError(f"{path}: tree feature indices are not integers")
            trees = TreeEnsemble(feature.astype(np.int64), arrays["tree_threshold"], arrays["tree_leaf"])
            try:
                trees.check(d)
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from exc
            blend = arrays["blend"]
            if blend.shape != (2,) or not np.isfinite(blend).all():
                raise ValueError(f"{path}: blend weights must be two finite numbers, got {blend.tolist()}")
        return cls(
            features=features,
            mean=arrays["mean"],
            scale=arrays["scale"],
            params=params,
            meta=meta,
            trees=trees,
            blend=blend,
        )


def forward(params: Sequence[FloatArray], z: FloatArray) -> FloatArray:
    """Output of standardised inputs ``z``: ``w2 . [tanh(z W1 + b1), z] + b2``."""
    w1, b1, w2, b2 = params
    h = np.tanh(z @ w1 + b1)
    return np.asarray(np.hstack([h, z]) @ w2 + b2, dtype=np.float64)


def load_model_v2(path: str | Path | None = None) -> ScorerModel:
    """Load an nneval-v2 model; default: the one shipped with capeval."""
    if path is None:
        from capeval.data import data_path

        path = data_path("learned", DEFAULT_MODEL_V2)
    return ScorerModel.load(path)


class NNEvalV2(MeanMetric):
    """nneval-v2: a learned score in 0..1 from classic metrics, their parts and text statistics.

    Args:
        model: A :class:`ScorerModel`, a path to one, or ``None`` for the shipped model.
        tokenizer: Tokenizer name or instance (default ``"ptb"``).
        feature_options: Extra constructor options of the feature metrics per registry key
            (must not change their scores, e.g. ``{"spice": {"cache": False}}``).

    Example:
        >>> m = NNEvalV2(tokenizer="ws")
        >>> r = m.score(candidates=["a dog runs on the grass"],
        ...             references=[["a dog runs on the grass", "a brown dog running on a lawn"]])
        >>> 0.0 <= r.score <= 1.0
        True
    """

    name = "nneval-v2"
    outputs = ("nneval-v2",)
    parallel_safe = False

    def __init__(
        self,
        *,
        model: ScorerModel | str | Path | None = None,
        tokenizer: str | Tokenizer = "ptb",
        feature_options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        from capeval.metrics.learned.features_v2 import FEATURES, FeatureSetV2

        super().__init__(tokenizer=tokenizer)
        self.model = model if isinstance(model, ScorerModel) else load_model_v2(model)
        if tuple(self.model.features) != FEATURES:
            raise ValueError(f"model {self.model.digest} has features {self.model.features}, expected {FEATURES}")
        self.feature_set = FeatureSetV2(tokenizer=self.tokenizer, options=feature_options)
        self._checked = False

    def prepare(self, references: Sequence[Sequence[str]]) -> dict[str, Any]:
        """The feature metrics' corpus-level reference data (a logged warning for a small corpus)."""
        from capeval.metrics.learned.features_v2 import BACKGROUND_KEY

        prepared = self.feature_set.prepare(references)
        n_sets = prepared[BACKGROUND_KEY].n_sets
        if 0 < n_sets < SMALL_CORPUS:
            log.warning(
                "nneval-v2: the corpus has %d image(s) (distinct reference sets); part of its features rank "
                "each caption's references among the corpus' other images, and with fewer than %d images "
                "its scores are less reliable: score a whole system output at once "
                "(docs/metrics/nneval-v2.md, Limitations)",
                n_sets,
                SMALL_CORPUS,
            )
        return prepared

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Score of each tokenized item; a candidate with no tokens scores 0 (the lowest score).

        No training caption is empty, so the network has never seen one: its features (no words,
        length 0) lie far outside the training data, where the network's extrapolation is not a
        judgment.
        """
        self._check_feature_config()
        scores = self.model.predict(self.feature_set.compute(candidates, references, prepared))
        empty = np.array([not c.split() for c in candidates], dtype=bool)
        return np.where(empty, 0.0, scores)

    def _check_feature_config(self) -> None:
        if self._checked:
            return
        self._checked = True
        trained = self.model.meta.get("feature_config")
        warn_feature_config("nneval-v2", self.model.digest, trained, self.feature_set.fingerprint())

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """Model id (name and parameter digest), training seed and feature configuration."""
        m = self.model
        return model_signature_fields(
            m.meta, "nneval-v2", m.digest, m.seed, len(m.features), self.feature_set.fingerprint()
        )
