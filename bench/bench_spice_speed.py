"""SPICE speed: ``capeval score --metrics spice`` against the official SPICE 1.0 jar, side by side.

Data: the 1,000-image COCO caption-evaluation demo (``capeval.data.demo_paths``). The official jar
gets the input COCOEvalCap builds (PTB-tokenized, lower-cased, punctuation removed: capeval's PTB
tokenizer gives the official tokenizer's output) and runs without ``-cache``, ``-subset -silent``,
through the oracle installation of ``bench/oracle`` (Stanford CoreNLP 3.6.0 included).

capeval, by ``--parser``:

* ``corenlp``: the whole ``capeval score --results ... --references ... --metrics spice`` process
  with the exact pipeline (``SPICE(parser="corenlp")``, the default parser), cold: a fresh cache
  directory, so no parsed captions or synonym tables are reused. Two rows: ``capeval`` with the
  grammar converted earlier (the figure to quote: the conversion of the user's copy of the
  grammar happens once per machine, like METEOR's tables; it is put into the fresh cache before
  the timed run), and ``capeval-first`` including that one-time conversion (a machine's very
  first run). Both sides parse every caption;
* ``stages``: the same scoring from the official pipeline's stages computed in advance
  (``StagesParser``): everything after the parser (graphs, rules, scene graphs, scoring,
  tokenizing, reading the files), in a fresh process;
* ``auto`` (default): ``corenlp`` when ``capeval.metrics.spice.corenlp.pipeline`` is installed,
  else ``stages``.

Each side is one fresh process, timed end to end (``wall``) with the CPU time of its process tree;
the corpus values and the per-image F-scores are compared. Timings on a shared machine are noisy:
compare the two columns of one run.

Usage:  python bench/bench_spice_speed.py [--parser auto|corenlp|stages] [--threads 2] [--repeat 1]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from oracle import run_stages, spice_full_dir

ROOT = Path(__file__).resolve().parents[1]

_CAPEVAL_CLI = r"""
import sys
from capeval.cli.main import main
sys.exit(main(sys.argv[1:]))
"""

_CAPEVAL_STAGES = r"""
import json, sys
from capeval.data import demo_paths
from capeval.engines.local import evaluate
from capeval.io import load_corpus
from capeval.metrics.spice import SPICE, StagesParser
with open(sys.argv[1], encoding="utf-8") as fh:
    stages = json.load(fh)
metric = SPICE(parser=StagesParser(stages), cache=False)
evaluation = evaluate(load_corpus(*demo_paths()), metrics=[metric])
result = evaluation.results["spice"]
json.dump({"corpus": result.score, "items": dict(zip(map(str, evaluation.ids), result.item_scores.tolist()))},
          open(sys.argv[2], "w"))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of a child process (and its children)."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed:\n{done.stderr[-3000:]}")
    return wall, _children_cpu() - cpu


def official_input() -> tuple[list[dict[str, Any]], list[str]]:
    """The SPICE input COCOEvalCap builds for the demo (sorted image ids), and the image ids."""
    from capeval.data import demo_paths
    from capeval.io import load_corpus
    from capeval.tokenizers.base import get_tokenizer

    corpus = load_corpus(*demo_paths())
    ptb = get_tokenizer("ptb")
    cands = ptb.tokenize(list(corpus.candidates))
    flat = ptb.tokenize([r for refs in corpus.references for r in refs])
    it = iter(flat)
    refs = [[next(it) for _ in item] for item in corpus.references]
    order = sorted(range(len(corpus)), key=lambda k: corpus.ids[k])  # type: ignore[no-any-return]
    items = [{"image_id": corpus.ids[k], "test": cands[k], "refs": refs[k]} for k in order]
    return items, [str(corpus.ids[k]) for k in order]


def run_official(items: list[dict[str, Any]], threads: int, work: Path) -> tuple[float, float, dict[str, float]]:
    target = spice_full_dir()
    in_path, out_path = work / "official_in.json", work / "official_out.json"
    in_path.write_text(json.dumps(items), encoding="utf-8")
    classpath = f"{target / 'spice-1.0.jar'}{os.pathsep}{target / 'classes'}"
    command = ["java", "-Xmx8G", "-cp", classpath, "edu.anu.spice.SpiceScorer", str(in_path)]
    command += ["-out", str(out_path), "-subset", "-silent", "-threads", str(threads)]
    wall, cpu = _timed(command)
    scores = {str(o["image_id"]): o["scores"]["All"]["f"] for o in json.loads(out_path.read_text(encoding="utf-8"))}
    return wall, cpu, scores


def run_capeval(
    parser: str, items: list[dict[str, Any]], threads: int, work: Path, *, converted: bool = True
) -> tuple[float, float, dict[str, float]]:
    from capeval.data import demo_paths

    cache = Path(tempfile.mkdtemp(dir=work))
    env = dict(os.environ, CAPEVAL_CACHE_DIR=str(cache))
    if parser == "corenlp" and converted:  # the one-time conversion, not timed
        convert = "from capeval.metrics.spice.corenlp.sources import load_grammar; load_grammar()"
        subprocess.run([sys.executable, "-c", convert], env=env, check=True)
    out = work / f"capeval_{parser}.json"
    if parser == "corenlp":
        results, references = demo_paths()
        command = [sys.executable, "-c", _CAPEVAL_CLI, "score", "--results", str(results), "--references"]
        command += [str(references), "--metrics", "spice", "--quiet", "--format", "json", "--per-image", str(out)]
        command += ["--workers", str(threads)]
        wall, cpu = _timed(command, env)
        per_image = json.loads(out.read_text(encoding="utf-8"))
        return wall, cpu, {k: v["SPICE"] for k, v in per_image.items()}  # the per-image file uses official names
    captions = list(dict.fromkeys(c for item in items for c in [item["test"], *item["refs"]]))
    stages_path = work / "stages.json"
    stages_path.write_text(json.dumps(run_stages(captions, threads=threads)), encoding="utf-8")
    wall, cpu = _timed([sys.executable, "-c", _CAPEVAL_STAGES, str(stages_path), str(out)], env)
    return wall, cpu, json.loads(out.read_text(encoding="utf-8"))["items"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--parser", choices=("auto", "corenlp", "stages"), default="auto")
    ap.add_argument("--threads", type=int, default=2, help="the jar's -threads and capeval's --workers")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side (median reported)")
    args = ap.parse_args()
    parser = args.parser
    if parser == "auto":
        exact = importlib.util.find_spec("capeval.metrics.spice.corenlp.pipeline") is not None
        parser = "corenlp" if exact else "stages"
    items, ids = official_input()
    runs: dict[str, list[tuple[float, float]]] = {"official": [], "capeval": []}
    if parser == "corenlp":
        runs["capeval-first"] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(args.repeat):
            wall, cpu, official = run_official(items, args.threads, work)
            runs["official"].append((wall, cpu))
            wall, cpu, ours = run_capeval(parser, items, args.threads, work)
            runs["capeval"].append((wall, cpu))
            if parser == "corenlp":
                wall, cpu, first = run_capeval(parser, items, args.threads, work, converted=False)
                runs["capeval-first"].append((wall, cpu))
                assert first == ours, "the first run gave other values"
    same = sum(abs(ours[i] - official[i]) < 1e-9 for i in ids)
    print(f"COCO demo, {len(ids)} images, {sum(1 + len(i['refs']) for i in items)} captions; capeval parser: {parser}")
    if parser == "stages":
        print("  (stages mode: the official pipeline's stages are given; capeval's own parsing is not timed)")
    print(f"{'':14}{'wall s':>10}{'CPU s':>10}{'corpus SPICE':>16}")
    medians = {}
    for side in runs:
        values = official if side == "official" else ours
        wall = statistics.median(w for w, _ in runs[side])
        cpu = statistics.median(c for _, c in runs[side])
        medians[side] = (wall, cpu)
        corpus = sum(values[i] for i in ids) / len(ids)
        print(f"{side:14}{wall:10.1f}{cpu:10.1f}{corpus:16.10f}")
    for side in runs:
        if side != "official":
            print(
                f"speed-up of {side}: {medians['official'][0] / medians[side][0]:.1f}x wall, "
                f"{medians['official'][1] / medians[side][1]:.1f}x CPU"
            )
    print(f"per-image F equal to the jar's (|diff| < 1e-9): {same}/{len(ids)}")


if __name__ == "__main__":
    main()
