"""COCO val2014 human agreement: capeval against the official code, side by side.

The official human-agreement protocol (``shared/oracle/make_human_agreement.py``) scores the
first caption of each of the 40,504 val2014 images against its next four captions. This script

1. times capeval on that fold (fold 1) and on the full leave-one-out table (5 folds, each
   caption held out in turn against the other four),
2. times the official pycocoevalcap 1.2 code on fold 1 (``--run-official``; otherwise the
   timings the oracle recorded in ``official_scores_human.json`` are used),
3. prints capeval's fold-1 scores next to the official corpus scores, and the speed ratio.

``--pretokenized`` feeds capeval the official PTB tokenization stored by the oracle
(tokenizer ``none``), which isolates the metrics from the tokenizer.

Usage::

    python bench/bench_human_agreement.py [--annotations /tmp/capeval-oracle/captions_val2014.json]
        [--official /tmp/capeval-oracle/human/official_scores_human.json] [--run-official] [--pretokenized]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from oracle import oracle_dir, oracle_python

from capeval import get_metric
from capeval.meta_eval import human_agreement, load_coco_captions

ORACLE = oracle_dir()


def _official_run(shared: Path, human_dir: Path) -> tuple[dict[str, float], float]:
    python = oracle_python()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "scores.json"
        start = time.perf_counter()
        proc = subprocess.run(
            [
                str(python),
                str(shared / "oracle" / "official_scores.py"),
                "--results",
                str(human_dir / "human_results.json"),
                "--refs",
                str(human_dir / "human_annotations.json"),
                "--out",
                str(out),
                "--no-tokens",
                "--metrics",
                "bleu,meteor,rouge,cider",
            ],
            check=False,
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"official code failed:\n{proc.stderr[-2000:]}")
        return json.loads(out.read_text())["corpus"], elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotations", default=str(ORACLE / "captions_val2014.json"))
    parser.add_argument("--official", default=str(ORACLE / "human" / "official_scores_human.json"))
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[1] / ".." / "shared"))
    parser.add_argument("--metrics", default="bleu,meteor,rouge-l,cider-d")
    parser.add_argument("--run-official", action="store_true", help="run the official code now (needs Java)")
    parser.add_argument("--pretokenized", action="store_true", help="use the official tokenization (tokenizer none)")
    args = parser.parse_args()

    official = json.loads(Path(args.official).read_text())
    if args.pretokenized:
        tok = official["tokenized"]
        captions = {k: [tok["res"][k], *tok["gts"][k]] for k in tok["res"]}
        tokenizer = "none"
    else:
        captions = {k: v[:5] for k, v in load_coco_captions(args.annotations).items()}
        tokenizer = "ptb"
    metrics = [get_metric(m, tokenizer=tokenizer) for m in args.metrics.split(",")]
    # capeval output name -> official COCO name.
    official_names = {out: name for m in metrics for out, name in m.official_names.items()}
    print(f"{len(captions):,} images, metrics {args.metrics}, tokenizer {tokenizer}")

    fold1 = human_agreement(captions, metrics, folds=[0])
    table = human_agreement(captions, metrics)
    if args.run_official:
        official_corpus, official_s = _official_run(Path(args.shared), Path(args.official).parent)
    else:
        official_corpus = official["corpus"]
        official_s = sum(official["timings_s"].values())

    print(f"\n{'score':<8} {'official':>10} {'capeval':>10} {'diff':>10}   (fold 1: caption 1 vs captions 2-5)")
    for name in table.columns:
        ref = official_corpus.get(official_names.get(name, ""), float("nan"))
        ours = fold1.folds[0][name]
        print(f"{name:<8} {ref:>10.6f} {ours:>10.6f} {ours - ref:>10.2e}")
    print("\nleave-one-out table (mean of 5 folds):")
    print("  " + "  ".join(f"{c}={table.mean[c]:.4f}" for c in table.columns))
    print(
        f"\nfold 1:  official {official_s:7.1f} s ({'run now' if args.run_official else 'oracle record'}), "
        f"capeval {fold1.seconds:7.1f} s, ratio {official_s / fold1.seconds:5.1f}x "
        "(capeval's fold 1 includes loading METEOR's tables and other one-time work)"
    )
    print(
        f"5 folds: capeval {table.seconds:7.1f} s ({table.seconds / 5:.1f} s per fold once warm), official about "
        f"{5 * official_s:.0f} s (5 x fold 1), ratio {5 * official_s / table.seconds:5.1f}x"
    )
    return 0


if __name__ == "__main__":
    # METEOR reads its paraphrase tables from the pycocoevalcap wheel installed with the oracle.
    found = sorted((ORACLE / "venv" / "lib").glob("python3*/site-packages/pycocoevalcap"))
    if found:
        os.environ.setdefault("CAPEVAL_PYCOCOEVALCAP_DIR", str(found[0]))
    sys.exit(main())
