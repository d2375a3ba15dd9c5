"""Cost of NNEval on top of its features, and of each feature, on the bundled COCO demo.

NNEval's score is a tiny network over BLEU-1..4, METEOR, CIDEr-D, SPICE and WMD, so its cost
is essentially that of its features. This script measures, in one process after tokenizing:

* each feature metric alone (fresh objects; SPICE's tuple cache off, so parsing is timed);
* NNEval given those results (``features=``): normalisation, network, result building;
* NNEval from scratch (computing its own features, fresh objects, SPICE cache off);

and prints the learned part as a share of the feature cost (acceptance: < 20%). There is no
official side to compare with: the original NNEval needs Python 2.7 and TensorFlow 1.5.

Data: the COCO demo bundled with capeval (1,000 val2014 images, the official demo's fake
captions, 5 references each), or ``--repeat-corpus K`` copies of it for a larger run.

Usage:  python bench/bench_nneval.py [--repeat 3] [--repeat-corpus 1] [--json OUT]
Needs pycocoevalcap 1.2 installed (METEOR's data) and SPICE's parser grammar (CoreNLP 3.6.0's englishPCFG).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any


def _timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def run(repeat: int, copies: int) -> dict[str, Any]:
    from capeval.data import demo_paths
    from capeval.io import load_corpus
    from capeval.metrics.learned.nneval import FEATURE_SOURCES, NNEval, load_model
    from capeval.registry import get_metric

    results_path, references_path = demo_paths()
    corpus = load_corpus(results_path, references_path)
    candidates = list(corpus.candidates) * copies
    references = [list(r) for r in corpus.references] * copies
    tokenizer = get_metric("bleu", tokenizer="ptb")
    cand_tok, ref_tok = tokenizer.tokenize(candidates, references)
    model = load_model()
    keys = list(dict.fromkeys(FEATURE_SOURCES[f] for f in model.features))
    options = {"spice": {"cache": False}}

    # Warm-up: load METEOR tables, SPICE's grammar and the word vectors once, outside the timings.
    warm = NNEval(model=model, feature_options=options)
    warm.score_tokenized(candidates=cand_tok[:20], references=ref_tok[:20])

    times: dict[str, list[float]] = {k: [] for k in [*keys, "features", "nneval|features", "nneval-scratch"]}
    for _ in range(repeat):
        feature_results = {}
        # The feature metrics as NNEval builds them (SPICE on the exact parser whatever the default).
        built = NNEval(model=model, feature_options=options).requires
        for key in keys:
            metric = built[key]
            seconds, feature_results[key] = _timed(
                lambda m=metric: m.score_tokenized(candidates=cand_tok, references=ref_tok)
            )
            times[key].append(seconds)
        times["features"].append(sum(times[k][-1] for k in keys))
        nneval = NNEval(model=model, feature_options=options)
        seconds, reused = _timed(
            lambda n=nneval, f=feature_results: n.score_tokenized(candidates=cand_tok, references=ref_tok, features=f)
        )
        times["nneval|features"].append(seconds)
        scratch = NNEval(model=model, feature_options=options)
        seconds, fresh = _timed(lambda s=scratch: s.score_tokenized(candidates=cand_tok, references=ref_tok))
        times["nneval-scratch"].append(seconds)
        if abs(fresh.score - reused.score) > 1e-12:
            raise RuntimeError(f"reused features gave {reused.score}, fresh ones {fresh.score}")
    median = {k: statistics.median(v) for k, v in times.items()}
    return {
        "items": len(cand_tok),
        "repeat": repeat,
        "median_seconds": median,
        "learned_share_of_features": median["nneval|features"] / median["features"],
        "scratch_over_features": median["nneval-scratch"] / median["features"],
        "nneval": fresh.score,
        "signature": str(fresh.signature),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-corpus", type=int, default=1, help="copies of the demo corpus")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    out = run(args.repeat, args.repeat_corpus)
    print(f"NNEval on {out['items']:,} COCO demo items (median of {out['repeat']} runs, seconds)")
    for key, seconds in out["median_seconds"].items():
        print(f"  {key:<16} {seconds:8.3f}")
    print(f"learned part / features: {100 * out['learned_share_of_features']:.2f}% (acceptance: < 20%)")
    print(f"NNEval from scratch / features run separately: {out['scratch_over_features']:.3f}x")
    print(f"NNEval = {out['nneval']:.4f}  {out['signature']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2)


if __name__ == "__main__":
    main()
