# Individual scorers after PTBTokenizer, as captioning codebases call them.
# Usage: scorers_after_tokenizer.py CAPTIONS OUT
import json
import sys

from capeval.compat.pycocoevalcap.bleu.bleu import Bleu
from capeval.compat.pycocoevalcap.cider.cider import Cider
from capeval.compat.pycocoevalcap.meteor.meteor import Meteor
from capeval.compat.pycocoevalcap.rouge.rouge import Rouge
from capeval.compat.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

captions_file, out_file = sys.argv[1:3]
with open(captions_file) as fh:
    data = json.load(fh)
gts, res = {}, {}
for i, item in enumerate(data):
    gts[i] = [{"caption": c} for c in item["references"]]
    res[i] = [{"caption": item["candidate"]}]
tokenizer = PTBTokenizer()
gts = tokenizer.tokenize(gts)
res = tokenizer.tokenize(res)
scores = {}
for scorer, method in [
    (Bleu(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
    (Meteor(), "METEOR"),
    (Rouge(), "ROUGE_L"),
    (Cider(), "CIDEr"),
]:
    score, per_item = scorer.compute_score(gts, res)
    if isinstance(method, list):
        for m, s, items in zip(method, score, per_item, strict=False):
            scores[m] = [s, list(items)]
    else:
        scores[method] = [float(score), [float(x) for x in per_item]]
# Per-sample BLEU-4, one call per caption (sentence-level rewards).
bleu = Bleu(4)
scores["per_sample_bleu4"] = [bleu.compute_score({k: gts[k]}, {k: res[k]}, verbose=0)[0][3] for k in gts]
with open(out_file, "w") as fh:
    json.dump(scores, fh)
