"""Named meta-evaluation protocols: the published tables as code, with their published values.

Each :class:`Protocol` is the exact recipe of one published table (which items, which
references, which rows, which coefficient, tie rule, reference draws and seeds), reading the
files as their authors distribute them (:mod:`capeval.meta_eval.protocols.data`), and the
values the paper printed (:mod:`capeval.meta_eval.protocols.published`). Metrics are passed in
as a :class:`Scorer`, so this package never runs an engine itself.

Example:
    >>> sorted(PROTOCOLS)[:3]
    ['composite', 'flickr8k-cf', 'flickr8k-expert']
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol as TypingProtocol

import numpy as np

from capeval.meta_eval.correlation import FloatArray, correlate
from capeval.meta_eval.datasets import HumanJudgments, load_thumb
from capeval.meta_eval.pairwise import pairwise_accuracy
from capeval.meta_eval.protocols import data
from capeval.meta_eval.protocols.published import NO_PUBLISHED_VALUES, PUBLISHED, PublishedTable

__all__ = [
    "PROTOCOLS",
    "Protocol",
    "Reproduction",
    "Row",
    "Scorer",
    "get_protocol",
    "reproduce",
]

#: Metrics of the published tables (``capeval reproduce --metrics`` adds ``spice`` where installed).
CLASSIC_METRICS = ("bleu-1", "bleu-4", "meteor", "rouge-l", "cider-d")
CATEGORIES = ("HC", "HI", "HM", "MM")
#: THumB's system of human-written captions (left out of "system pearson (models)").
THUMB_HUMAN = "Human"


class Scorer(TypingProtocol):
    """What a protocol needs from the metrics: item scores and corpus scores per metric output."""

    def items(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> dict[str, FloatArray]:
        """Per-item score of each metric output, aligned with ``candidates``."""
        ...

    def corpus(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> dict[str, float]:
        """Corpus score of each metric output."""
        ...


@dataclass(frozen=True)
class Row:
    """One cell of a reproduced table: ours against the published value.

    Attributes:
        metric: Metric output (``bleu-4``...).
        statistic: ``tau-c``, ``tau-b``, a PASCAL-50S category, ``mean``, ``1-ref``...
        ours: Our value in the paper's units.
        published: The paper's value, or ``None`` when the table has none.
        source: Citation of the published value.
        spread: ``(min, max)`` over reference draws, when the protocol draws references.
        verified: ``False`` when the published value could not be checked against a copy of
            the cited table (see :mod:`capeval.meta_eval.protocols.published`).
    """

    metric: str
    statistic: str
    ours: float
    published: float | None = None
    source: str = ""
    spread: tuple[float, float] | None = None
    verified: bool = True

    @property
    def difference(self) -> float | None:
        """``ours - published`` (``None`` without a published value)."""
        return None if self.published is None else self.ours - self.published

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields (``metric``, ``statistic``, ``ours``, ``published``, ``source``, ``verified`` ...)."""
        out: dict[str, object] = {
            "metric": self.metric,
            "statistic": self.statistic,
            "ours": self.ours,
            "published": self.published,
            "source": self.source,
            "verified": self.verified,
        }
        if self.spread is not None:
            out["spread"] = list(self.spread)
        return out


@dataclass
class Reproduction:
    """A reproduced table: rows plus what was computed over.

    Attributes:
        protocol: Protocol name.
        rows: The cells.
        notes: Item counts, reference counts, tie rules, vote source, seeds.
        seconds: Wall time (loading, metrics and statistics).
    """

    protocol: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class Options:
    """Knobs a protocol fixes by default (the published recipe); changing one is reported."""

    seed: int = 0
    draws: int = 5
    n_references: int = 5


@dataclass(frozen=True)
class Protocol:
    """A published table as code.

    Attributes:
        name: ``capeval reproduce NAME``.
        title: Paper and table.
        files: Files (distributed names) the recipe reads.
        recipe: The recipe in words (docs and ``--help``).
        run: ``(data_dir, scorer, options) -> Reproduction``.
        defaults: The published recipe's draws/references/seed.
        all_files: Every file of ``files`` is needed (``False``: any subset, e.g. COMPOSITE's three files).
    """

    name: str
    title: str
    files: tuple[str, ...]
    recipe: str
    run: Callable[[Path, Scorer, Options], Reproduction]
    defaults: Options = Options()
    all_files: bool = True


def _published(name: str, metric: str, statistic: str) -> tuple[float | None, str, bool]:
    tables: list[PublishedTable] = PUBLISHED.get(name, [])
    for table in tables:
        if (metric, statistic) in table.values:
            return table.values[(metric, statistic)], table.source, table.verified
    return None, tables[0].source if tables else "", True


def _row(protocol: str, metric: str, statistic: str, ours: float, spread: tuple[float, float] | None = None) -> Row:
    value, source, verified = _published(protocol, metric, statistic)
    return Row(metric, statistic, ours, value, source, spread, verified)


def _correlation_rows(
    protocol: str, judgments: HumanJudgments, scores: dict[str, FloatArray], methods: Sequence[tuple[str, str]]
) -> list[Row]:
    rows = []
    for metric, values in scores.items():
        for statistic, method in methods:
            r = correlate(values, judgments.ratings, method=method, level="item")
            rows.append(_row(protocol, metric, statistic, 100.0 * r.coefficient))
    return rows


def _items_note(judgments: HumanJudgments) -> str:
    counts = sorted({len(r) for r in judgments.references})
    refs = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    rows = int(np.isfinite(judgments.ratings).sum())
    return f"{len(judgments):,} items, {rows:,} rating rows, {refs} references per item"


def _correlation_protocol(
    name: str, judgments: HumanJudgments, scorer: Scorer, methods: Sequence[tuple[str, str]], note: str
) -> Reproduction:
    """Item-level correlations of every metric with ``judgments`` (one row per statistic)."""
    scores = scorer.items(judgments.candidates, judgments.references)
    rows = _correlation_rows(name, judgments, scores, methods)
    return Reproduction(name, rows, [_items_note(judgments), note])


def _run_flickr8k_expert(data_dir: Path, scorer: Scorer, options: Options) -> Reproduction:
    return _correlation_protocol(
        "flickr8k-expert",
        data.flickr8k_expert(data_dir),
        scorer,
        [("tau-c", "kendall-c"), ("tau-b", "kendall-b")],
        "candidates that are captions of their own image dropped; one row per expert rating",
    )


def _run_flickr8k_cf(data_dir: Path, scorer: Scorer, options: Options) -> Reproduction:
    return _correlation_protocol(
        "flickr8k-cf",
        data.flickr8k_cf(data_dir),
        scorer,
        [("tau-b", "kendall-b"), ("tau-c", "kendall-c")],
        "rating = fraction of 'yes'; references exclude every caption judged for the image",
    )


def _run_composite(data_dir: Path, scorer: Scorer, options: Options) -> Reproduction:
    return _correlation_protocol(
        "composite",
        data.load_composite_protocol(data_dir),
        scorer,
        [("tau-c", "kendall-c")],
        "correctness ratings (1-5)",
    )


def _run_thumb(data_dir: Path, scorer: Scorer, options: Options) -> Reproduction:
    judgments_path, references_path = data.thumb_files(data_dir)
    judgments = load_thumb(judgments_path, references_path)
    scores = scorer.items(judgments.candidates, judgments.references)
    systems = judgments.systems or ()
    labels = np.asarray(systems)
    per_system = {}
    for system in dict.fromkeys(systems):
        mask = np.flatnonzero(labels == system)
        per_system[system] = scorer.corpus(
            [judgments.candidates[i] for i in mask], [judgments.references[i] for i in mask]
        )
    rows = []
    for metric, values in scores.items():
        for statistic, method in (("caption pearson", "pearson"), ("caption tau-b", "kendall-b")):
            r = correlate(values, judgments.ratings, method=method)
            rows.append(_row("thumb", metric, statistic, 100.0 * r.coefficient))
        corpus = {s: v[metric] for s, v in per_system.items()}
        r = correlate(corpus, judgments.mean_ratings(), method="pearson", level="system", systems=systems)
        rows.append(_row("thumb", metric, "system pearson", 100.0 * r.coefficient))
        if THUMB_HUMAN in per_system and len(per_system) > 3:
            models = [i for i, s in enumerate(systems) if s != THUMB_HUMAN]
            r = correlate(
                {s: v for s, v in corpus.items() if s != THUMB_HUMAN},
                judgments.mean_ratings()[models],
                method="pearson",
                level="system",
                systems=[systems[i] for i in models],
            )
            rows.append(_row("thumb", metric, "system pearson (models)", 100.0 * r.coefficient))
    notes = [
        _items_note(judgments),
        f"caption level: human_score per caption; system level: corpus score of each of {len(per_system)} systems "
        f"against its mean human_score ('models': without the {THUMB_HUMAN!r} system)",
    ]
    return Reproduction("thumb", rows, notes)


def pascal50s_accuracies(
    pairs: data.Pascal50S,
    references: Sequence[Sequence[str]],
    scorer: Scorer,
    *,
    metric_ties: str,
    human_ties: str = "drop",
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """``metric -> {HC, HI, HM, MM, mean}`` accuracy in % for one set of references.

    Both captions of every pair are scored in one corpus (CIDEr-D's document frequencies are
    those of the drawn references). ``mean`` is the mean of the four category accuracies.
    """
    n = len(pairs)
    scores = scorer.items([*pairs.candidates_a, *pairs.candidates_b], [*references, *references])
    out = {}
    for metric, values in scores.items():
        r = pairwise_accuracy(
            values[:n],
            values[n:],
            pairs.preference,
            categories=pairs.categories,
            metric_ties=metric_ties,
            human_ties=human_ties,
            seed=seed,
        )
        by = {c: 100.0 * r.by_category[c][0] for c in CATEGORIES if c in r.by_category}
        by["mean"] = float(np.mean(list(by.values())))
        out[metric] = by
    return out


def _pascal_runner(name: str, metric_ties: str) -> Callable[[Path, Scorer, Options], Reproduction]:
    def run(data_dir: Path, scorer: Scorer, options: Options) -> Reproduction:
        pairs = data.load_pascal50s_distributed(data_dir)
        per_draw: list[dict[str, dict[str, float]]] = []
        for draw in range(options.draws):
            rng = np.random.default_rng(options.seed + draw)
            refs = pairs.draw(options.n_references, rng)
            per_draw.append(pascal50s_accuracies(pairs, refs, scorer, metric_ties=metric_ties))
        rows = []
        for metric in per_draw[0]:
            for statistic in (*CATEGORIES, "mean"):
                values = [d[metric][statistic] for d in per_draw]
                rows.append(_row(name, metric, statistic, float(np.mean(values)), (min(values), max(values))))
        seeds = f"{options.seed}..{options.seed + options.draws - 1}" if options.draws > 1 else str(options.seed)
        notes = [
            f"{len(pairs):,} pairs; {options.n_references} references drawn at random per pair from the image's "
            f"sentences other than the two candidates; {options.draws} draws (seeds {seeds}); ours = mean, "
            "spread = min-max over draws",
            f"human label: {pairs.vote_source}; pairs with equal votes dropped ({int(np.sum(pairs.preference == 0))})",
            f"metric ties: {metric_ties} ({'count as correct' if metric_ties == 'right' else 'count 0.5'})",
        ]
        return Reproduction(name, rows, notes)

    return run


def foil_accuracies(
    pairs: data.FoilPairs, scorer: Scorer, n_references: int, *, ties: str = "half"
) -> dict[str, float]:
    """``metric -> accuracy (%)`` that the original caption outscores its foil, with the first ``n`` references."""
    refs = [pool[:n_references] for pool in pairs.pools]
    n = len(pairs)
    scores = scorer.items([*pairs.originals, *pairs.foils], [*refs, *refs])
    out = {}
    for metric, values in scores.items():
        r = pairwise_accuracy(values[:n], values[n:], np.ones(n), metric_ties=ties)
        out[metric] = 100.0 * r.accuracy
    return out


def _run_foil(data_dir: Path, scorer: Scorer, options: Options) -> Reproduction:
    pairs = data.load_foil(data_dir)
    results = {k: foil_accuracies(pairs, scorer, k) for k in (1, 4)}
    rows = [_row("foil", metric, f"{k}-ref", results[k][metric]) for metric in results[1] for k in (1, 4)]
    notes = [
        f"{len(pairs):,} original/foil pairs; references: the image's COCO captions without the original, "
        "the first 1 or 4 in file order; metric ties count 0.5",
    ]
    return Reproduction("foil", rows, notes)


#: The named protocols.
PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        Protocol(
            "flickr8k-expert",
            "Flickr8K-Expert, Kendall tau-c and tau-b (CLIPScore Table 1, PAC-S Table 1)",
            ("ExpertAnnotations.txt", "Flickr8k.token.txt"),
            "Items: ExpertAnnotations.txt minus the candidates that are captions of the judged image "
            "(5,664 of 5,822 on the full set); references: the image's 5 captions; one row per expert "
            "rating (16,992); Kendall tau-c and tau-b x 100.",
            _run_flickr8k_expert,
        ),
        Protocol(
            "flickr8k-cf",
            "Flickr8K-CF, Kendall tau-b and tau-c (CLIPScore Table 2, PAC-S Table 1)",
            ("CrowdFlowerAnnotations.txt", "Flickr8k.token.txt"),
            "Items: every line of CrowdFlowerAnnotations.txt (47,830 on the full set), rating = fraction of "
            "'yes'; references: the image's captions minus every caption judged for that image; Kendall "
            "tau-b and tau-c x 100.",
            _run_flickr8k_cf,
        ),
        Protocol(
            "pascal50s-spice",
            "PASCAL-50S pairwise accuracy (SPICE Table 4)",
            ("pair_pascal.mat", "pascal50S.mat"),
            "4,000 pairs; 5 references drawn at random per pair from the image's sentences (without the two "
            "candidates); metric ties count as correct; human label = majority vote; accuracy per category "
            "and their mean, averaged over draws.",
            _pascal_runner("pascal50s-spice", "right"),
        ),
        Protocol(
            "pascal50s-clipscore",
            "PASCAL-50S pairwise accuracy (CLIPScore Table 4)",
            ("pair_pascal.mat", "pascal50S.mat"),
            "4,000 pairs; 5 references drawn at random per pair, 5 draws (seeds 0-4) averaged; metric ties "
            "count 0.5 (the expectation of a random tie break); human label = majority vote.",
            _pascal_runner("pascal50s-clipscore", "half"),
        ),
        Protocol(
            "composite",
            "COMPOSITE correctness, Kendall tau-c (CLIPScore Table 3)",
            (
                "8k_correctness.csv",
                "30k_correctness.csv",
                "coco_correctness.csv",
                "Flickr8k.token.txt",
                "results_20130124.token",
                "captions_val2014.json",
            ),
            "Items: every candidate of the correctness files present; references: Flickr8k.token.txt, "
            "results_20130124.token (Flickr30K) and captions_val2014.json; Kendall tau-c x 100.",
            _run_composite,
            all_files=False,
        ),
        Protocol(
            "thumb",
            "THumB 1.0, caption- and system-level correlation (Kasai et al. 2022)",
            ("mscoco_THumB-1.0.jsonl", "mscoco_references.json"),
            "Caption level: metric score vs human_score of each of the 2,500 captions (Pearson, tau-b); system "
            "level: corpus score of each system vs its mean human_score (Pearson).",
            _run_thumb,
        ),
        Protocol(
            "foil",
            "FOIL hallucination pairs, accuracy with 1 and 4 references (CLIPScore Table 5)",
            ("foilv1.0_test_2017.json", "captions_val2014.json"),
            "Pairs: original COCO caption vs its foil (same annotation id); references: the image's COCO "
            "captions without the original, first 1 or 4; accuracy = original scored higher (ties 0.5).",
            _run_foil,
        ),
    )
}


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``.

    Raises:
        ValueError: naming the known protocols.
    """
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)}") from None


def reproduce(
    name: str,
    data_dir: str | Path,
    scorer: Scorer,
    *,
    seed: int | None = None,
    draws: int | None = None,
    n_references: int | None = None,
) -> Reproduction:
    """Run protocol ``name`` on the files in ``data_dir`` with ``scorer``'s metrics (one row per metric output).

    ``seed``, ``draws`` and ``n_references`` override the recipe (a note says so).

    Raises:
        ValueError: an unknown protocol or malformed file. FileNotFoundError: a missing file.
    """
    protocol = get_protocol(name)
    directory = Path(data_dir)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory (expected {', '.join(protocol.files)})")
    missing = [f for f in protocol.files if not (directory / f).is_file()]
    if protocol.all_files and missing:
        named = "; ".join(f"{f} (from {data.FILE_SOURCES[f]})" if f in data.FILE_SOURCES else f for f in missing)
        raise FileNotFoundError(f"{directory}: missing file(s) for {name}: {named}")
    d = protocol.defaults
    options = Options(
        d.seed if seed is None else seed,
        d.draws if draws is None else draws,
        d.n_references if n_references is None else n_references,
    )
    if options.draws < 1 or options.n_references < 1:
        raise ValueError("draws and n_references must be at least 1")
    if options != d and not name.startswith("pascal50s"):
        raise ValueError(f"{name} draws no references: seed, draws and n_references apply to the PASCAL-50S protocols")
    start = time.perf_counter()
    result = protocol.run(directory, scorer, options)
    result.seconds = time.perf_counter() - start
    if options != d and name.startswith("pascal50s"):
        result.notes.append(f"changed from the published recipe: {options} (recipe: {d})")
    for row in result.rows:
        if not math.isfinite(row.ours):
            result.notes.append(f"{row.metric} {row.statistic}: undefined on this data")
    unpublished = [row for row in result.rows if row.published is None]
    if unpublished:
        reason = NO_PUBLISHED_VALUES.get(name)
        if reason is None or len(unpublished) < len(result.rows):
            shown = ", ".join(f"{row.metric} {row.statistic}" for row in unpublished[:6])
            more = f", ... ({len(unpublished)} rows)" if len(unpublished) > 6 else ""
            reason = f"the cited tables have no value for {shown}{more}"
        result.notes.append(f"published '-' (and no difference): {reason}")
    return result
