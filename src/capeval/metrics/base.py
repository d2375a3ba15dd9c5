"""The metric interface: per-item sufficient statistics plus a corpus reduction.

A metric turns each item (one candidate caption and its references) into a row of
sufficient statistics. The corpus score is a pure function of the column sums of the
``(n_items, n_stats)`` statistics matrix, so batching, merging shards, bootstrap
resampling and per-item drill-down all work the same way for every metric.

Metrics that average per-item scores (ROUGE-L, CIDEr-D) use the row ``[item_score, 1]``;
metrics whose corpus number pools counts (BLEU, METEOR) keep their own counts.
"""

from __future__ import annotations

import abc
import os
import sys
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, ClassVar

import numpy as np

from capeval._version import __version__
from capeval.signature import Signature
from capeval.tokenizers.base import Tokenizer, get_tokenizer
from capeval.types import FloatArray

__all__ = [
    "CorpusResult",
    "EmptyCandidateWarning",
    "FloatArray",
    "MeanMetric",
    "Metric",
    "check_inputs",
    "normalize_inputs",
    "nrefs_label",
    "warn_caller",
]

#: The installed package's directory: warnings point at the first frame outside it.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_caller(warning: Warning) -> None:
    """Issue ``warning`` at the line of the code that called into capeval (the first frame outside
    the package), however deep inside capeval it is raised."""
    frame = sys._getframe(1)
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(warning, stacklevel=level)


@dataclass(frozen=True)
class CorpusResult:
    """The value a metric returns: corpus score, per-item scores, statistics and signature.

    Attributes:
        metric: Registry key of the metric (``"cider-d"``).
        score: The primary corpus score.
        item_scores: Primary per-item scores, in input order.
        stats: ``(n_items, n_stats)`` sufficient statistics; column sums give the corpus score.
        stat_names: Column labels of ``stats``.
        signature: Everything that can change the number.
        scores: Every named corpus output (BLEU: ``bleu-1`` .. ``bleu-4``), primary included.
        item_table: Every named per-item output, same keys as ``scores``.
        ids: Item identifiers (image ids) when known, in input order.
        details: Optional per-item extra information (e.g. SPICE tuples), input order.
    """

    metric: str
    score: float
    item_scores: FloatArray
    stats: FloatArray
    stat_names: tuple[str, ...]
    signature: Signature
    scores: Mapping[str, float] = field(default_factory=dict)
    item_table: Mapping[str, FloatArray] = field(default_factory=dict)
    ids: tuple[Hashable, ...] | None = None
    details: tuple[Any, ...] | None = None

    @property
    def n_items(self) -> int:
        """Number of items scored."""
        return int(self.stats.shape[0])


def check_inputs(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    ids: Sequence[Hashable] | None = None,
) -> None:
    """Validate the canonical input shape; raise ``ValueError`` naming the offending item.

    ``candidates[i]`` is one caption; ``references[i]`` is the non-empty list of reference
    captions of the same item (item-major layout, as caption datasets store them).
    """
    if isinstance(candidates, str) or isinstance(references, str):
        raise ValueError("candidates and references must be sequences of captions, not a single string")
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} reference lists; they must align")
    if ids is not None and len(ids) != len(candidates):
        raise ValueError(f"{len(ids)} ids for {len(candidates)} candidates")

    # Fast path: exact types checked in C; anything else is checked item by item below.
    if (
        set(map(type, candidates)) <= {str}
        and set(map(type, references)) <= {list, tuple}
        and all(map(len, references))
        and set(map(type, chain.from_iterable(references))) <= {str}
    ):
        _warn_empty_candidates(candidates, ids)
        return

    def where(i: int) -> str:
        return f"item {i}" + (f" (id {ids[i]!r})" if ids is not None else "")

    for i, cand in enumerate(candidates):
        if not isinstance(cand, str):
            raise ValueError(f"{where(i)}: candidate must be a string, got {type(cand).__name__}")
    for i, refs in enumerate(references):
        if isinstance(refs, str) or not isinstance(refs, Sequence):
            raise ValueError(f"{where(i)}: references must be a list of strings, got {type(refs).__name__}")
        if len(refs) == 0:
            raise ValueError(f"{where(i)}: no reference captions")
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise ValueError(f"{where(i)}: reference {j} must be a string, got {type(ref).__name__}")
    _warn_empty_candidates(candidates, ids)


class EmptyCandidateWarning(UserWarning):
    """Some candidate captions are empty; they are scored as the official code scores them (0)."""


def _warn_empty_candidates(candidates: Sequence[str], ids: Sequence[Hashable] | None) -> None:
    if all(map(str.strip, candidates)):
        return
    empty = [i for i, c in enumerate(candidates) if not c.strip()]
    names = [repr(ids[i]) if ids is not None else f"item {i}" for i in empty[:5]]
    where = ("image " if ids is not None else "") + ", ".join(names) + (", ..." if len(empty) > 5 else "")
    import warnings

    warnings.warn(
        EmptyCandidateWarning(
            f"{len(empty)} empty candidate caption(s) ({where}): scored as the official evaluation scores them (0)"
        ),
        stacklevel=4,
    )


def normalize_inputs(
    candidates: Sequence[str] | Mapping[Hashable, Any],
    references: Sequence[Sequence[str]] | Mapping[Hashable, Sequence[str]],
    ids: Sequence[Hashable] | None = None,
) -> tuple[Sequence[str], Sequence[Sequence[str]], Sequence[Hashable] | None]:
    """Accept ``{image_id: caption}`` / ``{image_id: [caption]}`` and ``{image_id: [references]}`` dicts.

    Dicts are aligned by image id (in the candidates' order, ids returned); lists pass through.

    Raises:
        ValueError: for a dict on one side only, ids without references, or a candidate list
            that does not hold exactly one caption.
    """
    if not isinstance(candidates, Mapping) and not isinstance(references, Mapping):
        return candidates, references, ids
    if not (isinstance(candidates, Mapping) and isinstance(references, Mapping)):
        raise ValueError("give candidates and references both as lists or both as {image_id: ...} dicts")
    if ids is not None:
        raise ValueError("ids come from the dict keys; do not pass ids= with dict inputs")
    missing = [k for k in candidates if k not in references]
    if missing:
        raise ValueError(f"{len(missing)} image id(s) have a candidate but no references: {missing[:5]!r}")
    cands: list[Any] = []
    for key, value in candidates.items():
        if isinstance(value, (list, tuple)):
            if len(value) != 1:
                raise ValueError(f"image {key!r}: expected one candidate caption, got {len(value)}")
            value = value[0]
        cands.append(value)
    keys = list(candidates)
    return cands, [references[k] for k in keys], keys


def nrefs_label(references: Sequence[Sequence[str]]) -> str:
    """The ``nrefs`` signature value: ``"5"`` or ``"5-7"`` when counts vary."""
    counts = set(map(len, references))  # a few distinct counts: min and max of the set
    if not counts:
        return "0"
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else f"{lo}-{hi}"


class Metric(abc.ABC):
    """A caption metric whose corpus score is a function of summed per-item statistics.

    A metric declares what it computes and nothing about how it is run:

    * :meth:`prepare`: corpus-level reference data, computed once (CIDEr-D document frequencies);
    * :meth:`item_stats`: a batch of tokenized items to a statistics matrix;
    * :meth:`item_details` (optional): per-item extra information (SPICE's tuples);
    * :meth:`compute`: column sums to named scores;
    * :attr:`requires` and :meth:`item_stats_from` (only for metrics built from others, SPIDEr and
      NNEval): the metrics it is built from, and its statistics from their per-item outputs.

    :meth:`score`, :meth:`score_tokenized` and :meth:`result_from_stats` are the template
    methods users call; no metric overrides them. They hand the work to the executor in
    :mod:`capeval.engines`, which alone decides about processes, shards and clusters.
    """

    #: Registry key, e.g. ``"cider-d"``.
    name: ClassVar[str]
    #: Names of the outputs; the first is the primary score (a class attribute, or set in
    #: ``__init__`` when it depends on the configuration, as BLEU's ``n``).
    outputs: tuple[str, ...]
    #: Output name -> key used by the official COCO evaluation (``"CIDEr"``), where one exists.
    official_names: Mapping[str, str] = {}
    higher_is_better: ClassVar[bool] = True
    #: Items are independent given ``prepare()``'s result, so shards may be scored elsewhere
    #: (worker processes, a cluster). ``False`` keeps the metric's items in one place.
    parallel_safe: bool = True
    #: Fewer items than this are always scored in one process (forking costs more than it saves).
    parallel_min_items: ClassVar[int] = 8192

    def __init__(self, *, tokenizer: str | Tokenizer = "ptb") -> None:
        self.tokenizer: Tokenizer = get_tokenizer(tokenizer)

    # --- what subclasses provide -------------------------------------------------------
    @property
    @abc.abstractmethod
    def stat_names(self) -> tuple[str, ...]:
        """Column labels of the statistics matrix."""

    @property
    def requires(self) -> Mapping[str, Metric]:
        """The metrics this one is built from, by registry key (none for most metrics).

        The executor scores each of them once per run (sharing the result with an identically
        configured metric scored in the same run) and hands their per-item outputs to
        :meth:`item_stats_from`.
        """
        return {}

    def prefetch(self) -> None:
        """Start one-time set-up that can proceed in the background (a new installation's METEOR
        converts its tables), so that it overlaps tokenizing and the other metrics of a run.

        Called by the executor, for every metric of a run and those they require, before it
        scores anything; a no-op by default. Scoring never depends on it: the metric completes
        (or waits for) its set-up when it first needs it.
        """
        return None

    def prepare(self, references: Sequence[Sequence[str]]) -> Any:
        """Corpus-level reference data computed once (CIDEr-D document frequencies).

        Receives tokenized references. The return value is passed to :meth:`item_stats`
        unchanged; resampling and sharding never recompute it. For a metric with
        :attr:`requires` it is the required metrics' data, by key.
        """
        if self.requires:
            return {key: metric.prepare(references) for key, metric in self.requires.items()}
        return None

    @abc.abstractmethod
    def item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Statistics rows for a batch of tokenized items, shape ``(len(candidates), n_stats)``.

        A metric with :attr:`requires` implements it as
        ``self.item_stats_from(self.required_outputs(candidates, references, prepared))``.
        """

    def item_details(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> Sequence[Any] | None:
        """Optional per-item extra information for the same batch (``CorpusResult.details``).

        ``None`` (the default) when the metric has none. Each entry must be picklable and
        must not depend on which other items are in the batch.
        """
        return None

    def item_stats_from(self, required: Mapping[str, Mapping[str, FloatArray]]) -> FloatArray:
        """Statistics rows from the per-item outputs of :attr:`requires` (metrics built from others).

        Args:
            required: Registry key -> that metric's per-item outputs (``item_table``) on the
                items being scored.
        """
        raise NotImplementedError(f"{type(self).__name__} requires no other metric")

    @abc.abstractmethod
    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Named corpus scores from the column sums of the statistics matrix."""

    def item_outputs(self, stats: FloatArray) -> dict[str, FloatArray]:
        """Named per-item scores; by default :meth:`compute` applied to each row."""
        table = {name: np.empty(stats.shape[0]) for name in self.outputs}
        for i, row in enumerate(stats):
            for name, value in self.compute(row).items():
                table[name][i] = value
        return table

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """Configuration fields for the signature (besides tokenizer and nrefs)."""
        return ()

    # --- derived -----------------------------------------------------------------------
    @property
    def primary(self) -> str:
        """Name of the primary output."""
        return self.outputs[0]

    def corpus_score(self, totals: FloatArray) -> float:
        """Primary corpus score from column sums (what resampling calls)."""
        return self.compute(totals)[self.primary]

    def signature(self, prepared: Any = None, references: Sequence[Sequence[str]] | None = None) -> Signature:
        """The reproducibility signature for this configuration."""
        fields = [*self.signature_fields(prepared), ("tok", self.tokenizer.name)]
        if references is not None:
            fields.append(("nrefs", nrefs_label(references)))
        return Signature(self.name, tuple(fields), __version__)

    def required_outputs(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> dict[str, dict[str, FloatArray]]:
        """Per-item outputs of each required metric on a batch (for :meth:`item_stats` of a built metric).

        ``prepared`` is this metric's :meth:`prepare` result (the required metrics' data by key),
        or ``None`` to prepare on the batch's own references.
        """
        data = prepared if prepared is not None else self.prepare(references)
        out: dict[str, dict[str, FloatArray]] = {}
        for key, metric in self.requires.items():
            stats = np.asarray(metric.item_stats(candidates, references, data[key]), dtype=np.float64)
            out[key] = metric.item_outputs(stats.reshape(len(candidates), len(metric.stat_names)))
        return out

    def tokenize(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]]
    ) -> tuple[list[str], list[list[str]]]:
        """Tokenize candidates and references as two streams, as the official evaluation does."""
        cand_tok = self.tokenizer.tokenize(candidates)
        flat = [ref for refs in references for ref in refs]
        flat_tok = self.tokenizer.tokenize(flat)
        ref_tok: list[list[str]] = []
        pos = 0
        for refs in references:
            ref_tok.append(flat_tok[pos : pos + len(refs)])
            pos += len(refs)
        return cand_tok, ref_tok

    # --- template methods (not overridden) ------------------------------------------------
    def score(
        self,
        *,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        ids: Sequence[Hashable] | None = None,
        prepared: Any = None,
        progress: bool = False,
        workers: int = 1,
        reuse: Mapping[str, CorpusResult] | None = None,
    ) -> CorpusResult:
        """Score raw captions: validate, tokenize, prepare, collect statistics, reduce.

        Args:
            candidates: One caption per item, or ``{image_id: caption}`` (also ``{image_id: [caption]}``).
            references: ``references[i]`` is the list of reference captions of item ``i``, or
                ``{image_id: [captions]}`` when ``candidates`` is a dict (aligned by image id).
            ids: Optional item identifiers carried into the result.
            prepared: Reuse corpus-level reference data from an earlier :meth:`prepare`
                (tokenized with the same tokenizer); computed from ``references`` if omitted.
            progress: Show a progress bar on stderr.
            workers: Worker processes for large corpora (forked; results are identical).
            reuse: Results already computed on the same items (registry key -> result, e.g.
                ``Evaluation.results``); a required metric whose signature matches is not
                scored again.

        Raises:
            ValueError: on misaligned or malformed input, naming the item.
        """
        candidates, references, ids = normalize_inputs(candidates, references, ids)
        check_inputs(candidates, references, ids)
        cand_tok, ref_tok = self.tokenize(candidates, references)
        with warnings.catch_warnings():  # already reported on the raw captions
            warnings.simplefilter("ignore", EmptyCandidateWarning)
            return self.score_tokenized(
                candidates=cand_tok,
                references=ref_tok,
                ids=ids,
                prepared=prepared,
                progress=progress,
                workers=workers,
                reuse=reuse,
            )

    def score_tokenized(
        self,
        *,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        ids: Sequence[Hashable] | None = None,
        prepared: Any = None,
        progress: bool = False,
        workers: int = 1,
        reuse: Mapping[str, CorpusResult] | None = None,
        features: Mapping[str, CorpusResult] | None = None,
    ) -> CorpusResult:
        """Score captions that are already tokenized (space-joined tokens).

        Arguments as for :meth:`score`; ``features`` is the former name of ``reuse`` (NNEval).
        """
        candidates, references, ids = normalize_inputs(candidates, references, ids)
        check_inputs(candidates, references, ids)
        if features is not None:
            warnings.warn("features= is deprecated; use reuse=", DeprecationWarning, stacklevel=2)
            reuse = {**features, **(reuse or {})}
        # The executor lives above the metrics (it decides about processes and clusters).
        from capeval.engines.executor import score_one

        return score_one(
            self,
            candidates,
            references,
            ids=ids,
            prepared=prepared,
            progress=progress,
            workers=workers,
            reuse=reuse,
        )

    def result_from_stats(
        self,
        stats: FloatArray,
        *,
        prepared: Any = None,
        references: Sequence[Sequence[str]] | None = None,
        ids: Sequence[Hashable] | None = None,
        details: Sequence[Any] | None = None,
    ) -> CorpusResult:
        """Build a :class:`CorpusResult` from a statistics matrix (e.g. merged shards)."""
        stats = np.asarray(stats, dtype=np.float64).reshape(-1, len(self.stat_names))
        scores = self.compute(stats.sum(axis=0))
        table = self.item_outputs(stats)
        return CorpusResult(
            metric=self.name,
            score=scores[self.primary],
            item_scores=table[self.primary],
            stats=stats,
            stat_names=self.stat_names,
            signature=self.signature(prepared, references),
            scores=scores,
            item_table=table,
            ids=tuple(ids) if ids is not None else None,
            details=tuple(details) if details is not None else None,
        )


class MeanMetric(Metric):
    """A metric whose corpus score is the mean of per-item scores: row ``[item_score, 1]``.

    Subclasses implement :meth:`item_values`, which returns the per-item scores.
    """

    @property
    def stat_names(self) -> tuple[str, ...]:
        """``(<primary>_sum, count)``."""
        return (f"{self.primary}_sum", "count")

    @abc.abstractmethod
    def item_values(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Per-item scores for a batch of tokenized items."""

    def item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Rows ``[item_score, 1]``."""
        values = np.asarray(self.item_values(candidates, references, prepared), dtype=np.float64)
        return np.column_stack([values, np.ones_like(values)])

    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Mean of item scores (0.0 for an empty corpus)."""
        count = float(totals[1])
        return {self.primary: float(totals[0]) / count if count else 0.0}

    def item_outputs(self, stats: FloatArray) -> dict[str, FloatArray]:
        """The item scores themselves."""
        return {self.primary: stats[:, 0].copy()}
