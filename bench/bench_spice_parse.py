"""Benchmark: capeval's englishPCFG parser against CoreNLP 3.6.0's, side by side, trees compared.

Workload: the COCO caption-evaluation demo (1,000 val2014 images: the demo's 1,000 candidate
captions and their 5,005 references), as COCOEvalCap feeds SPICE (capeval's PTB tokenizer, which
gives the official tokenizer's output: lower-cased, punctuation removed) and, with ``--raw``, as
written.

The official side is CoreNLP 3.6.0 in a fresh JVM (``oracle.corenlp_parse``, nothing cached): the
captions are tokenized and split by the pipeline's tokenizer, the grammar is loaded, and every
sentence is parsed as SPICE's ``ParserAnnotator`` does it, ``--passes`` times (the first pass runs
on a cold JIT, as in a real SPICE run; later passes are warm). capeval parses the very tokens the
JVM printed, in this process: its grammar cache is converted once (timed apart) and loaded, then
every sentence is parsed with the sentence cache off (pure parsing; the first pass also fills the
lexicon's per-word tables), and once more as SPICE would call it, cache on.

Usage::

    python bench/bench_spice_parse.py [--limit N] [--raw] [--passes 2] [--grammar MODELS_JAR_OR_SER_GZ]

Prints, per workload: ms per caption and captions per second of both sides, JVM start, model load
and conversion apart and included, the ratios, and how many trees are identical. The machine's
load makes timings noisy; the two sides run one after the other in the same invocation.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

from oracle import oracle_dir
from oracle.corenlp_parse import time_official_parse
from oracle.spice_full import corenlp_models_jar

_MEMBER = "edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz"


def _grammar(source: Path | None) -> tuple[Any, dict[str, float]]:
    """The converted grammar (converted once into the oracle directory), with the times it took."""
    from capeval.metrics.spice.corenlp.grammar import Grammar

    path = source if source is not None else corenlp_models_jar()
    data = zipfile.ZipFile(path).read(_MEMBER) if zipfile.is_zipfile(path) else path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    cached = oracle_dir() / "spice-grammar" / f"englishPCFG-{digest[:16]}.npz"
    times: dict[str, float] = {}
    if not cached.is_file():
        t0 = time.perf_counter()
        Grammar.from_ser_gz(data).save(cached)
        times["convert"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    grammar = Grammar.load(cached)
    times["load"] = time.perf_counter() - t0
    times["npz_mib"] = cached.stat().st_size / 2**20
    return grammar, times


def _workloads(raw: bool, limit: int | None) -> dict[str, list[str]]:
    from capeval.data import demo_paths
    from capeval.io import load_corpus
    from capeval.tokenizers.base import get_tokenizer

    corpus = load_corpus(*demo_paths())
    texts = [*corpus.candidates, *(r for refs in corpus.references for r in refs)]
    texts = [" ".join(t.split()) for t in texts]  # one caption per line
    out = {"PTB-fed": get_tokenizer("ptb").tokenize(texts)}
    if raw:
        out["raw"] = texts
    return {name: captions[:limit] for name, captions in out.items()}


def _run(name: str, captions: list[str], grammar: Any, passes: int) -> bool:
    from capeval.metrics.spice.corenlp.parser import PCFGParser

    official = time_official_parse(captions, passes=passes)
    sentences = [s for caption in official["captions"] for s in caption]
    n_caps, n_sents = len(captions), len(sentences)

    t0 = time.perf_counter()
    parser = PCFGParser(grammar, cache_size=0)
    parser.parse(["a", "man"])  # loads (or compiles) the kernels
    setup = time.perf_counter() - t0
    runs = []
    for _ in range(2):
        t0, c0 = time.perf_counter(), time.process_time()
        trees = [parser.parse(s["words"]) for s in sentences]
        runs.append((time.perf_counter() - t0, time.process_time() - c0))
    cached = PCFGParser(grammar)
    t0 = time.perf_counter()
    cached.parse_many(s["words"] for s in sentences)
    with_cache = time.perf_counter() - t0

    same = sum(t == s["tree"] for t, s in zip(trees, sentences, strict=True))
    jvm, load, tok = official["jvm_start_seconds"], official["load_seconds"], official["tokenize_seconds"]
    cold, warm = official["parse_seconds"][0], official["parse_seconds"][-1]
    cold_cpu, warm_cpu = official["parse_cpu_seconds"][0], official["parse_cpu_seconds"][-1]
    (first, first_cpu), (second, second_cpu) = runs

    def per(seconds: float) -> str:
        return f"{1000 * seconds / n_caps:7.2f} ms/caption ({n_caps / seconds:7.1f} captions/s)"

    print(f"\n== {name}: {n_caps:,} captions, {n_sents:,} sentences")
    print(f"official : parse, cold JIT    {per(cold)}  (CPU {1000 * cold_cpu / n_caps:.2f} ms/caption)")
    print(f"           parse, warm (pass {len(official['parse_seconds'])}) {per(warm)}  "
          f"(CPU {1000 * warm_cpu / n_caps:.2f} ms/caption)")  # fmt: skip
    official_run = jvm + tok + load + cold  # what one SPICE run pays for its parses
    print(f"           JVM start {jvm:.2f} s, tokenizer {tok:.2f} s, grammar load {load:.2f} s; "
          f"whole run (these, and the first pass) {per(official_run)}")  # fmt: skip
    print(f"capeval  : parse, first pass  {per(first)}  (CPU {1000 * first_cpu / n_caps:.2f} ms/caption)")
    print(f"           parse, second pass {per(second)}  (CPU {1000 * second_cpu / n_caps:.2f} ms/caption)")
    print(f"           parser setup + kernel load {setup:.2f} s; with the sentence cache {per(with_cache)}")
    print(f"           whole run (setup + first pass) {per(setup + first)}")
    print(f"ratio    : parse cold {cold / first:.1f}x, parse warm {warm / second:.1f}x, "
          f"whole run {official_run / (setup + first):.1f}x (official / capeval, wall)")  # fmt: skip
    print(f"           parse cold {cold_cpu / first_cpu:.1f}x, parse warm {warm_cpu / second_cpu:.1f}x (CPU time)")
    print(f"parity   : {same:,} of {n_sents:,} trees identical")
    return same == n_sents


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="captions per workload (default: all 6,005)")
    parser.add_argument("--raw", action="store_true", help="also the captions as written")
    parser.add_argument("--passes", type=int, default=2, help="official passes over the captions (first is cold)")
    parser.add_argument("--grammar", type=Path, default=None, help="models jar or englishPCFG.ser.gz")
    args = parser.parse_args()

    grammar, times = _grammar(args.grammar)
    if "convert" in times:
        print(f"grammar  : converted from the .ser.gz in {times['convert']:.1f} s (once)")
    print(f"grammar  : cache ({times['npz_mib']:.1f} MiB .npz) loaded in {times['load']:.3f} s")
    ok = True
    for name, captions in _workloads(args.raw, args.limit).items():
        ok &= _run(name, captions, grammar, args.passes)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
