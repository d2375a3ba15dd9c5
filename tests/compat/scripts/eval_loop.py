# An evaluation loop as caption-training repositories write it. Usage: eval_loop.py ANNOTATIONS RESULTS OUT.json
import json
import sys

from pycocotools.coco import COCO

from capeval.compat.pycocoevalcap.eval import COCOEvalCap

annotation_file, results_file, out_file = sys.argv[1:4]
coco = COCO(annotation_file)
valids = coco.getImgIds()
with open(results_file) as fh:
    preds = [p for p in json.load(fh) if p["image_id"] in valids]
coco_res = coco.loadRes(preds)
coco_eval = COCOEvalCap(coco, coco_res)
coco_eval.params["image_id"] = coco_res.getImgIds()
coco_eval.evaluate()
out = {metric: float(score) for metric, score in coco_eval.eval.items() if metric != "SPICE"}
img_to_eval = coco_eval.imgToEval
for p in preds:
    image_id = p["image_id"]
    p["eval"] = {k: float(v) for k, v in img_to_eval[image_id].items() if k not in ("SPICE", "image_id")}
out["per_image"] = {str(p["image_id"]): p["eval"] for p in preds}
out["n_eval_imgs"] = len(coco_eval.evalImgs)
with open(out_file, "w") as fh:
    json.dump(out, fh)
