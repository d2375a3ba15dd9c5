"""``pycocoevalcap.bleu.bleu``: BLEU-1..n, values and printout of the official scorer."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from capeval.compat._checks import items_of, say, score_items
from capeval.metrics.bleu import BLEU as _BLEU
from capeval.metrics.bleu import BLEU_SMALL, BLEU_TINY

__all__ = ["Bleu"]


class Bleu:
    """BLEU with the "closest" reference length, on tokenized captions.

    ``compute_score(gts, res)`` returns ``(score, scores)``: ``score`` is the list of corpus
    BLEU-1..n and ``scores[k]`` the list of per-image BLEU-(k+1), images in ``gts`` order.

    Args:
        n: Highest n-gram order (4).
    """

    def __init__(self, n: int = 4) -> None:
        self._n = n
        self._metric = _BLEU(n=n, tokenizer="none")

    def compute_score(
        self, gts: Mapping[Hashable, list[str]], res: Mapping[Hashable, list[str]], verbose: int = 1
    ) -> tuple[list[float], list[list[float]]]:
        """Corpus and per-image BLEU; with ``verbose`` (default, as official) prints the pooled counts."""
        ids, candidates, references = items_of(gts, res, "Bleu")
        result = score_items(self._metric, ids, candidates, references, "Bleu")
        n = self._n
        score = [float(result.scores[f"bleu-{k}"]) for k in range(1, n + 1)]
        scores = [result.item_table[f"bleu-{k}"].tolist() for k in range(1, n + 1)]
        if verbose > 0:
            totals = result.stats.sum(axis=0) if result.n_items else [0] * (2 + 2 * n)
            testlen, reflen = int(totals[0]), int(totals[1])
            comps: dict[str, Any] = {
                "testlen": testlen,
                "reflen": reflen,
                "guess": [int(x) for x in totals[2 : 2 + n]],
                "correct": [int(x) for x in totals[2 + n : 2 + 2 * n]],
            }
            say(str(comps))
            say(f"ratio: {(testlen + BLEU_TINY) / (reflen + BLEU_SMALL)}")
        return score, scores

    def method(self) -> str:
        """``"Bleu"``."""
        return "Bleu"
