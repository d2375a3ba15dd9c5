"""Published meta-evaluation values of the classic metrics, with the table each comes from.

Values are in the papers' units (Kendall tau x 100, accuracy in %). Each entry is
``(metric, statistic) -> value``; the statistic names are the ones the protocols report
(``tau-c``, ``tau-b``, ``HC`` ... ``MM``, ``mean``, ``1-ref``, ``4-ref``). A statistic without
a stored value is reported with no published value.

Every table says where its numbers were checked (``checked``). A table whose numbers could
not be checked against a copy of the paper's table is stored with ``verified=False``: its
values are reported, but marked "(unverified)" in every output, so that a difference against
them is not read as a difference against the paper.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["PUBLISHED", "PublishedTable"]


@dataclass(frozen=True)
class PublishedTable:
    """Published values of one protocol.

    Attributes:
        source: Citation of the table (paper, year, table number).
        values: ``(metric, statistic) -> value`` in the paper's units.
        note: What the table's numbers are computed over, where it matters for comparison.
        verified: Whether every value was checked against a copy of the cited table.
        checked: Where the values were checked (or why they could not be).
    """

    source: str
    values: Mapping[tuple[str, str], float] = field(default_factory=dict)
    note: str = ""
    verified: bool = True
    checked: str = ""


def _table(
    source: str,
    statistics: tuple[str, ...],
    rows: dict[str, tuple[float, ...]],
    note: str = "",
    *,
    checked: str,
    verified: bool = True,
) -> PublishedTable:
    values = {(metric, stat): v for metric, row in rows.items() for stat, v in zip(statistics, row, strict=True)}
    return PublishedTable(source, values, note, verified, checked)


_CLIPSCORE = "Hessel et al. 2021, CLIPScore (EMNLP), "
_PACS = "Sarto et al. 2023, PAC-S (CVPR), "

# Where the values were checked.
_CLIPSCORE_TEXT = "the paper's tables (arXiv:2104.08718v3) as reproduced in a public text copy of the paper"
_PACS_README = (
    "the expected output of compute_correlations.py in the authors' repository "
    "(github.com/aimagelab/pacscore, README.md), rounded to one decimal"
)
_NOT_FOUND = "no copy of the table was available to check against"

#: Published values per protocol name (see :mod:`capeval.meta_eval.protocols`).
PUBLISHED: dict[str, list[PublishedTable]] = {
    "flickr8k-expert": [
        _table(
            _CLIPSCORE + "Table 1 (Flickr8K-Expert, tau-c)",
            ("tau-c",),
            {
                "bleu-1": (32.3,),
                "bleu-4": (30.8,),
                "rouge-l": (32.3,),
                "meteor": (41.8,),
                "cider-d": (43.9,),
                "spice": (44.9,),
            },
            "full set: 5,664 candidates x 3 expert ratings = 16,992 rows",
            checked=_CLIPSCORE_TEXT,
        ),
        _table(
            _PACS + "Table 1 (Flickr8K-Expert, tau-b)",
            ("tau-b",),
            {
                "bleu-1": (32.2,),
                "bleu-4": (30.6,),
                "rouge-l": (32.1,),
                "meteor": (41.5,),
                "cider-d": (43.6,),
            },
            "full set",
            checked=_PACS_README,
        ),
        _table(
            _PACS + "Table 1 (Flickr8K-Expert, tau-b)",
            ("tau-b",),
            {"spice": (51.7,)},
            "full set",
            checked=_NOT_FOUND + " (the repository's expected output has no SPICE row)",
            verified=False,
        ),
    ],
    "flickr8k-cf": [
        _table(
            _CLIPSCORE + "Table 2 (Flickr8K-CF, tau-b)",
            ("tau-b",),
            {
                "bleu-4": (16.9,),
                "rouge-l": (19.9,),
                "meteor": (22.2,),
                "cider-d": (24.6,),
                "spice": (24.4,),
            },
            "full set: 47,830 candidate-image pairs, rating = fraction of 'yes'",
            checked=_CLIPSCORE_TEXT,
        ),
        _table(
            _PACS + "Table 1 (Flickr8K-CF, tau-b and tau-c)",
            ("tau-b", "tau-c"),
            {"bleu-1": (17.9, 9.3)},
            "full set (CLIPScore Table 2 has no BLEU-1 row)",
            checked=_PACS_README,
        ),
        _table(
            _PACS + "Table 1 (Flickr8K-CF, tau-c)",
            ("tau-c",),
            {
                "bleu-4": (8.7,),
                "rouge-l": (10.3,),
                "meteor": (11.5,),
                "cider-d": (12.7,),
            },
            "full set",
            checked=_PACS_README,
        ),
        _table(
            _PACS + "Table 1 (Flickr8K-CF, tau-c)",
            ("tau-c",),
            {"spice": (12.0,)},
            "full set",
            checked=_NOT_FOUND + " (the repository's expected output has no SPICE row)",
            verified=False,
        ),
    ],
    "composite": [
        _table(
            _CLIPSCORE + "Table 3 (Composite, tau-c)",
            ("tau-c",),
            {
                "bleu-1": (31.3,),
                "bleu-4": (30.6,),
                "rouge-l": (32.4,),
                "meteor": (38.9,),
                "cider-d": (37.7,),
                "spice": (40.3,),
            },
            "8k + 30k + COCO correctness files, 11,985 ratings; the candidate removed from its references",
            checked=_CLIPSCORE_TEXT,
        ),
    ],
    "pascal50s-spice": [
        _table(
            "Anderson et al. 2016, SPICE (ECCV), Table 4 (PASCAL-50S, 5 references)",
            ("HC", "HI", "HM", "MM", "mean"),
            {
                "bleu-1": (64.9, 95.2, 90.7, 60.1, 77.7),
                "bleu-4": (61.7, 93.1, 86.1, 59.6, 75.1),
                "rouge-l": (63.7, 95.3, 92.3, 61.2, 78.1),
                "meteor": (64.0, 98.1, 94.2, 66.8, 80.8),
                "cider-d": (61.9, 98.4, 91.0, 64.2, 78.9),
                "spice": (63.3, 96.3, 87.5, 68.2, 78.8),
            },
            "labels: majority of the 48 consensus votes per pair (consensus_pascal.mat)",
            checked=_NOT_FOUND,
            verified=False,
        ),
    ],
    "pascal50s-clipscore": [
        _table(
            _CLIPSCORE + "Table 4 (PASCAL-50S, 5 references)",
            ("HC", "HI", "HM", "MM", "mean"),
            {
                "bleu-4": (60.4, 90.6, 84.9, 54.7, 72.6),
                "rouge-l": (63.7, 95.3, 92.3, 61.2, 78.1),
                "meteor": (63.8, 97.7, 93.7, 65.4, 80.1),
                "cider-d": (65.1, 98.1, 90.5, 64.8, 79.6),
                "spice": (63.6, 96.3, 86.7, 68.3, 78.7),
            },
            "mean over 5 random draws of 5 references, ties broken at random; the table has no BLEU-1 row",
            checked=_CLIPSCORE_TEXT,
        ),
    ],
    "foil": [
        _table(
            _CLIPSCORE + "Table 5 (FOIL pairwise hallucination detection)",
            ("1-ref", "4-ref"),
            {
                "bleu-4": (66.5, 82.6),
                "rouge-l": (71.7, 79.3),
                "meteor": (78.8, 85.4),
                "cider-d": (82.5, 90.6),
                "spice": (75.5, 86.1),
            },
            "FOIL-COCO test pairs, references from COCO captions",
            checked=_CLIPSCORE_TEXT,
        ),
    ],
    # THumB 1.0 (Kasai et al. 2022) reports classic-metric correlations, but no copy of its
    # tables was available to check against, so none are stored.
    "thumb": [],
}

#: Why a protocol's rows have no published value ("-" in the table), where none of them has one.
NO_PUBLISHED_VALUES: dict[str, str] = {
    "thumb": (
        "THumB 1.0 (Kasai et al. 2022) reports correlations of the classic metrics, but its tables have "
        "not been checked against a copy, so capeval stores none and shows its own values only"
    ),
}
