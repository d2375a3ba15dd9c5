"""Metrics of several candidate captions per image (diverse or sampled captioning).

* :func:`multi_spice`: SPICE over ``m`` candidates per image, three ways:

  - ``"all"`` (AllSPICE): the scene graphs of all candidates are merged into one graph (as SPICE
    merges the graphs of the references) and scored once against the references: high only if the
    candidates together are accurate *and* cover more of the references than one caption could.
  - ``"best"`` (oracle / best-of-n): the highest per-candidate SPICE of the image.
  - ``"mean"`` (mean-of-n): the average per-candidate SPICE of the image.

  The corpus score is the mean over images, as for SPICE.
* :func:`capeval.metrics.cider.self_cider`: the self-CIDEr diversity (Wang and Chan, CVPR 2019),
  re-exported here.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from capeval.metrics.base import FloatArray
from capeval.metrics.cider import SelfCIDErResult, self_cider

__all__ = ["MULTI_SPICE_MODES", "MultiSPICEResult", "SelfCIDErResult", "multi_spice", "self_cider"]

MULTI_SPICE_MODES = ("all", "best", "mean")


@dataclass(frozen=True)
class MultiSPICEResult:
    """Multi-candidate SPICE.

    Attributes:
        mode: ``"all"``, ``"best"`` or ``"mean"``.
        score: Mean over images.
        item_scores: One value per image.
        candidate_scores: Per image, the SPICE F-score of each candidate (``"best"``/``"mean"``),
            or ``None`` for ``"all"``.
        ids: Image ids when given.
    """

    mode: str
    score: float
    item_scores: FloatArray
    candidate_scores: tuple[FloatArray, ...] | None
    ids: tuple[Hashable, ...] | None = None


def multi_spice(
    candidates: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    mode: str = "all",
    ids: Sequence[Hashable] | None = None,
    **spice_options: Any,
) -> MultiSPICEResult:
    """SPICE of several candidates per image (see the module docstring for the three modes).

    Args:
        candidates: ``candidates[k]``: the candidate captions of image ``k`` (at least one).
        references: ``references[k]``: the reference captions of image ``k``.
        mode: ``"all"`` (AllSPICE, merged candidate graph), ``"best"`` or ``"mean"``.
        ids: Optional image ids carried into the result.
        **spice_options: Passed to :class:`capeval.metrics.spice.SPICE` (``tokenizer``, ``parser``,
            ``synonyms``, ``cache``...).

    Example:
        >>> from capeval.metrics.spice import PrecomputedParser
        >>> parser = PrecomputedParser({"a red bus": [["bus"], ["bus", "red"]], "a bus": [["bus"]],
        ...                             "a red car": [["car"], ["car", "red"]]})
        >>> opts = dict(tokenizer="none", parser=parser, cache=False, synonyms=False)
        >>> [round(multi_spice([["a bus", "a red car"]], [["a red bus"]], mode=m, **opts).score, 4)
        ...  for m in ("all", "best", "mean")]
        [0.4, 0.6667, 0.3333]
    """
    if mode not in MULTI_SPICE_MODES:
        raise ValueError(f"mode must be one of {', '.join(MULTI_SPICE_MODES)}, got {mode!r}")
    if isinstance(candidates, str) or isinstance(references, str):
        raise ValueError("candidates and references must be lists of caption lists, one per image")
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidate sets but {len(references)} reference lists")
    if ids is not None and len(ids) != len(candidates):
        raise ValueError(f"{len(ids)} ids for {len(candidates)} images")
    for k, group in enumerate(candidates):
        where = f"image {ids[k]!r}" if ids is not None else f"image {k}"
        if isinstance(group, str) or len(group) == 0:
            raise ValueError(f"{where}: expected a non-empty list of candidate captions")
        if len(references[k]) == 0:
            raise ValueError(f"{where}: no reference captions")
    from capeval.metrics.spice import SPICE
    from capeval.metrics.spice.graph import graph_tuples
    from capeval.metrics.spice.score import score_categories_detailed

    spice = SPICE(**{"detailed": False, **spice_options})
    if mode != "all":
        flat = [c for group in candidates for c in group]
        item_refs = [references[k] for k, group in enumerate(candidates) for _ in group]
        per_candidate = spice.score(candidates=flat, references=item_refs).item_scores
        groups, pos = [], 0
        for group in candidates:
            groups.append(per_candidate[pos : pos + len(group)].copy())
            pos += len(group)
        reduce = np.max if mode == "best" else np.mean
        items = np.array([float(reduce(g)) for g in groups])
        return MultiSPICEResult(mode, float(items.mean()), items, tuple(groups), tuple(ids) if ids else None)
    cand_tok = spice.tokenizer.tokenize([c for group in candidates for c in group])
    ref_tok = spice.tokenizer.tokenize([r for refs in references for r in refs])
    parsed = spice.parse([*cand_tok, *ref_tok])
    items = np.empty(len(candidates))
    c_pos = r_pos = 0
    for k, group in enumerate(candidates):
        cand_graph = spice._graph([parsed[c] for c in cand_tok[c_pos : c_pos + len(group)]])
        ref_graph = spice._graph([parsed[r] for r in ref_tok[r_pos : r_pos + len(references[k])]])
        c_pos += len(group)
        r_pos += len(references[k])
        scores, _, _ = score_categories_detailed(
            graph_tuples(cand_graph), graph_tuples(ref_graph), exact=not spice.synonyms
        )
        items[k] = scores["All"].f
    return MultiSPICEResult(mode, float(items.mean()) if len(items) else 0.0, items, None, tuple(ids) if ids else None)
