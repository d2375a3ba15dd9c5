"""The speed report: capeval and the official COCO evaluation side by side on the val2014 protocol.

Data: the COCO val2014 human-agreement protocol (40,504 images; each image's first caption
scored against its next four), built from the captions file the official package bundles.

Rows:

* ``tokenize`` ... ``cider-d``: each stage inside the whole-corpus run below (the official
  stage times are the official runner's own, capeval's are ``Evaluation.timings``; with more
  than one worker METEOR runs in a forked process alongside the other metrics, so capeval's
  stages overlap: each is the wall time from the metric's start to its result);
* ``whole process``: one fresh process each, end to end — interpreter start, imports, reading
  the input, PTB tokenization and BLEU + METEOR + ROUGE-L + CIDEr-D, and writing every score:
  the official code as ``COCOEvalCap`` runs it (starting its Java tokenizer and METEOR), capeval
  as the ``capeval score`` command (results and COCO references files in, ``--format json`` and
  ``--per-image`` out, one worker process per CPU). ``library`` is the same work through
  ``capeval.engines.evaluate`` on the job's lists, as the official side is driven (no file
  checks, per-item scores written with ``json.dump``);
* ``METEOR alone``: METEOR on the official tokenized text, whole process (``bench_meteor.py``).

``peak MiB`` is the largest resident set of the process tree (for the official code, the JVM's
when larger). capeval's one-time set-up (METEOR data conversion, numba compilation) is done by
an untimed warm-up run. Per-image and corpus numbers of both are compared.

Usage:  python bench/bench_report.py [--repeat 1] [--json OUT]
Needs Java and the official package (installed into $CAPEVAL_ORACLE_DIR by the tests' oracle helper).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_meteor
from oracle import human_agreement_protocol, oracle_python

ROOT = Path(__file__).resolve().parents[1]

STAGES = (("tokenize", "tokenize"), ("bleu", "bleu"), ("meteor", "meteor"), ("rouge-l", "rouge"), ("cider-d", "cider"))

#: The ``capeval`` command, run by this interpreter (as its console script runs it).
_CAPEVAL_COMMAND = "import sys; from capeval.cli.main import console; sys.exit(console())"

#: The same scoring through the library (``evaluate`` on the job's lists, per-item scores written
#: with ``json.dump``), as the official side is driven: the "library" row.
_CAPEVAL_LIBRARY = r"""
import json, sys
with open(sys.argv[1], encoding="utf-8") as fh:
    job = json.load(fh)
from capeval.engines.local import evaluate
ev = evaluate(candidates=job["candidates"], references=job["references"], ids=list(range(len(job["ids"]))),
              metrics=["bleu", "meteor", "rouge-l", "cider-d"], workers=int(sys.argv[3]))
names = ev.official_names()
out = {"corpus": ev.official_scores(),
       "per_item": {names[k]: r.item_table[k].tolist() for r in ev.results.values() for k in r.item_table
                    if k in names}}
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    json.dump(out, fh)
"""


def _capeval_inputs(protocol: dict[str, Any], tmp: Path) -> tuple[Path, Path]:
    """The protocol as the files a user hands to ``capeval score`` (item ``k`` is image id ``k``)."""
    results, references = tmp / "results.json", tmp / "references.json"
    results.write_text(
        json.dumps([{"image_id": k, "caption": c} for k, c in enumerate(protocol["candidates"])]), encoding="utf-8"
    )
    annotations = [
        {"image_id": k, "id": len(protocol["references"][0]) * k + j, "caption": r}
        for k, refs in enumerate(protocol["references"])
        for j, r in enumerate(refs)
    ]
    images = [{"id": k} for k in range(len(protocol["candidates"]))]
    references.write_text(json.dumps({"images": images, "annotations": annotations}), encoding="utf-8")
    return results, references


def _read_capeval(stdout: Path, per_image: Path) -> dict[str, Any]:
    """``capeval score --format json`` output and its ``--per-image`` file, as the comparison reads them."""
    printed = json.loads(stdout.read_text(encoding="utf-8"))
    rows = json.loads(per_image.read_text(encoding="utf-8"))
    names = list(printed["capeval"]["official_names"].values())
    return {
        "timings": printed["capeval"]["timings_s"],
        "corpus": {name: printed[name] for name in names},
        "per_item": {name: [rows[str(k)][name] for k in range(len(rows))] for name in names},
    }


def _run(cmd: list[str], stdout: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MiB of one process tree (its output to ``stdout``)."""
    start = time.perf_counter()
    with open(stdout, "wb") if stdout else contextlib.nullcontext(subprocess.DEVNULL) as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)  # the child keeps its copy
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed ({proc.returncode}):\n{stderr[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="runs per implementation (medians are shown)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="capeval worker processes")
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args(argv)

    protocol = human_agreement_protocol()
    n = len(protocol["ids"])
    official_python = str(oracle_python())
    runner = ROOT / "bench" / "oracle" / "official_runner.py"
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(
            json.dumps({**protocol, "metrics": ["bleu", "meteor", "rouge", "cider"], "tokenize": True}),
            encoding="utf-8",
        )
        ours_out, ours_items, theirs_out = Path(tmp) / "capeval.json", Path(tmp) / "items.json", Path(tmp) / "off.json"
        results, references = _capeval_inputs(protocol, Path(tmp))
        capeval_cmd = [
            *(sys.executable, "-c", _CAPEVAL_COMMAND, "score", "--quiet", "--format", "json"),
            *("--results", str(results), "--references", str(references), "--per-image", str(ours_items)),
            *("--metrics", "bleu,meteor,rouge-l,cider-d", "--workers", str(args.workers)),
        ]
        official_cmd = [official_python, str(runner), str(job), str(theirs_out)]
        _run(capeval_cmd, ours_out)  # warm-up: one-time data conversion and kernel compilation
        library_cmd = [sys.executable, "-c", _CAPEVAL_LIBRARY, str(job), str(Path(tmp) / "lib.json"), str(args.workers)]
        ours, theirs, library = [], [], []
        for _ in range(args.repeat):  # interleaved, so that background load touches both alike
            theirs.append((*_run(official_cmd), json.loads(theirs_out.read_text())))
            ours.append((*_run(capeval_cmd, ours_out), _read_capeval(ours_out, ours_items)))
            library.append(_run(library_cmd))
        # METEOR alone on the official tokenized text, whole process (as bench_meteor.py)
        cands, refs = bench_meteor._load_val2014()
        mjob = Path(tmp) / "meteor.json"
        mjob.write_text(json.dumps({"candidates": cands, "references": refs}), encoding="utf-8")
        m_ours, m_theirs = [], []
        for _ in range(args.repeat):
            m_theirs.append(bench_meteor._run([official_python, "-c", bench_meteor._OFFICIAL_CHILD, str(mjob)]))
            m_ours.append(bench_meteor._run([sys.executable, "-c", bench_meteor._CAPEVAL_CHILD, str(mjob), "auto"]))

    def med(values: list[float]) -> float:
        return float(statistics.median(values))

    rows: list[tuple[str, float, float, str]] = []
    for ours_key, theirs_key in STAGES:
        o = med([r[3]["timings_s"][theirs_key] for r in theirs])
        c = med([r[3]["timings"][ours_key] for r in ours])
        rows.append((ours_key, o, c, ""))
    o_wall, c_wall = med([r[0] for r in theirs]), med([r[0] for r in ours])
    rows.append(
        ("whole process", o_wall, c_wall, f"{med([r[2] for r in theirs]):.0f} / {med([r[2] for r in ours]):.0f}")
    )
    rows.append(("  CPU time", med([r[1] for r in theirs]), med([r[1] for r in ours]), ""))
    rows.append(
        (
            "  library",
            o_wall,
            med([r[0] for r in library]),
            f"{med([r[2] for r in theirs]):.0f} / {med([r[2] for r in library]):.0f}",
        )
    )
    mo, mc = med([r["wall"] for r in m_theirs]), med([r["wall"] for r in m_ours])
    rows.append(
        (
            "METEOR alone",
            mo,
            mc,
            f"{med([r['peak_mib'] for r in m_theirs]):.0f} / {med([r['peak_mib'] for r in m_ours]):.0f}",
        )
    )

    official, capeval = theirs[0][3], ours[0][3]
    worst, differing = 0.0, 0
    for name, values in capeval["per_item"].items():
        for k, v in enumerate(values):
            d = abs(v - official["per_item"][str(k)][name])
            worst = max(worst, d)
            differing += d > 1e-12
    corpus_diff = max(abs(capeval["corpus"][k] - official["corpus"][k]) for k in official["corpus"])

    print(f"== COCO val2014 human-agreement protocol: {n:,} images, 1 candidate vs 4 references ==")
    print(f"{'stage':16} {'official s':>11} {'capeval s':>10} {'ratio':>7}  peak MiB official / capeval")
    for label, o, c, peak in rows:
        print(f"{label:16} {o:11.2f} {c:10.2f} {o / c:6.1f}x  {peak}")
    print(
        f"numbers: {differing} per-image values differ by more than 1e-12 (largest {worst:.1e}); "
        f"largest corpus difference {corpus_diff:.1e}"
    )
    print(
        f"median of {args.repeat} run(s) each; capeval --workers {args.workers}; "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "items_differing": differing}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
