"""Speed of nneval-v2 against NNEval on the bundled COCO demo (same process, side by side).

Both metrics are computed from scratch on the tokenized demo (1,000 val2014 images, the
official demo's fake captions, 5 references each), with fresh objects and SPICE's tuple cache
off, so parsing is timed for both. nneval-v2 also computes ROUGE-L and its text statistics;
the script prints the ratio of the two times (acceptance: within 2x) and the share of
nneval-v2's time spent in its model (network and trees) given the features.

Usage:  python bench/bench_nneval_v2.py [--repeat 3] [--json OUT]
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


def run(repeat: int) -> dict[str, Any]:
    from capeval.data import demo_paths
    from capeval.io import load_corpus
    from capeval.metrics.learned.nneval import NNEval
    from capeval.metrics.learned.nneval_v2 import NNEvalV2
    from capeval.registry import get_metric

    results_path, references_path = demo_paths()
    corpus = load_corpus(results_path, references_path)
    tokenizer = get_metric("bleu", tokenizer="ptb")
    cands, refs = tokenizer.tokenize(list(corpus.candidates), [list(r) for r in corpus.references])
    options = {"spice": {"cache": False}}
    # Warm-up: METEOR tables, SPICE's grammar, the word vectors.
    NNEvalV2(feature_options=options).score_tokenized(candidates=cands[:20], references=refs[:20])
    NNEval(feature_options=options).score_tokenized(candidates=cands[:20], references=refs[:20])
    times: dict[str, list[float]] = {"nneval": [], "nneval-v2": [], "v2-features": [], "v2-model": []}
    scores: dict[str, float] = {}
    for _ in range(repeat):
        seconds, r1 = _timed(lambda: NNEval(feature_options=options).score_tokenized(candidates=cands, references=refs))
        times["nneval"].append(seconds)
        v2 = NNEvalV2(feature_options=options)
        seconds, r2 = _timed(lambda v=v2: v.score_tokenized(candidates=cands, references=refs))
        times["nneval-v2"].append(seconds)
        fresh = NNEvalV2(feature_options=options)
        seconds, matrix = _timed(lambda f=fresh: f.feature_set.compute(cands, refs))
        times["v2-features"].append(seconds)
        seconds, _ = _timed(lambda m=fresh.model, x=matrix: m.predict(x))
        times["v2-model"].append(seconds)
        scores = {"nneval": r1.score, "nneval-v2": r2.score}
    median = {k: statistics.median(v) for k, v in times.items()}
    return {
        "items": len(cands),
        "repeat": repeat,
        "median_seconds": median,
        "ratio_v2_over_nneval": median["nneval-v2"] / median["nneval"],
        "model_share_of_features": median["v2-model"] / median["v2-features"],
        "scores": scores,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    out = run(args.repeat)
    for key, value in out["median_seconds"].items():
        print(f"{key:>12}: {value:8.3f} s (median of {out['repeat']})")
    print(f"nneval-v2 / nneval: {out['ratio_v2_over_nneval']:.2f}x (acceptance: <= 2x)")
    print(f"model (network and trees) share of nneval-v2's feature cost: {100 * out['model_share_of_features']:.3f}%")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2)


if __name__ == "__main__":
    main()
