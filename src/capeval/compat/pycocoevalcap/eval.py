"""``pycocoevalcap.eval``: ``COCOEvalCap``, the COCO caption evaluation driver.

Same attributes and behaviour as the official class: ``params["image_id"]`` (all images of the
ground truth by default; usually set to ``cocoRes.getImgIds()``), ``evaluate()`` filling ``eval``
(``{"Bleu_1": ..., "CIDEr": ..., "SPICE": ...}``), ``imgToEval`` (per image, SPICE as the nested dict
of categories) and ``evalImgs``, and the same progress lines on standard output (``verbose=False``
silences them). Per-image SPICE entries are assigned exactly as the official code assigns them
(its sorted-id list zipped with the unsorted image ids; see ``docs/compat.md``).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any

from capeval.compat._checks import CompatInputError, say, warn_empty_candidates
from capeval.compat.pycocoevalcap.bleu.bleu import Bleu
from capeval.compat.pycocoevalcap.cider.cider import Cider
from capeval.compat.pycocoevalcap.meteor.meteor import Meteor
from capeval.compat.pycocoevalcap.rouge.rouge import Rouge
from capeval.compat.pycocoevalcap.spice.spice import Spice
from capeval.compat.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
from capeval.metrics.base import EmptyCandidateWarning

__all__ = ["COCOEvalCap"]


class COCOEvalCap:
    """Evaluate a results set against COCO ground truth with BLEU, METEOR, ROUGE-L, CIDEr(-D), SPICE.

    Args:
        coco: Ground truth: a ``pycocotools.coco.COCO`` object, or anything with ``getImgIds()``
            and an ``imgToAnns`` mapping ``image_id -> [{"caption": str, ...}]``.
        cocoRes: The results, e.g. ``coco.loadRes("results.json")`` (same surface).
        verbose: Print the official progress lines (default) or nothing.
    """

    def __init__(self, coco: Any, cocoRes: Any, *, verbose: bool = True) -> None:
        self.evalImgs: list[dict[str, Any]] = []
        self.eval: dict[str, Any] = {}
        self.imgToEval: dict[Hashable, dict[str, Any]] = {}
        self.coco = coco
        self.cocoRes = cocoRes
        self.params: dict[str, Any] = {"image_id": coco.getImgIds()}
        self.verbose = verbose

    def _say(self, text: str) -> None:
        if self.verbose:
            say(text)

    def _scorers(self) -> list[tuple[Any, Any]]:
        return [
            (Bleu(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
            (Meteor(), "METEOR"),
            (Rouge(), "ROUGE_L"),
            (Cider(), "CIDEr"),
            (Spice(), "SPICE"),
        ]

    def evaluate(self) -> None:
        """Tokenize, score with every metric and fill ``eval``, ``imgToEval`` and ``evalImgs``."""
        img_ids = self.params["image_id"]
        gts: dict[Hashable, Any] = {}
        res: dict[Hashable, Any] = {}
        for img_id in img_ids:
            gts[img_id] = self.coco.imgToAnns[img_id]
            res[img_id] = self.cocoRes.imgToAnns[img_id]
        no_result = [i for i in img_ids if not res[i]]
        if no_result:
            shown = ", ".join(repr(i) for i in no_result[:5]) + (", ..." if len(no_result) > 5 else "")
            raise CompatInputError(
                f"COCOEvalCap: {len(no_result)} of {len(img_ids)} images in params['image_id'] have no caption "
                f"in the results ({shown}); score only the result images: "
                "cocoEval.params['image_id'] = cocoRes.getImgIds()"
            )
        no_refs = [i for i in img_ids if not gts[i]]
        if no_refs:
            shown = ", ".join(repr(i) for i in no_refs[:5]) + (", ..." if len(no_refs) > 5 else "")
            raise CompatInputError(f"COCOEvalCap: {len(no_refs)} image(s) have no reference captions ({shown})")

        self._say("tokenization...")
        tokenizer = PTBTokenizer()
        gts = tokenizer.tokenize(gts)
        res = tokenizer.tokenize(res)

        # Once for every metric, by image id (a caption of punctuation only is empty once tokenized).
        warn_empty_candidates(list(res), [hypo[0] for hypo in res.values()], "COCOEvalCap")
        self._say("setting up scorers...")
        for scorer, method in self._scorers():
            self._say(f"computing {scorer.method()} score...")
            with warnings.catch_warnings():  # reported above
                warnings.simplefilter("ignore", EmptyCandidateWarning)
                if isinstance(scorer, Bleu):
                    score, scores = scorer.compute_score(gts, res, verbose=1 if self.verbose else 0)
                else:
                    score, scores = scorer.compute_score(gts, res)
            if isinstance(method, list):
                for sc, scs, m in zip(score, scores, method, strict=True):
                    self.setEval(sc, m)
                    self.setImgToEvalImgs(scs, gts.keys(), m)
                    self._say(f"{m}: {sc:0.3f}")
            else:
                self.setEval(score, method)
                self.setImgToEvalImgs(scores, gts.keys(), method)
                self._say(f"{method}: {score:0.3f}")
        self.setEvalImgs()

    def setEval(self, score: Any, method: str) -> None:
        """``eval[method] = score``."""
        self.eval[method] = score

    def setImgToEvalImgs(self, scores: Any, imgIds: Any, method: str) -> None:
        """Per-image scores into ``imgToEval`` (zipped with ``imgIds``, as the official code does)."""
        for img_id, score in zip(imgIds, scores, strict=False):
            if img_id not in self.imgToEval:
                self.imgToEval[img_id] = {"image_id": img_id}
            self.imgToEval[img_id][method] = score

    def setEvalImgs(self) -> None:
        """``evalImgs``: the ``imgToEval`` entries as a list."""
        self.evalImgs = list(self.imgToEval.values())
