"""Run the official pycocoevalcap 1.2 API in the call patterns scripts use; executed with the oracle's Python.

Usage: python official_compat_runner.py ANNOTATIONS.json RESULTS.json OUTPUT.json

This suite needs no CoreNLP models: ``Spice`` runs with the jar call replaced by one that writes
the jar's output format (placeholder numbers): the official wrapper's own code then builds the
return values, which the parity suite compares for shape and keys.
Every returned value is written with its Python type (see :func:`describe`).
"""

import contextlib
import io
import json
import math
import sys


def describe(value):
    """A JSON-able description of a value that keeps its type, shape and numbers."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), list(value.shape), [describe(v) for v in value.tolist()]]
    if isinstance(value, dict):
        return ["dict", [[describe(k), describe(v)] for k, v in value.items()]]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [describe(v) for v in value]]
    if isinstance(value, (bool, str)) or value is None:
        return [type(value).__name__, value]
    if isinstance(value, (int, np.integer)):
        return [type(value).__name__, int(value)]
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return [type(value).__name__, None if math.isnan(number) else number]
    return [type(value).__name__, repr(value)]


def _fake_spice_jar(command, cwd=None):
    """Stand-in for ``java -jar spice-1.0.jar IN -out OUT ...``: the jar's output format."""
    in_path = command[4]
    out_path = command[command.index("-out") + 1]
    with open(in_path) as fh:
        items = json.load(fh)
    categories = ("All", "Object", "Attribute", "Relation", "Cardinality", "Color", "Size")
    fields = {"tp": 0, "fp": 0, "fn": 0, "f": 0.0, "pr": 0.0, "re": 0.0, "numImages": 1}
    out = [{"image_id": item["image_id"], "scores": {c: dict(fields) for c in categories}} for item in items]
    with open(out_path, "w") as fh:
        json.dump(out, fh)
    return 0


def _patch_spice():
    import pycocoevalcap.spice.spice as spice

    spice.get_stanford_models = lambda: None
    spice.subprocess.check_call = _fake_spice_jar


def main(ann_path, res_path, out_path):
    from pycocotools.coco import COCO

    _patch_spice()
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.eval import COCOEvalCap
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.spice.spice import Spice
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    out = {}
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(ann_path)
        coco_res = coco.loadRes(res_path)
    # 1. The evaluation loop of the official demo.
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        evaluator = COCOEvalCap(coco, coco_res)
        evaluator.params["image_id"] = coco_res.getImgIds()
        evaluator.evaluate()
    out["eval"] = describe(evaluator.eval)
    out["imgToEval"] = describe(evaluator.imgToEval)
    out["evalImgs"] = describe(evaluator.evalImgs)
    out["printed"] = printed.getvalue()
    # 2. Individual scorers after the tokenizer.
    ids = coco_res.getImgIds()
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({i: coco.imgToAnns[i] for i in ids})
    res = tokenizer.tokenize({i: coco_res.imgToAnns[i] for i in ids})
    out["tokenized"] = describe([gts, res])
    calls = {}
    with contextlib.redirect_stdout(io.StringIO()) as bleu_printed:
        calls["bleu4"] = Bleu(4).compute_score(gts, res)
        calls["bleu4_quiet"] = Bleu(4).compute_score(gts, res, verbose=0)
        calls["bleu2"] = Bleu(2).compute_score(gts, res, verbose=0)
    out["bleu_printed"] = bleu_printed.getvalue()
    meteor = Meteor()
    calls["meteor"] = meteor.compute_score(gts, res)
    del meteor
    calls["rouge"] = Rouge().compute_score(gts, res)
    calls["rouge_calc"] = [Rouge().calc_score(res[i], gts[i]) for i in ids[:50]]
    calls["cider"] = Cider().compute_score(gts, res)
    calls["cider_s3"] = Cider(sigma=3.0).compute_score(gts, res)
    calls["spice"] = Spice().compute_score(gts, res)
    # 3. Per-sample BLEU-4, as training code computes sentence-level rewards.
    sample = ids[:50]
    with contextlib.redirect_stdout(io.StringIO()):
        calls["bleu4_per_sample"] = [Bleu(4).compute_score({i: gts[i]}, {i: res[i]})[0][3] for i in sample]
    out["calls"] = {k: describe(v) for k, v in calls.items()}
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False)


if __name__ == "__main__":
    main(*sys.argv[1:4])
