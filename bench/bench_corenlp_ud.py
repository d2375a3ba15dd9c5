"""Tree -> UD v1 dependencies (capeval.metrics.spice.corenlp) against CoreNLP 3.6.0, and its speed.

1. exactness on the official stage files in ``../shared/data/spice-official`` (30,000 PTB-fed
   and 10,000 raw COCO val2014 captions with every stage of official SPICE's pipeline): for
   each sentence, the basic and the CCprocessed dependencies computed from the official tree
   must equal the official ones; identical/total per file, and the first differences;
2. exactness on the COCO caption-evaluation demo's captions (1,000 images, test and reference
   captions as COCOEvalCap feeds them to SPICE), run live through the official pipeline
   (``bench.oracle.run_stages``, cached), from the official trees;
3. speed: CPU time per sentence of :func:`ccprocessed` (which includes the basic conversion)
   and of :func:`basic` alone, next to CoreNLP's own converter run on the same trees in one JVM
   (``bench/oracle/corenlp_ud``; its start-up time is measured on a one-tree run and taken off).

``--write-fixtures`` rewrites the test fixtures in ``tests/data/spice`` (see the README there):
the dev-sample (a few thousand stage-file sentences chosen to cover every relation label, tree
category and CC-processing effect) and the expected output of the hand-written constructions
(from CoreNLP's converter).

Usage: ``python bench/bench_corenlp_ud.py [--shared ../shared] [--skip-demo] [--write-fixtures]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from capeval.metrics.spice.corenlp.ccprocessed import ccprocessed
from capeval.metrics.spice.corenlp.dependencies import basic

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_DIR = ROOT / "tests" / "data" / "spice"
DEV_SAMPLE = FIXTURE_DIR / "corenlp_ud_dev_sample.jsonl.gz"
CONSTRUCTIONS = FIXTURE_DIR / "corenlp_ud_constructions.json"
#: Sentences per coverage feature in the dev sample, and its total size.
PER_FEATURE, SAMPLE_SIZE = 12, 3000


def _sentences(path: Path) -> list[dict[str, Any]]:
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            item = json.loads(line)
            for i, s in enumerate(item["sentences"]):
                out.append(
                    {"tree": s["tree"], "sentence_index": i, "basic": s["basic"], "ccprocessed": s["ccprocessed"]}
                )
    return out


def _compare(sentences: list[dict[str, Any]], label: str) -> tuple[int, int, int]:
    same_basic = same_cc = 0
    shown = 0
    for s in sentences:
        b = [list(x) for x in basic(s["tree"], sentence_index=s["sentence_index"])]
        c = [list(x) for x in ccprocessed(s["tree"], sentence_index=s["sentence_index"])]
        same_basic += b == s["basic"]
        same_cc += c == s["ccprocessed"]
        if (b != s["basic"] or c != s["ccprocessed"]) and shown < 5:
            shown += 1
            print(f"  differs: {s['tree']}\n    official cc {s['ccprocessed']}\n    capeval  cc {c}")
    n = len(sentences)
    print(f"{label:<28} basic {same_basic}/{n} identical   ccprocessed {same_cc}/{n} identical")
    return same_basic, same_cc, n


def _demo_sentences(shared: Path) -> list[dict[str, Any]]:
    from oracle import run_stages  # the oracle needs Java; imported only when used

    items = json.loads((shared / "data" / "spice-official" / "coco_demo_input.json").read_text(encoding="utf-8"))
    captions: list[str] = []
    for item in items:
        captions.append(item["test"])
        captions.extend(item["refs"])
    unique = list(dict.fromkeys(captions))
    out = []
    for result in run_stages(unique):
        for i, s in enumerate(result["sentences"]):
            out.append({"tree": s["tree"], "sentence_index": i, "basic": s["basic"], "ccprocessed": s["ccprocessed"]})
    return out


def _speed(trees: list[str]) -> None:
    for fn in (basic, ccprocessed):
        for t in trees[:200]:  # warm the per-label tables
            fn(t)
        start = time.process_time()
        for t in trees:
            fn(t)
        per = (time.process_time() - start) / len(trees)
        print(f"capeval {fn.__name__:<12} {per * 1e3:.3f} ms CPU per sentence ({len(trees)} sentences)")
    from oracle import OracleUnavailable
    from oracle.corenlp_ud import _classes
    from oracle.spice_full import _classpath, spice_full_dir

    try:
        classpath = f"{_classpath(spice_full_dir())}{os.pathsep}{_classes()}"
    except OracleUnavailable as exc:
        print(f"CoreNLP converter not timed: {exc}")
        return

    def java_cpu(lines: list[str]) -> float:
        blob = "".join(f"{t}\n" for t in lines).encode("utf-8")
        before = os.times()
        subprocess.run(["java", "-cp", classpath, "UdFromTrees"], input=blob, check=True, capture_output=True)
        after = os.times()
        return (after.children_user - before.children_user) + (after.children_system - before.children_system)

    startup = java_cpu(trees[:1])
    total = java_cpu(trees)
    per_java = max(total - startup, 1e-9) / len(trees)
    start = time.process_time()
    for t in trees:
        basic(t)
        ccprocessed(t)
    per_py = (time.process_time() - start) / len(trees)
    print(
        f"CoreNLP basic+ccprocessed {per_java * 1e3:.3f} ms CPU per sentence (JVM start-up {startup:.1f} s taken off); "
        f"capeval basic+ccprocessed {per_py * 1e3:.3f} ms: ratio {per_java / per_py:.2f}x"
    )


def _features(s: dict[str, Any]) -> set[str]:
    tree = s["tree"]
    feats = {"b:" + r for r, _, _ in s["basic"]} | {"c:" + r for r, _, _ in s["ccprocessed"]}
    feats |= {"t:" + tok[1:] for tok in tree.split() if tok.startswith("(")}
    cc = [tuple(e) for e in s["ccprocessed"]]
    if s["basic"][-1] != s["ccprocessed"][-1]:
        feats.add("root-moves")
    if len(set(cc)) != len(cc):
        feats.add("repeated-edge")
    if any(g == d for _, g, d in cc if g):
        feats.add("self-loop")
    if len(cc) != len(s["basic"]):
        feats.add("edges-added-or-removed")
    if s["sentence_index"]:
        feats.add("second-sentence")
    if len(s["basic"]) > 17:
        feats.add("long")
    return feats


def _write_fixtures(shared: Path) -> None:
    from oracle.corenlp_ud import run_ud_trees

    rng = random.Random(2014)
    pool: list[dict[str, Any]] = []
    for name in ("dev_ptb", "dev_raw"):
        for s in _sentences(shared / "data" / "spice-official" / f"{name}.stages.jsonl.gz"):
            s["source"] = name
            pool.append(s)
    feats = [_features(s) for s in pool]
    counts = Counter(f for fs in feats for f in fs)
    chosen: set[int] = set()
    order = sorted(range(len(pool)), key=lambda i: len(pool[i]["basic"]))
    for feature, _ in sorted(counts.items(), key=lambda kv: (kv[1], kv[0])):
        have = sum(1 for i in chosen if feature in feats[i])
        for i in order:
            if have >= PER_FEATURE:
                break
            if feature in feats[i] and i not in chosen:
                chosen.add(i)
                have += 1
    rest = [i for i in range(len(pool)) if i not in chosen]
    chosen |= set(rng.sample(rest, max(0, SAMPLE_SIZE - len(chosen))))
    with gzip.open(DEV_SAMPLE, "wt", encoding="utf-8") as fh:
        for i in sorted(chosen):
            s = pool[i]
            fh.write(json.dumps({k: s[k] for k in ("source", "tree", "sentence_index", "basic", "ccprocessed")}) + "\n")
    print(f"wrote {DEV_SAMPLE.relative_to(ROOT)}: {len(chosen)} sentences covering {len(counts)} features")

    cases = json.loads(CONSTRUCTIONS.read_text(encoding="utf-8"))
    for case in cases:
        result = run_ud_trees([case["tree"]], sentence_index=case["sentence_index"])[0]
        case["basic"], case["ccprocessed"] = result["basic"], result["ccprocessed"]
    lines = ",\n".join(json.dumps(case, ensure_ascii=False) for case in cases)
    CONSTRUCTIONS.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    print(f"rewrote the expected output of {len(cases)} constructions in {CONSTRUCTIONS.relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--skip-demo", action="store_true", help="do not run the COCO demo through the oracle")
    parser.add_argument("--write-fixtures", action="store_true", help="rewrite the test fixtures and stop")
    args = parser.parse_args()
    if args.write_fixtures:
        _write_fixtures(args.shared)
        return 0
    stage_dir = args.shared / "data" / "spice-official"
    trees: list[str] = []
    for name in ("dev_ptb", "dev_raw"):
        sentences = _sentences(stage_dir / f"{name}.stages.jsonl.gz")
        _compare(sentences, f"{name} (stage file)")
        trees += [s["tree"] for s in sentences]
    if not args.skip_demo:
        _compare(_demo_sentences(args.shared), "COCO demo (live oracle)")
    _speed(trees[:5000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
