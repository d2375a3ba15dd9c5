"""Scale: BLEU + ROUGE-L + CIDEr-D on millions of candidate captions, in bounded memory.

Data: COCO val2014 (40,504 images) replicated and perturbed: item ``i`` is image
``i % 40504``; its candidate is one of the image's captions and its 5 references are the
others (wrapping round). There are 8 variants of the corpus (324,032 items), repeated beyond
that: the original and 7 copies in which every caption has a word dropped, two adjacent
words swapped and one word replaced by another val2014 word, chosen by a hash of the item
(candidate and references alike), so the copies are new text with COCO's vocabulary. Items
are generated on demand from their index: nothing is stored.

CIDEr-D's document-frequency table grows with the distinct n-grams of the references, not
with the number of items: here it stops growing after the 8 variants (a real corpus's
grows ever more slowly), so the peaks of 1M and 10M items measure what streaming keeps.

Modes (each run in a fresh process, so every peak is that run's own):

* ``stream``: :func:`capeval.engines.streaming.evaluate_stream` in one process;
* ``dask``: the same on a local Dask cluster (``--workers`` worker processes, one thread each);
* ``inprocess``: the whole corpus in memory through :func:`capeval.engines.local.evaluate`
  (the reference for the numbers; its memory grows with the corpus).

Reported per run: wall time, captions/s (candidates), the peak resident memory of every
process (client and each worker) and the corpus scores; ``stream``/``dask`` are compared
with ``inprocess`` when both ran on the same size.

Usage:  python bench/bench_scale.py [--sizes 1000000,10000000] [--modes stream,dask,inprocess]
        [--partition 50000] [--workers 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CAPTIONS = Path(os.environ.get("CAPEVAL_ORACLE_DIR", "/tmp/capeval-oracle")) / "captions_val2014.json"
METRICS = ("bleu", "rouge-l", "cider-d")
N_REFS = 5
#: Distinct copies of val2014 (the original and 7 perturbed ones); item i repeats item i - 8 * 40,504.
VARIANTS = 8
_MASK64 = (1 << 64) - 1


def _mix(x: int) -> int:
    """splitmix64: a well-mixed 64-bit hash of ``x``."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


class Val2014Source:
    """``source(lo, hi)``: the synthetic items ``lo..hi-1`` (see the module docstring)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._images: list[list[str]] | None = None
        self._vocab: list[str] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "_images": None, "_vocab": None}  # workers read the file themselves

    def _load(self) -> tuple[list[list[str]], list[str]]:
        if self._images is None or self._vocab is None:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
            by_image: dict[int, list[str]] = {}
            for ann in data["annotations"]:
                by_image.setdefault(ann["image_id"], []).append(ann["caption"])
            self._images = [by_image[img["id"]] for img in data["images"]]
            self._vocab = sorted({w for caps in self._images for c in caps for w in c.lower().split() if w.isalpha()})
        return self._images, self._vocab

    @staticmethod
    def _perturb(text: str, h: int, vocab: list[str]) -> str:
        words = text.split()
        if len(words) < 3:
            return text
        n = len(words)
        del words[h % n]
        k = (h >> 16) % (n - 2)
        words[k], words[k + 1] = words[k + 1], words[k]
        words[(h >> 32) % (n - 1)] = vocab[(h >> 40) % len(vocab)]
        return " ".join(words)

    def __call__(self, lo: int, hi: int) -> tuple[list[str], list[list[str]]]:
        images, vocab = self._load()
        n_img = len(images)
        cands: list[str] = []
        refs: list[list[str]] = []
        for i in range(lo, hi):
            caps = images[i % n_img]
            variant = (i // n_img) % VARIANTS
            first = variant % len(caps)
            texts = [caps[(first + j) % len(caps)] for j in range(N_REFS + 1)]
            if variant:
                key = i % (n_img * VARIANTS)
                texts = [self._perturb(t, _mix(key * 8 + j), vocab) for j, t in enumerate(texts)]
            cands.append(texts[0])
            refs.append(texts[1:])
        return cands, refs


_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from bench_scale import METRICS, Val2014Source
import numpy as np
mode, n, partition, workers, path = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
items_path = sys.argv[7]
source = Val2014Source(path)
source(0, 1)
def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
out = {"mode": mode, "n": n}
start = time.perf_counter()
if mode == "inprocess":
    from capeval.engines.local import evaluate
    cands, refs = source(0, n)
    ev = evaluate(candidates=cands, references=refs, ids=list(range(n)), metrics=list(METRICS))
    out["scores"] = {k: dict(r.scores) for k, r in ev.results.items()}
    np.savez(items_path, **{k: r.item_scores for k, r in ev.results.items()})
    out["peaks_mib"] = {"client": peak_mib()}
else:
    from capeval.engines.streaming import evaluate_stream
    client = cluster = None
    if mode == "dask":
        import distributed
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None, memory_limit=0)
        client = distributed.Client(cluster)
    res = evaluate_stream(source, n, metrics=list(METRICS), partition_size=partition, client=client,
                          keep_items=n <= 1_000_000)
    out["scores"] = res.scores
    out["timings"] = res.timings
    if res.item_scores:
        np.savez(items_path, **res.item_scores)
    out["peaks_mib"] = {"client": peak_mib()}
    if client is not None:
        def worker_peak():
            import resource
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        for i, (addr, peak) in enumerate(sorted(client.run(worker_peak).items())):
            out["peaks_mib"][f"worker{i}"] = peak
        client.close()
        cluster.close()
out["wall"] = time.perf_counter() - start
json.dump(out, sys.stdout)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000,10000000", help="comma-separated corpus sizes (items)")
    parser.add_argument("--modes", default="stream,dask,inprocess", help="stream, dask, inprocess")
    parser.add_argument("--partition", type=int, default=50_000, help="items per partition")
    parser.add_argument("--workers", type=int, default=2, help="Dask worker processes")
    parser.add_argument("--inprocess-max", type=int, default=1_000_000, help="largest size run in-process")
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args(argv)
    if not CAPTIONS.is_file():
        from oracle import val2014_captions

        path = str(val2014_captions())
    else:
        path = str(CAPTIONS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    runs: list[dict[str, Any]] = []
    tmp = tempfile.mkdtemp(prefix="capeval-scale-")
    print(f"{'mode':10} {'items':>11} {'wall s':>8} {'captions/s':>11}  peak MiB per process")
    for size in [int(s) for s in args.sizes.split(",")]:
        for mode in args.modes.split(","):
            if mode == "inprocess" and size > args.inprocess_max:
                continue
            cmd = [sys.executable, "-c", _CHILD, str(ROOT / "bench"), mode, str(size), str(args.partition)]
            items = str(Path(tmp) / f"{mode}-{size}.npz")
            proc = subprocess.run(
                [*cmd, str(args.workers), path, items], capture_output=True, text=True, env=env, check=False
            )
            if proc.returncode != 0:
                print(f"{mode:10} {size:>11,} failed: {proc.stderr[-2000:]}", flush=True)
                continue
            run = json.loads(proc.stdout)
            run["items_file"] = items
            runs.append(run)
            peaks = ", ".join(f"{k} {v:.0f}" for k, v in run["peaks_mib"].items())
            print(f"{mode:10} {size:>11,} {run['wall']:8.1f} {size / run['wall']:11,.0f}  {peaks}", flush=True)
        ref = next((r for r in runs if r["mode"] == "inprocess" and r["n"] == size), None)
        for run in runs:
            if ref is None or run["n"] != size or run is ref:
                continue
            diffs = {
                f"{k}/{name}": abs(v - ref["scores"][k][name]) / max(abs(ref["scores"][k][name]), 1e-300)
                for k, sc in run["scores"].items()
                for name, v in sc.items()
            }
            item_diff = float("nan")
            if Path(run["items_file"]).is_file() and Path(ref["items_file"]).is_file():
                with np.load(run["items_file"]) as a, np.load(ref["items_file"]) as b:
                    item_diff = max(float(np.abs(a[k] - b[k]).max()) for k in b.files)
            print(
                f"  {run['mode']} vs inprocess at {size:,}: largest per-item difference {item_diff:.1e}; "
                f"largest relative corpus difference {max(diffs.values()):.1e} ({max(diffs, key=diffs.get)})"
            )
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
