# A self-critical CIDEr-D reward batch with a cached df pickle. Usage: cider_reward.py BATCH.json WORKDIR OUT.json
# WORKDIR holds data/<df>.p (unless "df" is "corpus"); BATCH has "df", "gts" ({id: [word-index strings]}),
# "images", "samples", "greedy", and "by_image": res entries carry their image's id (several entries per id)
# instead of one id per entry mapped to its image's shared reference list.
import json
import os
import sys

import numpy as np

from capeval.compat.pyciderevalcap.ciderD.ciderD import CiderD

batch_file, workdir, out_file = sys.argv[1:4]
with open(batch_file) as fh:
    batch = json.load(fh)
os.chdir(workdir)
CiderD_scorer = CiderD(df=batch["df"])
gts = {int(k): v for k, v in batch["gts"].items()}
res = []
images = batch["images"] + batch["images"]
if batch.get("by_image"):
    for i, caption in enumerate(batch["samples"] + batch["greedy"]):
        res.append({"image_id": images[i], "caption": [caption]})
    res_gts = gts
else:
    for i, caption in enumerate(batch["samples"] + batch["greedy"]):
        res.append({"image_id": i, "caption": [caption]})
    res_gts = {i: gts[image] for i, image in enumerate(images)}
_, scores = CiderD_scorer.compute_score(res_gts, res)
n = len(batch["samples"])
rewards = scores[:n] - scores[n:]
with open(out_file, "w") as fh:
    json.dump({"scores": scores.tolist(), "rewards": rewards.tolist(), "mean": float(np.mean(scores))}, fh)
