"""capeval vs the official COCO evaluation, side by side: tokenizer, BLEU, ROUGE-L, CIDEr-D.

Data: the COCO val2014 human-agreement protocol (40,504 images; each image's first caption
scored against its next four), built from the captions file the official package bundles.

Stages ``bleu@2`` and ``rouge-l@2`` run capeval with two worker processes (the default of
``capeval score`` on a 2-core machine) against the same single-process official scorer.

Each stage runs in a fresh process for both implementations; the time is the stage alone
(in-process, after loading the data), as the official figures are usually quoted, and the
peak resident memory is that process's. capeval's compiled kernels (numba) load once per
process, which `capeval score` pays once for all its metrics: that one-time load is measured
separately on a one-caption call before the stage ("load") and the ratio is printed with and
without it. Official scorer stages are fed the official
tokenizer's output, capeval's are fed capeval's own (identical) output.

Also measured: CIDEr-D as a reinforcement-learning reward (frozen document frequencies from
all 40,504 images' references, batches of 10 or 50 images x 6 sampled captions, the first
2,000 images), in captions per second, against the official ``Cider`` scoring the same batches
(one entry per caption, with its image's references). capeval scores one warm-up batch
first: building the hash tables of the frozen frequencies (~0.2 s for val2014) and loading
the compiled kernel (~0.2 s; ~2 s the very first time, when numba compiles it) are paid once
per training run, not per batch.

Usage:  python bench/bench_coco_metrics.py [--repeat 3] [--images N] [--json OUT]
Needs Java and network access to PyPI on first use (installs pycocoevalcap==1.2 into
$CAPEVAL_ORACLE_DIR, default /tmp/capeval-oracle).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from oracle import human_agreement_protocol, oracle_python, run_official

STAGES = ("tokenize", "bleu", "rouge-l", "cider-d", "bleu@2", "rouge-l@2", "reward-10", "reward-50")
OFFICIAL_STAGE = {"bleu": "bleu", "rouge-l": "rouge", "cider-d": "cider"}
#: Sampled captions per image in reward batches (self-critical training: 5 samples + 1 greedy).
SAMPLES = 6
#: Images whose captions are scored as rewards.
REWARD_IMAGES = 2000

_OFFICIAL_STAGE_SCRIPT = r"""
import json, resource, sys, time
job = json.load(open(sys.argv[1], encoding="utf-8"))
stage = job["stage"]
if stage == "tokenize":
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
    gts = {i: [{"caption": c} for c in refs] for i, refs in enumerate(job["references"])}
    res = {i: [{"caption": c}] for i, c in enumerate(job["candidates"])}
    t = time.perf_counter(); tok = PTBTokenizer(); tok.tokenize(gts); tok.tokenize(res); dt = time.perf_counter() - t
elif stage.startswith("reward"):
    from pycocoevalcap.cider.cider import Cider
    batches = job["batches"]
    t = time.perf_counter()
    for cands, refs in batches:
        gts = {i: r for i, r in enumerate(refs)}
        res = {i: [c] for i, c in enumerate(cands)}
        Cider().compute_score(gts, res)
    dt = time.perf_counter() - t
else:
    gts = {i: list(refs) for i, refs in enumerate(job["references"])}
    res = {i: [c] for i, c in enumerate(job["candidates"])}
    if stage == "bleu":
        import io, contextlib
        from pycocoevalcap.bleu.bleu import Bleu
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            Bleu(4).compute_score(gts, res)
        dt = time.perf_counter() - t
    elif stage == "rouge":
        from pycocoevalcap.rouge.rouge import Rouge
        t = time.perf_counter(); Rouge().compute_score(gts, res); dt = time.perf_counter() - t
    else:
        from pycocoevalcap.cider.cider import Cider
        t = time.perf_counter(); Cider().compute_score(gts, res); dt = time.perf_counter() - t
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
# The JVM of the tokenizer and METEOR is a child process: count its peak too.
peak = max(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"seconds": dt, "maxrss_mib": peak / 1024}))
"""


def _capeval_stage(job: dict[str, Any]) -> dict[str, float]:
    """Run one capeval stage in this (fresh) process."""
    stage = job["stage"]
    if stage == "tokenize":
        from capeval.tokenizers.ptb import PTBTokenizer

        tokenizer = PTBTokenizer()
        flat = [r for refs in job["references"] for r in refs]
        load = 0.0  # pure Python, nothing to load
        start = time.perf_counter()
        tokenizer.tokenize(flat)
        tokenizer.tokenize(job["candidates"])
        seconds = time.perf_counter() - start
    elif stage.startswith("reward"):
        import numpy as np

        from capeval.metrics.cider import CIDErD, DocumentFrequencies

        df = DocumentFrequencies.from_references(job["train_references"], name="train")
        metric = CIDErD(df=df, tokenizer="none")
        # Training scores thousands of batches in one process: the one-time costs (hash tables
        # of the frozen frequencies, loading the compiled kernel) stay out of the throughput.
        cands, refs = job["batches"][0]
        start = time.perf_counter()
        metric.score_batch(cands, np.arange(len(cands)) // SAMPLES, refs[::SAMPLES])
        load = time.perf_counter() - start
        start = time.perf_counter()
        for cands, refs in job["batches"]:
            index = np.arange(len(cands)) // SAMPLES
            metric.score_batch(cands, index, refs[::SAMPLES])
        seconds = time.perf_counter() - start
    else:
        from capeval.registry import get_metric

        # "bleu@2": the same metric with 2 worker processes (what `capeval score` uses on 2 cores).
        name, _, workers = stage.partition("@")
        metric = get_metric(name, tokenizer="none")
        # Compiled kernels load once per process (numba start-up and its on-disk cache): in a
        # `capeval score` run that happens once for all metrics, so it is timed on its own.
        start = time.perf_counter()
        metric.score_tokenized(candidates=["a man rides a horse"], references=[["a man on a horse"]])
        load = time.perf_counter() - start
        start = time.perf_counter()
        metric.score_tokenized(candidates=job["candidates"], references=job["references"], workers=int(workers or 1))
        seconds = time.perf_counter() - start
    # Worker processes (the "@2" stages) count too; a child's ru_maxrss includes what it inherited.
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": seconds, "load_s": load, "maxrss_mib": max(_peak_rss_kib(), children) / 1024}


def _peak_rss_kib() -> int:
    """Peak resident memory of this process image (VmHWM; ru_maxrss would count the parent's)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # pragma: no cover - non-Linux


def _run(cmd: list[str], job: dict[str, Any]) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as fh:
        json.dump(job, fh, ensure_ascii=False)
        path = fh.name
    try:
        out = subprocess.run([*cmd, path], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage; the median is reported")
    parser.add_argument("--images", type=int, default=0, help="use only the first N images (0: all 40,504)")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        with open(args.worker, encoding="utf-8") as fh:
            print(json.dumps(_capeval_stage(json.load(fh))))
        return 0

    protocol = human_agreement_protocol()
    if args.images:
        protocol = {k: v[: args.images] for k, v in protocol.items()}
    n = len(protocol["ids"])
    print(f"COCO val2014 human-agreement protocol: {n:,} images, 1 candidate + 4 references each", flush=True)
    official_tok = run_official(protocol["ids"], protocol["candidates"], protocol["references"], metrics=())
    keys = [str(i) for i in range(n)]
    tok_c = [official_tok["tokenized"]["candidates"][k] for k in keys]
    tok_r = [official_tok["tokenized"]["references"][k] for k in keys]

    python = str(oracle_python())
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(_OFFICIAL_STAGE_SCRIPT)
        official_script = fh.name
    capeval_cmd = [sys.executable, __file__, "--worker"]
    rows = []
    for stage in args.stages.split(","):
        if stage == "tokenize":
            job = {"stage": stage, "candidates": protocol["candidates"], "references": protocol["references"]}
            official_job = job
            unit = "s"
        elif stage.startswith("reward"):
            batch_images = int(stage.split("-")[1])
            batches = []
            for start in range(0, min(n, REWARD_IMAGES), batch_images):
                imgs = range(start, min(start + batch_images, n))
                # Six "samples" per image: its candidate and references used as sampled captions.
                cands = [([tok_c[i]] + tok_r[i] + [tok_c[i]])[s] for i in imgs for s in range(SAMPLES)]
                refs = [tok_r[i] for i in imgs for _ in range(SAMPLES)]
                batches.append((cands, refs))
            job = {"stage": stage, "batches": batches, "train_references": tok_r}
            official_job = {"stage": stage, "batches": batches}
            unit = "captions/s"
        else:
            job = {"stage": stage, "candidates": tok_c, "references": tok_r}
            official_job = {"stage": OFFICIAL_STAGE[stage.partition("@")[0]], "candidates": tok_c, "references": tok_r}
            unit = "s"
        ours = [_run(capeval_cmd, job) for _ in range(args.repeat)]
        theirs = [_run([python, official_script], official_job) for _ in range(args.repeat)]
        t_ours = statistics.median(r["seconds"] for r in ours)
        t_theirs = statistics.median(r["seconds"] for r in theirs)
        row = {
            "stage": stage,
            "capeval_s": t_ours,
            "official_s": t_theirs,
            "speedup": t_theirs / t_ours,
            "capeval_load_s": statistics.median(r["load_s"] for r in ours),
            "capeval_peak_mib": max(r["maxrss_mib"] for r in ours),
            "official_peak_mib": max(r["maxrss_mib"] for r in theirs),
        }
        if unit == "captions/s":
            n_caps = sum(len(c) for c, _ in job["batches"])
            row["capeval_captions_per_s"] = n_caps / t_ours
            row["official_captions_per_s"] = n_caps / t_theirs
        rows.append(row)
        print(
            f"{stage:9s} capeval {t_ours:7.3f} s (+{row['capeval_load_s']:.2f} s load)  official {t_theirs:7.3f} s  "
            f"ratio {row['speedup']:6.1f}x (with load {t_theirs / (t_ours + row['capeval_load_s']):5.1f}x)  "
            f"peak MiB capeval {row['capeval_peak_mib']:6.0f} official {row['official_peak_mib']:6.0f}"
            + (
                f"  ({row['capeval_captions_per_s']:,.0f} vs {row['official_captions_per_s']:,.0f} captions/s)"
                if unit == "captions/s"
                else ""
            ),
            flush=True,
        )
    os.unlink(official_script)
    by_stage = {row["stage"]: row for row in rows}
    if "cider-d" in by_stage:
        # The official code has no reward mode; its own throughput scoring the whole corpus is the
        # other natural baseline for "captions per second".
        corpus_rate = n / by_stage["cider-d"]["official_s"]
        for row in rows:
            if "capeval_captions_per_s" in row:
                row["vs_official_corpus_rate"] = row["capeval_captions_per_s"] / corpus_rate
                print(
                    f"{row['stage']:9s} {row['capeval_captions_per_s']:,.0f} captions/s = "
                    f"{row['vs_official_corpus_rate']:.1f}x the official CIDEr-D on the whole corpus "
                    f"({corpus_rate:,.0f} captions/s)"
                )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"n_images": n, "repeat": args.repeat, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
