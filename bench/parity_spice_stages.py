"""Parity: every stage of SPICE's text pipeline, capeval against official stage files.

Runs ``capeval spice parse --tokenizer none`` (a subprocess, as a user runs it) on the captions of
one or more stage files written by the official pipeline (``bench.oracle.run_stages`` or
``shared/data/spice-official/*.stages.jsonl.gz``: ``{"caption", "sentences": [{"tokens",
"tree", "basic", "ccprocessed"}]}`` per line) and counts, per stage, the captions whose output is
identical: the sentence split, the Penn tree, the tags (the tree's preterminals), Morpha's
lemmas, the basic and the CCprocessed UD v1 dependencies.

Usage::

    python bench/parity_spice_stages.py FILE.stages.jsonl[.gz] ... [--grammar MODELS_JAR] [--show 3]
    python bench/parity_spice_stages.py --captions captions.txt   # official stages made here (Java)

With ``--captions``, the official stages of those captions (one per line, as SPICE receives them)
come from the live official pipeline (``oracle.run_stages``, cached under the oracle directory).
Prints one block per file and exits 1 when any caption differs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STAGES = ("sentences", "tree", "tags", "lemmas", "basic", "ccprocessed")


def _read(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _views(record: dict[str, Any]) -> dict[str, Any]:
    sentences = record["sentences"]
    return {
        "sentences": [[t[0] for t in s["tokens"]] for s in sentences],
        "tree": [s["tree"] for s in sentences],
        "tags": [[t[1] for t in s["tokens"]] for s in sentences],
        "lemmas": [[t[2] for t in s["tokens"]] for s in sentences],
        "basic": [s["basic"] for s in sentences],
        "ccprocessed": [s["ccprocessed"] for s in sentences],
    }


def _capeval_stages(captions: list[str], grammar: str | None) -> tuple[list[dict[str, Any]], float]:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "captions.txt"
        source.write_text("".join(f"{c}\n" for c in captions), encoding="utf-8")
        command = [
            sys.executable,
            "-c",
            "from capeval.cli.main import console; console()",
            "spice",
            "parse",
            "--tokenizer",
            "none",
            "--quiet",
            str(source),
        ]
        if grammar:
            command += ["--grammar", grammar]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", env=os.environ.copy())
        elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"capeval spice parse failed:\n{done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines()], elapsed


def compare(name: str, official: list[dict[str, Any]], grammar: str | None, show: int) -> bool:
    captions = [record["caption"] for record in official]
    for k, caption in enumerate(captions):
        if "\n" in caption or "\r" in caption:
            sys.exit(f"{name}: caption {k} holds a line break; the CLI reads one caption per line")
    ours, elapsed = _capeval_stages(captions, grammar)
    if len(ours) != len(official):
        sys.exit(f"{name}: capeval printed {len(ours)} lines for {len(official)} captions")
    same = dict.fromkeys((*STAGES, "all"), 0)
    differing: list[tuple[str, str]] = []
    for mine, theirs in zip(ours, official, strict=True):
        if mine["caption"] != theirs["caption"]:
            sys.exit(f"{name}: output out of order at {theirs['caption']!r}")
        a, b = _views(mine), _views(theirs)
        wrong = [stage for stage in STAGES if a[stage] != b[stage]]
        for stage in STAGES:
            same[stage] += stage not in wrong
        same["all"] += not wrong
        if wrong:
            differing.append((theirs["caption"], ", ".join(wrong)))
    n = len(official)
    print(
        f"== {name}: {n:,} captions, capeval spice parse {elapsed:.1f} s ({1000 * elapsed / max(n, 1):.2f} ms/caption)"
    )
    for stage, count in same.items():
        print(f"   {stage:12s} {count:>7,} / {n:,} identical ({100 * count / max(n, 1):.3f}%)")
    for caption, stages in differing[:show]:
        print(f"   differs ({stages}): {caption!r}")
    return not differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="official stage files (.jsonl or .jsonl.gz)")
    parser.add_argument("--captions", type=Path, help="captions (one per line): official stages made live")
    parser.add_argument("--grammar", help="stanford-corenlp-3.6.0-models.jar (default: as capeval finds it)")
    parser.add_argument("--show", type=int, default=3, help="differing captions to print per file")
    args = parser.parse_args(argv)
    if not args.files and args.captions is None:
        parser.error("give stage files or --captions")
    ok = True
    for path in args.files:
        ok &= compare(path.name, _read(path), args.grammar, args.show)
    if args.captions is not None:
        from oracle import run_stages

        captions = args.captions.read_text(encoding="utf-8").splitlines()
        ok &= compare(f"{args.captions.name} (official stages live)", run_stages(captions), args.grammar, args.show)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
