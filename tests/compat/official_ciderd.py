"""CIDEr-D rewards as ``pyciderevalcap.ciderD`` computes them, on the official scorer.

Run with the oracle's Python: ``python official_ciderd.py BATCH.json WORKDIR OUT.json`` (the
arguments of ``scripts/cider_reward.py``). ``pyciderevalcap`` is not on the package index; its
``CiderD.compute_score(gts, res)`` appends one ``(caption, gts[image_id])`` pair per entry of
``res`` to the ``pycocoevalcap`` 1.2 ``CiderScorer`` and then:

* with ``df="corpus"``, scores as that class does: document frequencies counted over the appended
  reference lists (a list shared by several entries, as the samples of one image share theirs,
  counts once per entry) and ``log(len(res))`` as the idf numerator;
* with a cached df, takes the document frequencies from the pickle and ``log(ref_len)`` as the idf
  numerator. This harness reproduces that on the official class: the pickle's mapping replaces
  the counted one, and the reference list reports ``ref_len`` as its length where
  ``compute_cider`` takes the logarithm.
"""

import json
import os
import pickle
import sys

import numpy as np
from pycocoevalcap.cider.cider_scorer import CiderScorer


class _Refs(list):
    def __init__(self, items, length):
        super().__init__(items)
        self.length = length

    def __len__(self):
        return self.length


def main(batch_file, workdir, out_file):
    with open(batch_file) as fh:
        batch = json.load(fh)
    gts = {int(k): v for k, v in batch["gts"].items()}
    captions = batch["samples"] + batch["greedy"]
    images = batch["images"] + batch["images"]
    scorer = CiderScorer(n=4, sigma=6.0)
    for caption, image in zip(captions, images, strict=False):
        scorer += (caption, gts[image])
    if batch["df"] == "corpus":
        scores = np.array(scorer.compute_score()[1])
    else:
        with open(os.path.join(workdir, "data", batch["df"] + ".p"), "rb") as fh:
            cached = pickle.load(fh, encoding="latin1")
        scorer.document_frequency = cached["document_frequency"]
        scorer.crefs = _Refs(scorer.crefs, cached["ref_len"])
        scores = np.array(scorer.compute_cider())
    n = len(batch["samples"])
    with open(out_file, "w") as fh:
        json.dump(
            {"scores": scores.tolist(), "rewards": (scores[:n] - scores[n:]).tolist(), "mean": float(np.mean(scores))},
            fh,
        )


if __name__ == "__main__":
    main(*sys.argv[1:4])
