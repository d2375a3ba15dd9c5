"""Comparing capeval's SPICE with the jar's ``-subset -detailed`` output, item by item.

An item matches when its candidate and merged reference tuple listings (printed concepts,
truth values, order) are the jar's and every category's ``tp``, ``fp``, ``fn`` are equal and
``pr``, ``re``, ``f`` within 1e-9 (NaN where the jar writes null).

The jar takes two scene-graph decisions in the iteration order of identity-hashed sets, which
differs from run to run: which of several equally similar nodes a new object merges into,
and which of several similar attributes a new attribute merges into. For an item where such a
tie occurs, every way of breaking the ties is tried; the item matches when one of them gives
the jar's output (the jar itself gives different ones in different runs).
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from capeval.metrics.spice.graph import SceneGraph, graph_tuples
from capeval.metrics.spice.score import CATEGORIES, score_categories_detailed, tuple_listing
from capeval.metrics.spice.synonyms import load_synonyms

#: The fixture of official stages and outputs (see its README).
DATA = Path(__file__).resolve().parents[1] / "data" / "spice"
#: Tie resolutions tried per item at most.
MAX_RESOLUTIONS = 256
_FIELDS = ("tp", "fp", "fn", "pr", "re", "f")

Raw = Sequence[Sequence[str]]


def score_item(
    test: Raw, refs: Sequence[Raw], choose: Callable[[int], int] | None = None
) -> tuple[dict[str, Any], int]:
    """The jar's per-item record (``scores``, ``test_tuples``, ``ref_tuples``) from raw tuples,
    and the number of tie decisions taken."""
    lookup = load_synonyms().concept_synsets
    test_graph = SceneGraph(lookup, merge=True, choose=choose)
    test_graph.add_tuples(test)
    ref_graph = SceneGraph(lookup, merge=True, choose=choose)
    for ref in refs:
        ref_graph.add_tuples(ref)
    cand, ref_tuples = graph_tuples(test_graph), graph_tuples(ref_graph)
    scores, cand_truth, ref_truth = score_categories_detailed(cand, ref_tuples)
    record = {
        "scores": {
            c: {"tp": s.tp, "fp": s.fp, "fn": s.fn, "pr": s.pr, "re": s.re, "f": s.f} for c, s in scores.items()
        },
        "test_tuples": tuple_listing(cand, cand_truth),
        "ref_tuples": tuple_listing(ref_tuples, ref_truth),
    }
    return record, test_graph.ties + ref_graph.ties


def differences(mine: Mapping[str, Any], official: Mapping[str, Any]) -> list[str]:
    """What differs between two per-item records (empty when they match)."""
    out = []
    for key in ("test_tuples", "ref_tuples"):
        if list(mine[key]) != list(official[key]):
            out.append(key)
    for category in CATEGORIES:
        a, b = mine["scores"][category], official["scores"][category]
        for name in _FIELDS:
            x, y = a[name], b[name]
            x = None if isinstance(x, float) and math.isnan(x) else x
            if (x is None) != (y is None) or (x is not None and abs(x - y) > 1e-9):
                out.append(f"{category}.{name}: {x} != {y}")
    return out


def _resolutions(test: Raw, refs: Sequence[Raw]) -> Iterator[tuple[dict[str, Any], int]]:
    """Every way of breaking the ties (depth first, at most :data:`MAX_RESOLUTIONS`)."""
    pending: list[list[int]] = [[]]
    done = 0
    while pending and done < MAX_RESOLUTIONS:
        prefix = pending.pop()
        counts: list[int] = []

        def choose(n: int, prefix: list[int] = prefix, counts: list[int] = counts) -> int:
            k = len(counts)
            counts.append(n)
            return prefix[k] if k < len(prefix) else 0

        yield score_item(test, refs, choose)
        done += 1
        for k in range(len(prefix), len(counts)):
            for alternative in range(1, counts[k]):
                pending.append(prefix + [0] * (k - len(prefix)) + [alternative])


def check_item(test: Raw, refs: Sequence[Raw], official: Mapping[str, Any]) -> tuple[list[str], bool]:
    """``(differences, tied)``: the differences of the default resolution when no resolution
    matches (empty when one does), and whether the item had ties at all."""
    record, ties = score_item(test, refs)
    first = differences(record, official)
    if not first or not ties:
        return first, bool(ties)
    for record, _ in _resolutions(test, refs):
        if not differences(record, official):
            return [], True
    return first, True


class FakeStagesProvider:
    """A stages provider serving stage dicts computed in advance (the official pipeline's
    output), with the interface of the exact pipeline: ``annotate_many`` and ``fingerprint``.

    Args:
        stages: Caption -> stage dict.
        fingerprint: Its identity.
    """

    def __init__(self, stages: Mapping[str, Mapping[str, Any]], fingerprint: str = "fake-stages") -> None:
        self.stages = dict(stages)
        self.fingerprint = fingerprint
        self.calls = 0

    def annotate_many(self, texts: Sequence[str]) -> list[dict[str, Any]]:
        """The stage dict of each text."""
        self.calls += 1
        return [dict(self.stages[t]) for t in texts]


def fixture_stages() -> dict[str, dict[str, Any]]:
    """Caption -> official stage dict, for the 894 captions of the fixture."""
    with gzip.open(DATA / "coco_demo_stages.jsonl.gz", "rt", encoding="utf-8") as fh:
        return {d["caption"]: d for d in map(json.loads, fh)}


def fixture_official() -> list[dict[str, Any]]:
    """The jar's per-image ``-subset -detailed`` records of the fixture's 150 images."""
    with gzip.open(DATA / "coco_demo_official.json.gz", "rt", encoding="utf-8") as fh:
        items: list[dict[str, Any]] = json.load(fh)
    return items


def fixture_raw_tuples() -> dict[str, list[list[str]]]:
    """Caption -> the raw tuples the jar's parser emits, for the 894 captions of the fixture."""
    with gzip.open(DATA / "coco_demo_raw_tuples.json.gz", "rt", encoding="utf-8") as fh:
        found: dict[str, list[list[str]]] = json.load(fh)
    return found


#: Flickr8K-Expert image 1119015538_e8e796281e (Hodosh et al. 2013), raw text, and official SPICE
#: 1.0's results (tp, fp, fn, F) for two candidates, from the project's SPICE specification
#: (examples E3 and E4).
FLICKR_REFS = [
    "A little tan dog with large ears running through the grass .",
    "A playful dog is running through the grass .",
    "A small dogs ears stick up as it runs in the grass .",
    "The small dog is running across the lawn .",
    "this is a small beige dog running through a grassy field",
]
FLICKR_OFFICIAL = {
    "A dog rolling in the grass .": (2, 1, 16, 0.1904761904761905),
    "A white dog runs in the grass ,": (2, 2, 16, 0.1818181818181818),
}


def check_flickr_examples(metric: Any) -> None:
    """Assert that ``metric`` (a SPICE on raw text) gives official SPICE's counts and F on the Flickr examples."""
    cands = sorted(FLICKR_OFFICIAL)
    result = metric.score(candidates=cands, references=[FLICKR_REFS] * len(cands))
    for cand, row, f in zip(cands, result.stats, result.item_scores, strict=True):
        tp, fp, fn, official_f = FLICKR_OFFICIAL[cand]
        assert (row[4], row[5], row[6]) == (tp, fp, fn), cand
        assert f == official_f, cand
