"""METEOR: capeval against the official METEOR 1.5 jar (pycocoevalcap 1.2), side by side.

Data (both already PTB-tokenized by the official tokenizer, so only METEOR is timed):

* ``val2014``: the COCO val2014 human-agreement protocol, 40,504 images, each image's first
  caption against its next four (official tokenized text from
  ``$CAPEVAL_ORACLE_DIR/human/official_scores_human.json``, or from a live oracle run);
* ``demo``: the 1,000-image coco-caption demo (``tests/data/meteor/coco_demo_meteor.json.gz``).

Each run is a fresh process. ``wall`` is the whole process, end to end: interpreter start,
imports, reading the input, loading METEOR's data, scoring (for the official code: the JVM
start and its paraphrase-table load too). ``stage`` is the scoring call alone. ``CPU`` is user +
system time of the process tree (robust to other load on the machine). ``peak`` is the
largest resident set of the process tree (for the official code, the JVM's). Per-image scores
and the corpus score of both are compared as well. capeval's one-time set-up (data-cache
conversion, numba compilation) is done by an untimed warm-up run unless ``--cold``.

Usage:  python bench/bench_meteor.py [--data val2014,demo] [--repeat 1] [--threads N] [--cold]
Needs Java; the official package is installed from PyPI on first use by the tests' oracle helper
(``tests/oracle``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ORACLE = Path(os.environ.get("CAPEVAL_ORACLE_DIR", "/tmp/capeval-oracle"))

_CHILD_COMMON = r"""
import json, resource, sys, time
def cpu_s():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
def peak_mib():
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0
with open(sys.argv[1], encoding="utf-8") as fh:
    job = json.load(fh)
cands, refs = job["candidates"], job["references"]
"""

_CAPEVAL_CHILD = (
    _CHILD_COMMON
    + r"""
from capeval.metrics.meteor import METEOR
threads = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "auto" else None
t = time.perf_counter()
result = METEOR(tokenizer="none", n_threads=threads).score_tokenized(candidates=cands, references=refs)
stage = time.perf_counter() - t
json.dump({"stage": stage, "peak_mib": peak_mib(), "cpu": cpu_s(), "corpus": result.score,
           "items": result.item_scores.tolist()}, sys.stdout)
"""
)

_OFFICIAL_CHILD = (
    _CHILD_COMMON
    + r"""
from pycocoevalcap.meteor.meteor import Meteor
gts = {i: r for i, r in enumerate(refs)}
res = {i: [c] for i, c in enumerate(cands)}
t = time.perf_counter()
scorer = Meteor()
corpus, items = scorer.compute_score(gts, res)
stage = time.perf_counter() - t
del scorer  # Meteor.__del__ waits for the JVM, so its peak memory is counted below
json.dump({"stage": stage, "peak_mib": peak_mib(), "cpu": cpu_s(), "corpus": float(corpus),
           "items": [float(x) for x in items]}, sys.stdout)
"""
)


def _load_val2014() -> tuple[list[str], list[list[str]]]:
    stored = ORACLE / "human" / "official_scores_human.json"
    if stored.is_file():
        with open(stored, encoding="utf-8") as fh:
            data = json.load(fh)
        res, gts = data["tokenized"]["res"], data["tokenized"]["gts"]
        ids = [str(i) for i in data["meta"]["image_ids"]]
        return [res[i] if isinstance(res[i], str) else res[i][0] for i in ids], [gts[i] for i in ids]
    sys.path.insert(0, str(ROOT))
    from tests.oracle.oracle import human_agreement_protocol, run_official

    protocol = human_agreement_protocol()
    official = run_official(protocol["ids"], protocol["candidates"], protocol["references"], metrics=("meteor",))
    keys = [str(k) for k in range(len(protocol["ids"]))]  # the oracle keys items by position
    tok = official["tokenized"]
    return [tok["candidates"][k] for k in keys], [tok["references"][k] for k in keys]


def _load_demo() -> tuple[list[str], list[list[str]]]:
    with gzip.open(ROOT / "tests" / "data" / "meteor" / "coco_demo_meteor.json.gz", "rt", encoding="utf-8") as fh:
        items = json.load(fh)["items"]
    return [it["candidate"] for it in items], [it["references"] for it in items]


def _oracle_python() -> str:
    python = ORACLE / "venv" / "bin" / "python"
    if python.exists():
        return str(python)
    sys.path.insert(0, str(ROOT))
    from tests.oracle.oracle import oracle_python

    return str(oracle_python())


def _run(cmd: list[str]) -> dict[str, Any]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(proc.stdout)
    out["wall"] = wall
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="val2014,demo", help="comma-separated: val2014, demo")
    parser.add_argument("--repeat", type=int, default=1, help="runs per implementation (medians are shown)")
    parser.add_argument("--threads", default="auto", help="capeval aligner threads (default: available CPUs)")
    parser.add_argument("--cold", action="store_true", help="no warm-up run of capeval (include one-time set-up)")
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args(argv)

    loaders = {"val2014": _load_val2014, "demo": _load_demo}
    official_python = _oracle_python()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.data.split(","):
            cands, refs = loaders[name]()
            job = Path(tmp) / f"{name}.json"
            job.write_text(json.dumps({"candidates": cands, "references": refs}), encoding="utf-8")
            capeval_cmd = [sys.executable, "-c", _CAPEVAL_CHILD, str(job), args.threads]
            official_cmd = [official_python, "-c", _OFFICIAL_CHILD, str(job)]
            if not args.cold:
                _run(capeval_cmd)
            ours = [_run(capeval_cmd) for _ in range(args.repeat)]
            theirs = [_run(official_cmd) for _ in range(args.repeat)]
            row = {}
            for label, runs in (("official", theirs), ("capeval", ours)):
                row[label] = {k: statistics.median(r[k] for r in runs) for k in ("wall", "stage", "cpu", "peak_mib")}
            diffs = [abs(a - b) for a, b in zip(ours[0]["items"], theirs[0]["items"], strict=False)]
            row["items"] = len(cands)
            row["items_differing"] = sum(d > 1e-12 for d in diffs)
            row["max_item_diff"] = max(diffs) if diffs else 0.0
            row["corpus"] = {"official": theirs[0]["corpus"], "capeval": ours[0]["corpus"]}
            report[name] = row
            o, c = row["official"], row["capeval"]
            print(
                f"== METEOR on {name}: {len(cands)} images, {sum(len(r) for r in refs)} references "
                f"(median of {args.repeat}) =="
            )
            print(f"{'':10} {'wall s':>8} {'stage s':>8} {'CPU s':>8} {'peak MiB':>9}")
            for label, m in (("official", o), ("capeval", c)):
                print(f"{label:10} {m['wall']:8.2f} {m['stage']:8.2f} {m['cpu']:8.2f} {m['peak_mib']:9.0f}")
            print(
                f"ratio official/capeval: {o['wall'] / c['wall']:.1f}x wall end to end, "
                f"{o['stage'] / c['stage']:.1f}x scoring stage, {o['cpu'] / c['cpu']:.1f}x CPU time, "
                f"{o['peak_mib'] / c['peak_mib']:.1f}x peak memory"
            )
            print(
                f"parity: {row['items'] - row['items_differing']}/{row['items']} images within 1e-12 "
                f"(max diff {row['max_item_diff']:.3g}); corpus official {row['corpus']['official']!r} "
                f"capeval {row['corpus']['capeval']!r}"
            )
            print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
