"""CIDEr-D reward throughput: the compat ``CiderD``, the native API and the official scorer, same batches.

Self-critical training scores, per step, a batch of images x (5 sampled + 1 greedy) captions
against each image's references, with document frequencies frozen from the training references
(``CiderD(df="coco-train-idxs")``). Data: the COCO val2014 human-agreement protocol (each image's
first caption and next four, PTB-tokenized); document frequencies of all 40,504 images'
references, written as a self-critical pickle; reward batches of 10 and 50 images x 6 captions
from the first 2,000 images.

* ``compat``: ``capeval.compat.pyciderevalcap.ciderD.ciderD.CiderD(df=<pickle>).compute_score(gts, res)``
  with ``res`` a list of ``{"image_id", "caption": [str]}``, as the training code calls it;
* ``native``: ``CIDErD(df=DocumentFrequencies, tokenizer="none").score_batch(..., tokenized=True)``;
* ``official``: pyciderevalcap is not on the package index, so the official ``pycocoevalcap`` 1.2
  ``CiderScorer`` with the pickle's frequencies and ``log(ref_len)`` (what ``pyciderevalcap.ciderD``
  computes; ``tests/compat/official_ciderd.py``), in the oracle's Python, on the same batches.

The one-time costs (reading the pickle, building the index, loading the compiled kernel) are paid
once per training run and stay out of the throughput; they are printed separately. compat and native
alternate in one process so background load affects both alike. Acceptance: compat costs at most
2x native.

Usage:  python bench/bench_cider_reward.py [--repeat 3] [--images 2000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from oracle import human_agreement_protocol, oracle_python

#: Captions per image in a reward batch (5 samples + 1 greedy).
SAMPLES = 6
BATCH_IMAGES = (10, 50)

_OFFICIAL = r"""
import json, pickle, sys, time
import numpy as np
from pycocoevalcap.cider.cider_scorer import CiderScorer
job = json.load(open(sys.argv[1]))
t = time.perf_counter()
with open(job["pickle"], "rb") as fh:
    cached = pickle.load(fh, encoding="latin1")
load = time.perf_counter() - t
class Refs(list):
    def __len__(self):
        return cached["ref_len"]
times, first = [], None
for _ in range(job["repeat"]):
    t = time.perf_counter()
    for cands, refs in job["batches"]:
        scorer = CiderScorer(n=4, sigma=6.0)
        for c, r in zip(cands, refs):
            scorer += (c, r)
        scorer.document_frequency = cached["document_frequency"]
        scorer.crefs = Refs(scorer.crefs)
        scores = scorer.compute_cider()
        if first is None:
            first = [float(x) for x in scores]
    times.append(time.perf_counter() - t)
print(json.dumps({"seconds": times, "load_s": load, "first": first}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--images", type=int, default=2000, help="images whose captions are scored as rewards")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()

    import numpy as np

    from capeval.compat.dfpickle import count_document_frequencies, read_df, save_df_pickle
    from capeval.compat.pyciderevalcap.ciderD.ciderD import CiderD
    from capeval.metrics.cider import CIDErD
    from capeval.tokenizers.ptb import PTBTokenizer

    protocol = human_agreement_protocol()
    tokenizer = PTBTokenizer()
    cands_tok = tokenizer.tokenize(protocol["candidates"])
    flat = tokenizer.tokenize([r for refs in protocol["references"] for r in refs])
    refs_tok = [flat[4 * i : 4 * i + 4] for i in range(len(cands_tok))]
    work = Path(tempfile.mkdtemp(prefix="capeval-bench-reward-"))
    table, n_docs = count_document_frequencies(refs_tok)
    pickle_path = work / "coco-val-words.p"
    save_df_pickle(pickle_path, table, n_docs)
    print(f"document frequencies: {len(table):,} n-grams of {n_docs:,} images -> {pickle_path}", flush=True)

    rows = []
    for batch_images in BATCH_IMAGES:
        batches = []
        for start in range(0, min(args.images, len(cands_tok)), batch_images):
            imgs = range(start, min(start + batch_images, args.images))
            # Six "samples" per image: its candidate, its references and the candidate again.
            cands = [([cands_tok[i]] + refs_tok[i] + [cands_tok[i]])[s] for i in imgs for s in range(SAMPLES)]
            refs = [refs_tok[i] for i in imgs for _ in range(SAMPLES)]
            batches.append((cands, refs))
        n_caps = sum(len(c) for c, _ in batches)

        start = time.perf_counter()
        compat = CiderD(df=str(pickle_path))
        compat_load = time.perf_counter() - start
        start = time.perf_counter()
        native = CIDErD(df=read_df(str(pickle_path)), tokenizer="none")
        native_load = time.perf_counter() - start

        def run_compat(batches: list[Any] = batches, scorer: Any = compat) -> list[Any]:
            out = []
            for cands, refs in batches:
                # The self-critical layout: one entry per caption, gts keyed like res.
                res = [{"image_id": i, "caption": [c]} for i, c in enumerate(cands)]
                gts = {i: r for i, r in enumerate(refs)}
                out.append(scorer.compute_score(gts, res)[1])
            return out

        def run_native(batches: list[Any] = batches, metric: Any = native) -> list[Any]:
            out = []
            for cands, refs in batches:
                index = np.arange(len(cands)) // SAMPLES
                out.append(metric.score_batch(cands, index, refs[::SAMPLES], tokenized=True))
            return out

        run_compat(batches[:1])  # warm-up: hash tables, compiled kernel
        run_native(batches[:1])
        t_compat, t_native = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            compat_scores = run_compat()
            t_compat.append(time.perf_counter() - start)
            start = time.perf_counter()
            native_scores = run_native()
            t_native.append(time.perf_counter() - start)
        job = work / "job.json"
        job.write_text(json.dumps({"pickle": str(pickle_path), "batches": batches, "repeat": args.repeat}))
        script = work / "official.py"
        script.write_text(_OFFICIAL)
        official = json.loads(
            subprocess.run(
                [str(oracle_python(need_java=False)), str(script), str(job)], check=True, capture_output=True, text=True
            ).stdout
        )
        diff = float(np.max(np.abs(np.asarray(official["first"]) - compat_scores[0])))
        agree = float(max(np.max(np.abs(a - b)) for a, b in zip(compat_scores, native_scores, strict=True)))
        row = {
            "batch": f"{batch_images} images x {SAMPLES}",
            "captions": n_caps,
            "compat_captions_per_s": n_caps / statistics.median(t_compat),
            "native_captions_per_s": n_caps / statistics.median(t_native),
            "official_captions_per_s": n_caps / statistics.median(official["seconds"]),
            "compat_load_s": compat_load,
            "native_load_s": native_load,
            "official_load_s": official["load_s"],
            "max_abs_diff_vs_official_first_batch": diff,
            "max_abs_diff_compat_vs_native": agree,
        }
        row["compat_cost_vs_native"] = row["native_captions_per_s"] / row["compat_captions_per_s"]
        row["compat_speedup_vs_official"] = row["compat_captions_per_s"] / row["official_captions_per_s"]
        rows.append(row)
        print(
            f"{row['batch']:16s} compat {row['compat_captions_per_s']:10,.0f}  "
            f"native {row['native_captions_per_s']:10,.0f}"
            f"  official {row['official_captions_per_s']:8,.0f} captions/s | compat/native cost "
            f"{row['compat_cost_vs_native']:.2f}x, compat vs official {row['compat_speedup_vs_official']:.0f}x | "
            f"load s: compat {compat_load:.2f} native {native_load:.2f} official {official['load_s']:.2f} | "
            f"|diff| official {diff:.1e}, native {agree:.1e}",
            flush=True,
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if all(r["compat_cost_vs_native"] <= 2.0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
