"""Pieces shared by the learned metrics: feature metrics from the registry and model files.

* :class:`RegistryFeatures`: the classic metrics behind a learned metric's features, built
  lazily from the registry, with a configuration fingerprint and reuse of results computed
  earlier in the same run;
* :func:`model_digest`, :func:`save_model_npz`, :func:`load_model_npz`,
  :func:`checked_features`: a model's parameter digest, its ``.npz`` file and the checks of
  the feature matrix it is given;
* :func:`warn_feature_config`, :func:`model_signature_fields`: the warning when the feature
  metrics differ from those a model was trained with, and a learned metric's signature fields.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from capeval.metrics.base import CorpusResult, FloatArray, Metric
from capeval.tokenizers.base import Tokenizer

log = logging.getLogger("capeval")

#: Constructor options every learned metric's feature metrics start from (options given by the
#: caller go on top): SPICE on the exact Stanford CoreNLP 3.6.0 pipeline, the features the shipped
#: models were trained on, whatever parser ``get_metric("spice")`` defaults to.
FEATURE_DEFAULTS: Mapping[str, Mapping[str, Any]] = {"spice": {"parser": "corenlp"}}


class RegistryFeatures:
    """The metrics behind a learned metric's features, built lazily with default options.

    Args:
        features: Feature names, in model column order.
        sources: Metric output name -> registry key of the metric computing it (features not
            named here are not metric outputs).
        tokenizer: Tokenizer of the feature metrics (they receive tokenized text).
        options: Extra constructor options per registry key (e.g. ``{"spice": {"cache": False}}``),
            on top of :data:`FEATURE_DEFAULTS`.
    """

    def __init__(
        self,
        features: Sequence[str],
        sources: Mapping[str, str],
        *,
        tokenizer: str | Tokenizer,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.features = tuple(features)
        self.keys = tuple(dict.fromkeys(sources[f] for f in self.features if f in sources))
        self._sources = sources
        self._tokenizer = tokenizer
        given = dict(options or {})
        self._options = {
            key: {**FEATURE_DEFAULTS.get(key, {}), **given.get(key, {})} for key in {*FEATURE_DEFAULTS, *given}
        }
        self._metrics: dict[str, Metric] = {}

    def metric(self, key: str) -> Metric:
        """The feature metric with registry key ``key`` (built on first use)."""
        if key not in self._metrics:
            from capeval.registry import get_metric

            self._metrics[key] = get_metric(key, tokenizer=self._tokenizer, **self._options.get(key, {}))
        return self._metrics[key]

    def _fingerprint(self, extra: Iterable[str] = ()) -> str:
        """Short hash of the feature metrics' signature field values (and ``extra`` parts)."""
        parts = [f"{k}:{[value for _, value in self.metric(k).signature_fields(None)]}" for k in self.keys]
        parts.extend(extra)
        return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:8]

    def _metric_prepare(self, references: Sequence[Sequence[str]]) -> dict[str, Any]:
        return {k: self.metric(k).prepare(references) for k in self.keys}

    def compute(
        self,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        prepared: Mapping[str, Any] | None = None,
        *,
        results: Mapping[str, CorpusResult] | None = None,
    ) -> FloatArray:
        """``(n, len(features))`` feature matrix of tokenized items.

        Args:
            candidates: Tokenized candidates.
            references: Tokenized references.
            prepared: From ``prepare`` on the whole corpus (computed here if omitted).
            results: Results already computed on the same items (registry key -> result);
                used when they come from an identically configured metric.
        """
        columns = self._metric_outputs(candidates, references, prepared, results)
        return self._matrix(columns, candidates, references, prepared)

    def _matrix(
        self,
        columns: Mapping[str, FloatArray],
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        prepared: Mapping[str, Any] | None,
    ) -> FloatArray:
        """The feature matrix from the metric features' columns (default: those columns in order)."""
        if not candidates:
            return np.zeros((0, len(self.features)))
        return np.column_stack([columns[f] for f in self.features])

    def _metric_outputs(self, candidates: Any, references: Any, prepared: Any, results: Any) -> dict[str, FloatArray]:
        """Per-item column of each metric feature (feature name -> values); arguments as in :meth:`compute`."""
        columns: dict[str, FloatArray] = {}
        for key in self.keys:
            metric = self.metric(key)
            reused = reusable_result(results, key, metric, references, len(candidates))
            if reused is not None:
                table = reused.item_table
            else:
                data = prepared[key] if prepared is not None else metric.prepare(references)
                stats = np.asarray(metric.item_stats(candidates, references, data), dtype=np.float64)
                table = metric.item_outputs(stats.reshape(len(candidates), -1))
            for name in self.features:
                if self._sources.get(name) == key:
                    columns[name] = np.asarray(table[name], dtype=np.float64)
        return columns


def reusable_result(
    results: Mapping[str, CorpusResult] | None,
    key: str,
    metric: Metric,
    references: Sequence[Sequence[str]],
    n_items: int,
) -> CorpusResult | None:
    """A given result for ``key`` if it has the expected size and the same signature."""
    if not results or key not in results:
        return None
    result = results[key]
    if result.n_items != n_items:
        return None
    expected = metric.signature(None, references)
    return result if result.signature.fields == expected.fields else None


def model_digest(features: Sequence[str], arrays: Iterable[FloatArray]) -> str:
    """First 12 hex digits of the SHA-256 of the feature names and the model's arrays."""
    h = hashlib.sha256("|".join(features).encode("utf-8"))
    for array in arrays:
        h.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return h.hexdigest()[:12]


def save_model_npz(
    path: str | Path,
    features: Sequence[str],
    params: Sequence[FloatArray],
    meta: Mapping[str, Any],
    arrays: Mapping[str, FloatArray],
) -> None:
    """Write a model to a compressed ``.npz``: ``param<k>``, named arrays, features, JSON meta."""
    out: dict[str, Any] = {f"param{k}": p for k, p in enumerate(params)}
    out.update(
        features=np.array(features),
        **arrays,
        meta=np.array(json.dumps(dict(meta), sort_keys=True)),
    )
    np.savez_compressed(path, **out)


def load_model_npz(
    path: str | Path, names: Sequence[str], kind: str, n_params: int | None = None, optional: Sequence[str] = ()
) -> tuple[tuple[str, ...], dict[str, FloatArray], list[FloatArray], dict[str, Any]]:
    """Read a file written by :func:`save_model_npz`: features, named arrays, params, meta.

    Args:
        path: The ``.npz`` file.
        names: Names of the arrays besides the parameters.
        kind: What the file should hold, for the error message (e.g. ``"an NNEval model"``).
        n_params: Number of parameter arrays (default: all ``param<k>`` in the file).
        optional: Names of arrays read when the file has them.

    Raises:
        ValueError: if the file is missing or malformed.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            if n_params is None:
                n_params = sum(1 for k in data.files if k.startswith("param"))
            params = [np.asarray(data[f"param{k}"], dtype=np.float64) for k in range(n_params)]
            features = tuple(str(f) for f in data["features"])
            arrays = {name: np.asarray(data[name], dtype=np.float64) for name in names}
            arrays.update({name: np.asarray(data[name], dtype=np.float64) for name in optional if name in data.files})
            meta = json.loads(str(data["meta"]))
    except (OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{path}: not {kind} ({exc})") from exc
    return features, arrays, params, meta


def checked_features(features: FloatArray, names: Sequence[str], *, show_row: bool = False) -> FloatArray:
    """``features`` as a float matrix with one column per name, every value finite.

    Raises:
        ValueError: on a wrong shape or a non-finite value (naming the item and the feature,
            and with ``show_row`` the item's values).
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(names):
        raise ValueError(f"expected features of shape (n, {len(names)}), got {x.shape}")
    bad = np.flatnonzero(~np.isfinite(x).all(axis=1))
    if bad.size:
        row = int(bad[0])
        col = names[int(np.flatnonzero(~np.isfinite(x[row]))[0])]
        values = f" ({x[row].tolist()})" if show_row else ""
        raise ValueError(f"item {row}: feature {col!r} is not finite{values}")
    return x


def warn_feature_config(label: str, digest: str, trained: str | None, current: str, why: str = "") -> None:
    """Warn if a model was trained with another feature configuration than ``current``."""
    if trained and trained != current:
        log.warning(
            "%s model %s was trained with feature configuration %s, the feature metrics here are %s%s; "
            "scores may differ from the model card's",
            label,
            digest,
            trained,
            current,
            why,
        )


def model_signature_fields(
    meta: Mapping[str, Any], default_name: str, digest: str, seed: int, n_features: int, fingerprint: str
) -> tuple[tuple[str, str], ...]:
    """Model id (name and parameter digest), training seed and feature configuration."""
    name = str(meta.get("name", default_name))
    return (
        ("model", f"{name}-{digest}"),
        ("seed", str(seed)),
        ("feat", f"{n_features}-{fingerprint}"),
    )
