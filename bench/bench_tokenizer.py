"""Benchmark: capeval's PTB tokenizer against the official one, side by side.

Workload: the COCO val2014 human-agreement protocol (40,504 images; candidates are one human caption
per image, references the other four or so), tokenized like ``COCOEvalCap.evaluate`` does it: one
call for the references stream and one for the candidates stream (202,520 captions in total).

The official tokenizer is ``pycocoevalcap`` 1.2's ``PTBTokenizer`` (Java, stanford-corenlp 3.4.1),
run with the oracle's Python in a subprocess and timed inside that process the way the oracle times
it (both ``tokenize`` calls, JVM start-ups included). capeval runs in this process. The outputs of
both are compared caption by caption.

Usage::

    python bench/bench_tokenizer.py [--oracle-dir /tmp/capeval-oracle] [--repeat 5]

Prints both times, the ratio, the number of differing captions and peak memory (ru_maxrss) of both
sides.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from oracle import oracle_dir

# Runs inside the oracle's Python: builds the same two streams, times the official tokenizer.
_OFFICIAL_SCRIPT = r"""
import json, sys, time
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
results, refs, out = sys.argv[1:4]
cands = json.load(open(results))
refs = json.load(open(refs))
gts = {c["image_id"]: [{"caption": r} for r in refs[str(c["image_id"])]] for c in cands}
res = {c["image_id"]: [{"caption": c["caption"]}] for c in cands}
t0 = time.perf_counter()
tokenizer = PTBTokenizer()
gts_tok = tokenizer.tokenize(gts)
res_tok = tokenizer.tokenize(res)
seconds = time.perf_counter() - t0
json.dump({"seconds": seconds,
           "references": [t for k in gts for t in gts_tok[k]],
           "candidates": [res_tok[k][0] for k in res]}, open(out, "w"))
"""


def _load(oracle: Path) -> tuple[list[str], list[str]]:
    cands = json.loads((oracle / "human" / "human_results.json").read_text())
    refs = json.loads((oracle / "human" / "human_refs.json").read_text())
    references = [r for c in cands for r in refs[str(c["image_id"])]]
    candidates = [c["caption"] for c in cands]
    return references, candidates


def _run_capeval(
    references: list[str], candidates: list[str], repeat: int
) -> tuple[list[tuple[float, float]], list[str], list[str]]:
    from capeval.tokenizers.ptb import PTBTokenizer

    tokenizer = PTBTokenizer()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        c0 = time.process_time()
        ref_tok = tokenizer.tokenize(references)
        cand_tok = tokenizer.tokenize(candidates)
        times.append((time.perf_counter() - t0, time.process_time() - c0))
    return times, ref_tok, cand_tok


def _run_official(oracle: Path) -> tuple[float, list[str], list[str], float]:
    python = oracle / "venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "official.json"
        subprocess.run(
            [str(python), "-c", _OFFICIAL_SCRIPT, str(oracle / "human" / "human_results.json"),
             str(oracle / "human" / "human_refs.json"), str(out)],
            check=True,
        )  # fmt: skip
        result = json.loads(out.read_text())
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return result["seconds"], result["references"], result["candidates"], peak_mib


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle-dir", type=Path, default=oracle_dir())
    parser.add_argument("--repeat", type=int, default=7, help="capeval repetitions (first, median, best printed)")
    parser.add_argument("--official-runs", type=int, default=3, help="official repetitions (best is used)")
    args = parser.parse_args()

    references, candidates = _load(args.oracle_dir)
    n = len(references) + len(candidates)
    print(f"workload: val2014 human agreement, {len(references):,} references + {len(candidates):,} candidates "
          f"= {n:,} captions, two streams")  # fmt: skip

    t0 = time.perf_counter()
    import capeval.tokenizers.ptb  # noqa: F401 - import cost reported separately

    import_s = time.perf_counter() - t0
    times, ref_tok, cand_tok = _run_capeval(references, candidates, args.repeat)
    capeval_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    official_times = []
    for _ in range(args.official_runs):
        seconds, off_refs, off_cands, official_peak = _run_official(args.oracle_dir)
        official_times.append(seconds)
    official_s = min(official_times)

    diffs = sum(a != b for a, b in zip(ref_tok, off_refs, strict=False))
    diffs += sum(a != b for a, b in zip(cand_tok, off_cands, strict=False))
    size_ok = len(ref_tok) == len(off_refs) and len(cand_tok) == len(off_cands)

    walls = [wall for wall, _cpu in times]
    first, best, median = walls[0], min(walls), statistics.median(walls)
    cpu = min(c for _wall, c in times)
    print(f"capeval  : first {first:.3f} s, median {median:.3f} s, best {best:.3f} s of {len(walls)} runs "
          f"(best CPU time {cpu:.3f} s; + {import_s:.3f} s one-time import)")  # fmt: skip
    runs = ", ".join(f"{t:.3f}" for t in official_times)
    print(f"official : best {official_s:.3f} s of {len(official_times)} runs ({runs}; 2 JVM runs each)")
    print(f"ratio    : {official_s / first:.1f}x first run, {official_s / median:.1f}x median, "
          f"{official_s / best:.1f}x best (official best / capeval)")  # fmt: skip
    print(f"peak RSS : capeval process {capeval_peak:.0f} MiB, official (largest child) {official_peak:.0f} MiB")
    print(f"parity   : {diffs} differing captions of {n:,}" + ("" if size_ok else " (LENGTH MISMATCH)"))
    return 0 if diffs == 0 and size_ok else 1


if __name__ == "__main__":
    sys.exit(main())
