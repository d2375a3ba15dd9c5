# A self-critical CIDEr-D reward batch with a cached df pickle. Usage: cider_reward.py BATCH.json WORKDIR OUT.json
# WORKDIR holds data/<df>.p; BATCH has "df", "gts" ({id: [word-index strings]}), "samples", "greedy".
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
for i, caption in enumerate(batch["samples"] + batch["greedy"]):
    res.append({"image_id": i, "caption": [caption]})
res_gts = {i: gts[image] for i, image in enumerate(batch["images"] + batch["images"])}
_, scores = CiderD_scorer.compute_score(res_gts, res)
n = len(batch["samples"])
rewards = scores[:n] - scores[n:]
with open(out_file, "w") as fh:
    json.dump({"scores": scores.tolist(), "rewards": rewards.tolist(), "mean": float(np.mean(scores))}, fh)
