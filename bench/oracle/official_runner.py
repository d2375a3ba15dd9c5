"""Run the official pycocoevalcap 1.2 scorers; executed with the oracle's own Python.

Usage: python official_runner.py INPUT.json OUTPUT.json

INPUT holds ``{"ids": [...], "candidates": [...], "references": [[...], ...],
"metrics": ["bleu", "meteor", "rouge", "cider"], "tokenize": true}``. The captions go through
the official ``PTBTokenizer`` (references and candidates as two calls, in item order) and then
the unmodified scorers, driven the way ``COCOEvalCap.evaluate`` drives them. OUTPUT receives
the corpus and per-item scores, BLEU's pooled counts, the tokenized text and stage timings.
"""

import contextlib
import io
import json
import sys
import time


def main(in_path, out_path):
    with open(in_path, encoding="utf-8") as fh:
        job = json.load(fh)
    keys = list(range(len(job["ids"])))
    gts = {k: [{"caption": c} for c in refs] for k, refs in zip(keys, job["references"], strict=True)}
    res = {k: [{"caption": c}] for k, c in zip(keys, job["candidates"], strict=True)}
    timings = {}
    if job.get("tokenize", True):
        from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

        start = time.perf_counter()
        tokenizer = PTBTokenizer()
        gts_tok = tokenizer.tokenize(gts)
        res_tok = tokenizer.tokenize(res)
        timings["tokenize"] = time.perf_counter() - start
    else:
        gts_tok = {k: [c["caption"] for c in v] for k, v in gts.items()}
        res_tok = {k: [c["caption"] for c in v] for k, v in res.items()}
    # Items whose lines were lost by the official tokenizer cannot be scored officially.
    scored = [k for k in keys if k in gts_tok and k in res_tok]
    gts_tok = {k: gts_tok[k] for k in scored}
    res_tok = {k: res_tok[k] for k in scored}
    corpus, per_item, bleu_stats = {}, {str(k): {} for k in scored}, None

    def put(name, score, scores):
        corpus[name] = float(score)
        for k, value in zip(scored, scores, strict=True):
            per_item[str(k)][name] = float(value)

    metrics = job.get("metrics", ["bleu", "meteor", "rouge", "cider"])
    if "bleu" in metrics:
        from pycocoevalcap.bleu.bleu import Bleu

        buffer = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(buffer):
            score, scores = Bleu(4).compute_score(gts_tok, res_tok, verbose=1)
        timings["bleu"] = time.perf_counter() - start
        for i in range(4):
            put(f"Bleu_{i + 1}", score[i], scores[i])
        import ast

        bleu_stats = ast.literal_eval(buffer.getvalue().strip().splitlines()[0])
    if "meteor" in metrics:
        from pycocoevalcap.meteor.meteor import Meteor

        start = time.perf_counter()
        scorer = Meteor()
        score, scores = scorer.compute_score(gts_tok, res_tok)
        del scorer
        timings["meteor"] = time.perf_counter() - start
        put("METEOR", score, scores)
    if "rouge" in metrics:
        from pycocoevalcap.rouge.rouge import Rouge

        start = time.perf_counter()
        score, scores = Rouge().compute_score(gts_tok, res_tok)
        timings["rouge"] = time.perf_counter() - start
        put("ROUGE_L", score, scores)
    if "cider" in metrics:
        from pycocoevalcap.cider.cider import Cider

        start = time.perf_counter()
        score, scores = Cider().compute_score(gts_tok, res_tok)
        timings["cider"] = time.perf_counter() - start
        put("CIDEr", score, scores)
    out = {
        "oracle": "pycocoevalcap==1.2",
        "corpus": corpus,
        "per_item": per_item,
        "bleu_stats": bleu_stats,
        "tokenized": {
            "candidates": {str(k): v[0] for k, v in res_tok.items()},
            "references": {str(k): v for k, v in gts_tok.items()},
        },
        "timings_s": timings,
    }
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
