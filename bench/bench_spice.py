"""SPICE fidelity and speed against official SPICE 1.0 outputs.

Official SPICE needs Stanford CoreNLP 3.6.0, which cannot be installed here, so this script
compares with official outputs stored in ``../shared`` instead of running the jar:

1. parser fidelity on ``shared/data/spice/official_parser_outputs_dev.txt`` (official
   SPICE-parser tuples for 1,226 captions): share of captions whose attribute+relation
   set equals the official one, and tuple precision/recall/F1;
2. score fidelity on ``shared/data/flickr8k-expert-dev/flickr8k_expert_dev.tsv`` (official
   per-caption SPICE F): Pearson r, mean absolute error, share exactly equal, corpus mean,
   Kendall tau-c against the expert ratings (one row per expert score) next to the
   official value on the same rows; raw text and COCO-style preprocessing; and where the
   error sits (r and mean with one of the official tp / candidate / reference counts put in
   place of capeval's);
3. corpus SPICE on the COCO caption-evaluation demo (1,000 val2014 images, the official
   COCOEvalCap PTB-tokenized text) against the value the official demo notebook prints (0.133);
4. speed on the Flickr8K set: cold (fresh cache, model load included), with the reference
   cache warm, and fully warm; captions per second.

Every fidelity figure is given for the default parser (PCFG fragment emulation on), without
the fragment emulation, and with the noun-phrase attachment emulation added.

Usage: ``python bench/bench_spice.py [--shared ../shared]``
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

from capeval.metrics.spice import SPICE
from capeval.metrics.spice.graph import SceneGraph, graph_tuples
from capeval.metrics.spice.spacy_parser import SpacyParser
from capeval.metrics.spice.synonyms import load_synonyms
from capeval.tokenizers.base import get_tokenizer

#: Per-item values closer than this count as exactly equal.
_EXACT_TOLERANCE = 1e-9
#: Corpus SPICE printed by the official COCO caption-evaluation demo notebook (3 decimals).
_COCO_DEMO_OFFICIAL = 0.133


class _CocoFallback:
    """COCO-style preprocessing when capeval's PTB tokenizer is not installed: spaCy tokens,
    lower-cased, the COCO evaluation's punctuation tokens removed."""

    name = "coco-fallback"
    _PUNCT = {"''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"}

    def __init__(self) -> None:
        import spacy

        self._nlp = spacy.blank("en")

    def tokenize(self, texts: list[str]) -> list[str]:
        out = []
        for doc in self._nlp.pipe(texts):
            out.append(" ".join(t.text.lower() for t in doc if t.text not in self._PUNCT and not t.is_space))
        return out


def coco_tokenizer():  # noqa: ANN201
    try:
        return get_tokenizer("ptb")
    except (ImportError, ValueError, AttributeError):
        return _CocoFallback()


def parser_fidelity(path: Path, options: dict[str, bool]) -> dict[str, float]:
    lines = [line.rstrip("\n").split("\t") for line in path.open(encoding="utf-8") if line.strip()]
    parser = SpacyParser(**options)
    synonyms = load_synonyms()
    raw = parser.parse([text for text, _ in lines])
    exact = tp = fp = fn = 0
    for (_, official), tuples in zip(lines, raw, strict=True):
        graph = SceneGraph(synonyms.concept_synsets, merge=True)
        graph.add_tuples(tuples)
        ours = set()
        for tup in graph_tuples(graph):
            words = [str(c) for c in tup]
            ours.add((words[0], "is", words[1]) if len(words) == 2 else tuple(words))
        # A merged concept prints its words in Java hash order ("tail/dog"); capeval sorts them.
        theirs = {
            tuple("/".join(sorted(p.strip().split("/"))) for p in m.split(" , "))
            for m in re.findall(r"\(([^()]*)\)", official)
        }
        if any(len(t) > 1 for t in theirs) or any(len(t) > 1 for t in ours):
            ours = {t for t in ours if len(t) > 1}
        exact += ours == theirs
        tp += len(ours & theirs)
        fp += len(ours - theirs)
        fn += len(theirs - ours)
    p, r = tp / (tp + fp), tp / (tp + fn)
    return {"n": len(lines), "exact": exact / len(lines), "p": p, "r": r, "f1": 2 * p * r / (p + r)}


def load_flickr(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def score_fidelity(rows: list[dict[str, str]], tokenizer: str | object, options: dict[str, bool]) -> dict[str, float]:
    candidates = [r["candidate"] for r in rows]
    references = [r["references"].split(" ||| ") for r in rows]
    official = np.array([float(r["spice_f"]) for r in rows])
    with tempfile.TemporaryDirectory() as tmp:
        metric = SPICE(tokenizer=tokenizer, cache=Path(tmp) / "c.sqlite", detailed=False, **options)
        result = metric.score(candidates=candidates, references=references)
    ours = result.item_scores
    # "All" category counts (first block of the statistics row): tp, fp, fn.
    tp, fp, fn = (result.stats[:, k] for k in (4, 5, 6))
    off_tp, off_fp, off_fn = (np.array([float(r[k]) for r in rows]) for k in ("tp", "fp", "fn"))
    experts, ours_rows, official_rows = [], [], []
    for r, o, off in zip(rows, ours, official, strict=True):
        for k in ("expert1", "expert2", "expert3"):
            experts.append(float(r[k]))
            ours_rows.append(o)
            official_rows.append(off)
    return {
        "pearson": float(stats.pearsonr(ours, official)[0]),
        "mae": float(np.abs(ours - official).mean()),
        "exact": float((np.abs(ours - official) < _EXACT_TOLERANCE).mean()),
        "mean": float(ours.mean()),
        "official_mean": float(official.mean()),
        "tau_c": 100 * float(stats.kendalltau(ours_rows, experts, variant="c")[0]),
        "official_tau_c": 100 * float(stats.kendalltau(official_rows, experts, variant="c")[0]),
        # bias decomposition: matched tuples, candidate and merged-reference tuple counts
        "tp": float(tp.mean()),
        "official_tp": float(off_tp.mean()),
        "cand": float((tp + fp).mean()),
        "official_cand": float((off_tp + off_fp).mean()),
        "ref": float((tp + fn).mean()),
        "official_ref": float((off_tp + off_fn).mean()),
        "cand_exact": float(((tp + fp) == (off_tp + off_fp)).mean()),
        "ref_exact": float(((tp + fn) == (off_tp + off_fn)).mean()),
        "tp_differ": int((tp != off_tp).sum()),
        # Where the error sits: per-item F with one official count put in place of capeval's.
        "swap": {
            name: _swap_figures(official, *counts)
            for name, counts in (
                ("official candidate count", (tp, off_tp + off_fp, tp + fn)),
                ("official merged-reference count", (tp, tp + fp, off_tp + off_fn)),
                ("official matched count", (off_tp, tp + fp, tp + fn)),
                ("official matched and reference counts", (off_tp, tp + fp, off_tp + off_fn)),
            )
        },
    }


def _f_score(tp: np.ndarray, n_cand: np.ndarray, n_ref: np.ndarray) -> np.ndarray:
    """SPICE's F from counts (0 where a count is 0, as the official code gives it)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n_cand > 0, tp / n_cand, 0.0)
        r = np.where(n_ref > 0, tp / n_ref, 0.0)
        return np.where((p > 0) & (r > 0), 2 * p * r / (p + r), 0.0)


def _swap_figures(official: np.ndarray, tp: np.ndarray, n_cand: np.ndarray, n_ref: np.ndarray) -> tuple[float, float]:
    f = _f_score(tp, n_cand, n_ref)
    return float(stats.pearsonr(f, official)[0]), float(f.mean() - official.mean())


def coco_demo(path: Path, options: dict[str, bool]) -> float:
    with path.open(encoding="utf-8") as handle:
        tokenized = json.load(handle)["tokenized"]
    ids = list(tokenized["res"])
    candidates = [tokenized["res"][i] for i in ids]
    candidates = [c[0] if isinstance(c, list) else c for c in candidates]
    references = [tokenized["gts"][i] for i in ids]
    metric = SPICE(tokenizer="none", cache=False, detailed=False, **options)
    return metric.score(candidates=candidates, references=references).score


def _timed(fn) -> tuple[float, float]:  # noqa: ANN001
    """Wall-clock and CPU seconds of ``fn()`` (CPU time is what an idle machine's wall time would be)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def speed(rows: list[dict[str, str]]) -> dict[str, float]:
    candidates = [r["candidate"] for r in rows]
    references = [r["references"].split(" ||| ") for r in rows]
    n_captions = len(set(candidates)) + len({x for refs in references for x in refs})

    def run(cache: Path) -> None:
        SPICE(tokenizer="none", cache=cache).score(candidates=candidates, references=references)

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "spice.sqlite"
        cold = _timed(lambda: run(cache))
        refs_only = Path(tmp) / "refs.sqlite"
        SPICE(tokenizer="none", cache=refs_only).parse([x for refs in references for x in refs])
        warm_refs = _timed(lambda: run(refs_only))
        warm_all = _timed(lambda: run(cache))
    return {
        "items": len(rows),
        "distinct_captions": n_captions,
        "cold_s": cold[0],
        "cold_cpu_s": cold[1],
        "warm_refs_s": warm_refs[0],
        "warm_refs_cpu_s": warm_refs[1],
        "warm_all_s": warm_all[0],
        "warm_all_cpu_s": warm_all[1],
        "cold_captions_per_s": n_captions / cold[0],
        "cold_captions_per_cpu_s": n_captions / cold[1],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    args = ap.parse_args(argv)
    parser_file = args.shared / "data" / "spice" / "official_parser_outputs_dev.txt"
    flickr_file = args.shared / "data" / "flickr8k-expert-dev" / "flickr8k_expert_dev.tsv"
    coco_file = args.shared / "data" / "coco-demo" / "official_scores.json"
    if not all(f.is_file() for f in (parser_file, flickr_file, coco_file)):
        print(f"shared data not found under {args.shared}", file=sys.stderr)
        return 2
    configurations = {
        "default": {},
        "emulate_fragments=False": {"emulate_fragments": False},
        "emulate_attachment": {"emulate_attachment": True},
    }
    rows = load_flickr(flickr_file)

    print("== speed (Flickr8K-Expert dev, raw text, default options) ==")
    for key, value in speed(rows).items():
        print(f"  {key:22s} {value:.2f}" if isinstance(value, float) else f"  {key:22s} {value}")
    print(f"   load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; *_cpu_s = process CPU time")
    print("   official SPICE cannot run here (no CoreNLP 3.6.0); no side-by-side ratio")

    for label, options in configurations.items():
        fid = parser_fidelity(parser_file, options)
        print(f"== parser fidelity, official_parser_outputs_dev.txt ({label}) ==")
        print(
            f"  captions {fid['n']}  attr+rel set exact {100 * fid['exact']:.1f}%  "
            f"tuple P {fid['p']:.3f} R {fid['r']:.3f} F1 {fid['f1']:.3f}"
        )
        for name, tokenizer in (("raw", "none"), ("coco", coco_tokenizer())):
            res = score_fidelity(rows, tokenizer, options)
            tok_name = getattr(tokenizer, "name", tokenizer)
            print(f"== score fidelity, Flickr8K-Expert dev, {name} (tok {tok_name}, {label}) ==")
            print(
                f"  pearson {res['pearson']:.4f}  MAE {res['mae']:.4f}  exact {100 * res['exact']:.1f}%  "
                f"mean {res['mean']:.5f} (official {res['official_mean']:.5f}, "
                f"diff {res['mean'] - res['official_mean']:+.5f})  "
                f"tau-c {res['tau_c']:.2f} (official {res['official_tau_c']:.2f})"
            )
            print(
                f"  per item: tp {res['tp']:.3f} (official {res['official_tp']:.3f})  "
                f"candidate tuples {res['cand']:.2f} ({res['official_cand']:.2f}, "
                f"exact {100 * res['cand_exact']:.1f}%)  "
                f"reference tuples {res['ref']:.2f} ({res['official_ref']:.2f}, exact {100 * res['ref_exact']:.1f}%)"
            )
            print(f"  items whose matched count differs from official: {res['tp_differ']}")
            for what, (r, bias) in res["swap"].items():
                print(f"    F with {what}: pearson {r:.4f}  mean diff {bias:+.5f}")
            if math.isnan(res["pearson"]):
                return 1
        value = coco_demo(coco_file, options)
        print(f"== corpus SPICE, COCO demo (1,000 images, official PTB-tokenized text, {label}) ==")
        print(f"  ours {value:.4f}  official {_COCO_DEMO_OFFICIAL:.3f}  diff {value - _COCO_DEMO_OFFICIAL:+.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
