"""SPICE 1.0 tuple matching, categories and per-item precision/recall/F.

Matching (``TupleSet.match_similar``): each candidate tuple counts as a true positive when
*some* reference tuple of the same length is pairwise similar to it (shared word or shared
synset). The matching is many-to-one, so ``fn = |reference| - tp`` can in principle become
negative and recall exceed 1 (official quirk, kept). With synonyms off
(``-noSynsets``), tuples must be pairwise *equal* instead.

Categories filter the candidate and reference tuple sets independently before matching.
The attribute word lists test the printed concept, so a merged attribute such as
``gray/grey`` never counts for Color, Size or Cardinality (official quirk, kept).

NaN rules (``Evaluation``): "All" never yields NaN (an item whose references give no tuple
scores 0/0/0); a subset category whose filtered reference set is empty yields NaN for
precision, recall and F, even when the candidate has tuples of that kind.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from capeval.metrics.spice.graph import Concept, tuple_sort_key

__all__ = [
    "CARDINALITY_WORDS",
    "CATEGORIES",
    "CATEGORY_ALIASES",
    "COLOR_WORDS",
    "SIZE_WORDS",
    "CategoryScore",
    "category_filter",
    "match_tuples",
    "score_categories",
    "score_categories_detailed",
    "tuple_listing",
]

#: Category keys in SPICE's JSON output, in its order ("Cardinality" is the paper's "Count").
CATEGORIES: tuple[str, ...] = ("All", "Object", "Attribute", "Relation", "Cardinality", "Color", "Size")

#: Other names accepted for categories ("Count" is the paper's name for "Cardinality").
CATEGORY_ALIASES = {"Count": "Cardinality"}

#: SPICE 1.0 ``SpiceStats`` Cardinality list.
CARDINALITY_WORDS = frozenset("one two three four five six seven eight nine ten".split())

#: SPICE 1.0 ``SpiceStats`` Color list.
COLOR_WORDS = frozenset(
    "black brown blue red yellow pink gray grey green dark light white cream orange purple maroon beige violet".split()
)

#: SPICE 1.0 ``SpiceStats`` Size list.
SIZE_WORDS = frozenset(
    """baby illimitable scrawny beefy immeasurable short big immense sizable bony infinitesimal skeletal boundless
    lanky skimpy brawny large skinny broad lean slender bulky life-size slim chunky limitless small colossal little
    squat compact mammoth stocky corpulent massive stout cosmic meager strapping cubby measly sturdy curvy microscopic
    tall elfin mini teensy emaciated miniature teeny endless minuscule teeny-tiny enormous minute teeny-weeny epic
    narrow thick expansive obese thickset extensive outsized thin fat oversize tiny fleshy overweight titanic
    full-size paltry towering gargantuan petite trifling gaunt pint-size trim giant plump tubby gigantic pocket-size
    undersized grand portly underweight great pudgy unlimited heavy puny vast hefty rotund wee huge scanty whopping
    hulking scraggy wide""".split()
)

_WORD_LISTS = {"Cardinality": CARDINALITY_WORDS, "Color": COLOR_WORDS, "Size": SIZE_WORDS}
_LENGTHS = {"Object": 1, "Attribute": 2, "Relation": 3}

Tuple = tuple[Concept, ...]


def category_filter(tuples: Sequence[Tuple], category: str) -> list[Tuple]:
    """The tuples a category keeps (``All`` keeps everything).

    Raises:
        ValueError: for an unknown category.
    """
    category = CATEGORY_ALIASES.get(category, category)
    if category == "All":
        return list(tuples)
    if category in _LENGTHS:
        length = _LENGTHS[category]
        return [t for t in tuples if len(t) == length]
    if category in _WORD_LISTS:
        words = _WORD_LISTS[category]
        return [t for t in tuples if len(t) == 2 and t[1].text in words]
    raise ValueError(f"unknown SPICE category {category!r}; choose from {', '.join(CATEGORIES)}")


def _tuples_match(a: Tuple, b: Tuple, exact: bool) -> bool:
    if len(a) != len(b):
        return False
    if exact:
        return all(x.equals(y) for x, y in zip(a, b, strict=True))
    return all(x.similar(y) for x, y in zip(a, b, strict=True))


def match_tuples(
    candidate: Sequence[Tuple], reference: Sequence[Tuple], exact: bool = False
) -> tuple[list[bool], list[bool]]:
    """First-match, many-to-one matching; truth values of candidate and reference tuples.

    Reference tuples are indexed by the words and synsets of their first element, so only
    those that can match are tested; they are still tried in order, so the first match is
    the one a plain scan finds.
    """
    cand_truth = [False] * len(candidate)
    ref_truth = [False] * len(reference)
    index: dict[tuple[int, object], list[int]] = {}
    for j, ref in enumerate(reference):
        head = ref[0]
        for word in head.word_set:
            index.setdefault((len(ref), word), []).append(j)
        if not exact:
            for synset in head.synsets:
                index.setdefault((len(ref), synset), []).append(j)
    for i, tup in enumerate(candidate):
        head = tup[0]
        keys: list[tuple[int, object]] = [(len(tup), w) for w in head.word_set]
        if not exact:
            keys += [(len(tup), s) for s in head.synsets]
        found: set[int] = set()
        for key in keys:
            found.update(index.get(key, ()))
        for j in sorted(found):
            if _tuples_match(tup, reference[j], exact):
                cand_truth[i] = True
                ref_truth[j] = True
                break
    return cand_truth, ref_truth


@dataclass(frozen=True)
class CategoryScore:
    """One item's result in one category (``tp``, ``fp``, ``fn``, precision, recall, F)."""

    tp: int
    fp: int
    fn: int
    pr: float
    re: float
    f: float

    @property
    def defined(self) -> bool:
        """False when the value is NaN (empty filtered reference set in a subset category)."""
        return not (math.isnan(self.pr) or math.isnan(self.re) or math.isnan(self.f))


def _evaluate(tp: int, n_candidate: int, n_reference: int, allow_nan: bool) -> CategoryScore:
    fp = n_candidate - tp
    fn = n_reference - tp
    pr = re = f = 0.0
    if tp + fn > 0:
        re = tp / (tp + fn)
        if tp + fp > 0:
            pr = tp / (tp + fp)
    elif allow_nan:
        pr = re = f = math.nan
    if pr > 0 and re > 0:
        f = 2 * pr * re / (pr + re)
    return CategoryScore(tp, fp, fn, pr, re, f)


def score_categories(
    candidate: Sequence[Tuple], reference: Sequence[Tuple], exact: bool = False
) -> dict[str, CategoryScore]:
    """Per-category scores of one item, keyed as in :data:`CATEGORIES`."""
    return score_categories_detailed(candidate, reference, exact)[0]


def score_categories_detailed(
    candidate: Sequence[Tuple], reference: Sequence[Tuple], exact: bool = False
) -> tuple[dict[str, CategoryScore], list[bool], list[bool]]:
    """Per-category scores plus the "All" truth values of candidate and reference tuples.

    Object, Attribute and Relation keep tuples by length, and matching only pairs tuples
    of equal length, so their matches are those of "All"; the word-list categories are
    matched on their own filtered sets.
    """
    cand_truth, ref_truth = match_tuples(candidate, reference, exact)
    out: dict[str, CategoryScore] = {}
    for category in CATEGORIES:
        if category == "All" or category in _LENGTHS:
            length = _LENGTHS.get(category)
            keep_c = [i for i, t in enumerate(candidate) if length is None or len(t) == length]
            n_ref = sum(1 for t in reference if length is None or len(t) == length)
            tp = sum(cand_truth[i] for i in keep_c)
            out[category] = _evaluate(tp, len(keep_c), n_ref, allow_nan=category != "All")
        else:
            cand = category_filter(candidate, category)
            ref = category_filter(reference, category)
            truth, _ = match_tuples(cand, ref, exact) if cand and ref else ([False] * len(cand), [])
            out[category] = _evaluate(sum(truth), len(cand), len(ref), allow_nan=True)
    return out, cand_truth, ref_truth


def tuple_listing(tuples: Sequence[Tuple], truth: Sequence[bool]) -> list[dict[str, Any]]:
    """The ``-detailed`` listing of a tuple set: ``{"tuple": [printed concepts], "truth_value"}``,
    true tuples first, each group in ``TupleSet`` order (as the jar sorts them after matching)."""
    order = sorted(range(len(tuples)), key=lambda i: (not truth[i], tuple_sort_key(tuples[i])))
    return [{"tuple": [c.text for c in tuples[i]], "truth_value": truth[i]} for i in order]
