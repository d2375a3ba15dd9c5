"""NNEval: a learned caption metric over classic metric scores (Sharif et al. 2018).

NNEval ("NNEval: Neural network based evaluation metric for image captioning", ECCV 2018)
feeds the scores of BLEU-1..4, METEOR, CIDEr, SPICE and Word Mover's similarity into a small
feed-forward network trained to tell human captions from machine captions; the metric is the
probability that a caption is human. The original needs Python 2.7, TensorFlow 1.5 and
precomputed METEOR/SPICE files. capeval rebuilds it from its own exact components:

* features (:data:`FEATURES`): capeval's BLEU-1..4, METEOR 1.5, CIDEr-D (the COCO
  evaluation's "CIDEr"), SPICE and :class:`~capeval.metrics.learned.wmd.WMDSimilarity`, each
  computed over the corpus being scored (CIDEr-D's document frequencies come from its
  references, as in the COCO evaluation);
* min-max normalisation of each feature to [-1, 1] with the ranges of the training data,
  stored in the model (values outside the training range are clipped);
* the network of :mod:`capeval.metrics.learned.network` (2 x 72 ReLU, softmax over
  {machine, human}); the item score is P(human), the corpus score its mean.

The default model ships with capeval (``capeval/data/learned/nneval-default.npz``); its
data, figures and limits are in ``docs/metrics/nneval.md``. ``capeval learned train``
rebuilds it.

The feature metrics are NNEval's ``requires``: the executor scores each once per run, so
NNEval next to the COCO metrics in one evaluation reuses their results, and
``score_tokenized(reuse=...)`` takes results computed earlier (metric key ->
:class:`~capeval.metrics.base.CorpusResult`, e.g. ``Evaluation.results``); a result is used
only when its signature matches the feature metric's.

Statistics row per item: ``[item_score, 1]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from capeval.metrics.base import CorpusResult, FloatArray, MeanMetric, Metric
from capeval.metrics.learned._common import (
    RegistryFeatures,
    checked_features,
    load_model_npz,
    model_digest,
    model_signature_fields,
    save_model_npz,
    warn_feature_config,
)
from capeval.metrics.learned.network import Params, predict_proba
from capeval.tokenizers.base import Tokenizer

__all__ = [
    "DEFAULT_MODEL",
    "FEATURES",
    "FeatureSet",
    "NNEval",
    "NNEvalModel",
    "load_model",
]


#: NNEval's features (Sharif et al. 2018, Section 3.1), as capeval output names.
FEATURES: tuple[str, ...] = ("bleu-1", "bleu-2", "bleu-3", "bleu-4", "meteor", "cider-d", "spice", "wmd")
#: Output name -> registry key of the metric that computes it.
FEATURE_SOURCES: Mapping[str, str] = {
    "bleu-1": "bleu",
    "bleu-2": "bleu",
    "bleu-3": "bleu",
    "bleu-4": "bleu",
    "meteor": "meteor",
    "cider-d": "cider-d",
    "spice": "spice",
    "wmd": "wmd",
}
#: File name of the shipped model inside ``capeval/data/learned``.
DEFAULT_MODEL = "nneval-default.npz"
#: Class index of "human" in the network's softmax (0 = machine).
HUMAN_CLASS = 1


class FeatureSet(RegistryFeatures):
    """The metrics behind NNEval's features, built lazily with default options.

    Args:
        features: Output names (subset of :data:`FEATURE_SOURCES`), in model column order.
        tokenizer: Tokenizer of the feature metrics (they receive tokenized text).
        options: Extra constructor options per registry key (e.g. ``{"spice": {"cache": False}}``).

    Raises:
        ValueError: on an unknown feature name.
    """

    def __init__(
        self,
        features: Sequence[str] = FEATURES,
        *,
        tokenizer: str | Tokenizer = "ptb",
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        unknown = [f for f in features if f not in FEATURE_SOURCES]
        if unknown:
            raise ValueError(f"unknown NNEval feature {unknown[0]!r}; choose from {', '.join(FEATURE_SOURCES)}")
        super().__init__(features, FEATURE_SOURCES, tokenizer=tokenizer, options=options)

    def fingerprint(self) -> str:
        """Short hash of every feature metric's configuration (the values of its signature fields).

        Field values only, so renaming a signature label does not change it; any change of a
        value (a parser version, an option) does.
        """
        return self._fingerprint()

    def prepare(self, references: Sequence[Sequence[str]]) -> dict[str, Any]:
        """Each feature metric's corpus-level reference data."""
        return self._metric_prepare(references)


@dataclass(frozen=True, eq=False)
class NNEvalModel:
    """A trained NNEval network with its normalisation ranges and provenance.

    Attributes:
        features: Feature (output) names, in input column order.
        lower: Per-feature minimum on the training data.
        upper: Per-feature maximum on the training data.
        params: Network parameters ``[W1, b1, W2, b2, W3, b3]``.
        meta: Provenance: seed, hyper-parameters, training data, validation figures.
    """

    features: tuple[str, ...]
    lower: FloatArray
    upper: FloatArray
    params: Params
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """First 12 hex digits of the SHA-256 of features, ranges and parameters."""
        return model_digest(self.features, (self.lower, self.upper, *self.params))

    @property
    def seed(self) -> int:
        """The training seed (``-1`` if not recorded)."""
        return int(self.meta.get("seed", -1))

    def normalise(self, features: FloatArray) -> FloatArray:
        """Min-max scale each column to [-1, 1] with the training ranges (clipped)."""
        span = np.where(self.upper > self.lower, self.upper - self.lower, 1.0)
        scaled = 2.0 * (np.asarray(features, dtype=np.float64) - self.lower) / span - 1.0
        return np.clip(scaled, -1.0, 1.0)

    def predict(self, features: FloatArray) -> FloatArray:
        """P(human) of each row of raw (unnormalised) features.

        Raises:
            ValueError: on a wrong number of columns or a non-finite feature (naming the row).
        """
        x = checked_features(features, self.features, show_row=True)
        return predict_proba(self.params, self.normalise(x))[:, HUMAN_CLASS]

    def save(self, path: str | Path) -> None:
        """Write the model to a compressed ``.npz`` (arrays plus JSON provenance)."""
        save_model_npz(path, self.features, self.params, self.meta, {"lower": self.lower, "upper": self.upper})

    @classmethod
    def load(cls, path: str | Path) -> NNEvalModel:
        """Read a model written by :meth:`save`.

        Raises:
            ValueError: if the file is missing or malformed.
        """
        features, arrays, params, meta = load_model_npz(path, ("lower", "upper"), "an NNEval model")
        model = cls(features=features, lower=arrays["lower"], upper=arrays["upper"], params=params, meta=meta)
        if not params or params[0].shape[0] != len(model.features) or params[-1].shape != (2,):
            raise ValueError(f"{path}: network shape does not match {len(model.features)} features and 2 classes")
        return model


def load_model(path: str | Path | None = None) -> NNEvalModel:
    """Load an NNEval model; default: the one shipped with capeval."""
    if path is None:
        from capeval.data import data_path

        path = data_path("learned", DEFAULT_MODEL)
    return NNEvalModel.load(path)


class NNEval(MeanMetric):
    """NNEval: P(human) of a caption from a network over classic metric scores.

    Args:
        model: An :class:`NNEvalModel`, a path to one, or ``None`` for the shipped default.
        tokenizer: Tokenizer name or instance (default ``"ptb"``).
        feature_options: Extra constructor options of the feature metrics per registry key
            (must not change their scores, e.g. ``{"spice": {"cache": False}}``).

    Raises:
        ValueError: if the model file is missing or malformed.

    Example:
        >>> nneval = NNEval(tokenizer="ws")
        >>> r = nneval.score(candidates=["a dog runs on the grass"],
        ...                  references=[["a dog runs on the grass", "a brown dog running on a lawn"]])
        >>> 0.0 <= r.score <= 1.0
        True
    """

    name = "nneval"
    outputs = ("nneval",)

    def __init__(
        self,
        *,
        model: NNEvalModel | str | Path | None = None,
        tokenizer: str | Tokenizer = "ptb",
        feature_options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__(tokenizer=tokenizer)
        self.model = model if isinstance(model, NNEvalModel) else load_model(model)
        self.feature_set = FeatureSet(self.model.features, tokenizer=self.tokenizer, options=feature_options)
        self._checked = False

    @property
    def requires(self) -> Mapping[str, Metric]:
        """The feature metrics, by registry key (``bleu``, ``meteor``, ``cider-d``, ``spice``, ``wmd``)."""
        return {key: self.feature_set.metric(key) for key in self.feature_set.keys}

    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """P(human) of each tokenized item."""
        return self._predict(self.required_outputs(candidates, references, prepared))

    def item_stats_from(self, required: Mapping[str, Mapping[str, FloatArray]]) -> FloatArray:
        """Rows ``[P(human), 1]`` from the feature metrics' per-item outputs."""
        values = self._predict(required)
        return np.column_stack([values, np.ones_like(values)])

    def _predict(self, required: Mapping[str, Mapping[str, FloatArray]]) -> FloatArray:
        self._check_feature_config()
        columns = [np.asarray(required[FEATURE_SOURCES[f]][f], dtype=np.float64) for f in self.model.features]
        matrix = np.column_stack(columns) if columns and len(columns[0]) else np.zeros((0, len(columns)))
        return self.model.predict(matrix)

    def features(
        self,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        *,
        results: Mapping[str, CorpusResult] | None = None,
    ) -> FloatArray:
        """Raw feature matrix of a tokenized corpus (``results`` reused where they match)."""
        return self.feature_set.compute(candidates, references, results=results)

    def _check_feature_config(self) -> None:
        """Warn once if the feature metrics are configured unlike those the model was trained with."""
        if self._checked:
            return
        self._checked = True
        trained = self.model.meta.get("data", {}).get("feature_config")
        current = self.feature_set.fingerprint()
        warn_feature_config("NNEval", self.model.digest, trained, current, " (a feature metric changed)")

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """Model id (name and parameter digest), training seed and feature configuration."""
        m = self.model
        return model_signature_fields(
            m.meta, "nneval", m.digest, m.seed, len(m.features), self.feature_set.fingerprint()
        )
