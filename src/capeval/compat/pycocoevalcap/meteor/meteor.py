"""``pycocoevalcap.meteor.meteor``: METEOR 1.5 (``-l en -norm``), computed in Python."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from capeval.compat._checks import items_of, score_items

__all__ = ["Meteor"]


class Meteor:
    """METEOR 1.5 on tokenized captions, as the official wrapper runs the jar.

    ``compute_score(gts, res)`` returns ``(score, scores)``: the corpus METEOR (a float) and the
    list of per-image values, images in ``gts`` order. No Java process is started.
    """

    def __init__(self) -> None:
        from capeval.metrics.meteor import METEOR

        self._metric = METEOR(tokenizer="none")

    def compute_score(
        self, gts: Mapping[Hashable, list[str]], res: Mapping[Hashable, list[str]]
    ) -> tuple[float, list[float]]:
        """Corpus and per-image METEOR."""
        ids, candidates, references = items_of(gts, res, "Meteor")
        result = score_items(self._metric, ids, candidates, references, "Meteor")
        return float(result.score), result.item_scores.tolist()

    def method(self) -> str:
        """``"METEOR"``."""
        return "METEOR"
