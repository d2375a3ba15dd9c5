"""capeval's Morpha lemmas against CoreNLP 3.6.0's lemma annotator, exhaustively, and their speed.

Every word of each vocabulary (as written and lower-cased, with the PTB pieces a tokenizer could
cut from it) is lemmatised under each of the 45 tags the parser emits, by capeval and by the
annotator itself (``bench/oracle/morpha.py``); the official stage files, when ``../shared`` is
there, are checked token by token. Speed: capeval's lemmas per second on the COCO pairs, cold
(each pair once, nothing cached) and warm (the memoised lookup SPICE's pipeline mostly hits), in
the same run as the annotator's own throughput measured inside the JVM by the harness... not
measured here: the Java side's time includes the JVM start, so only capeval's rate is printed.

Vocabularies: COCO val2014 captions, Flickr8K captions (``../shared``), the parser's lexicon
(``englishPCFG.ser.gz`` from ``CAPEVAL_SPICE_GRAMMAR`` or the oracle's models jar).

Usage: ``PYTHONPATH=src python bench/bench_morpha.py``
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

from oracle import (
    PTB_TAGS,
    caption_words,
    flickr8k_captions,
    grammar_words,
    run_morpha,
    time_morpha,
    val2014_captions,
)

from capeval.metrics.spice.corenlp import morpha

STAGES = Path(__file__).resolve().parents[2] / "shared" / "data" / "spice-official"


def check(name: str, pairs: list[tuple[str, str]], expected: list[str]) -> None:
    wrong = []
    for (word, tag), lemma in zip(pairs, expected, strict=True):
        try:
            got = morpha.lemma(word, tag)
        except ValueError as exc:
            got = f"<{exc}>"
        if got != lemma:
            wrong.append((word, tag, lemma, got))
    print(f"{name}: {len(pairs) - len(wrong):,} of {len(pairs):,} identical")
    for word, tag, lemma, got in wrong[:30]:
        print(f"    {word!r}/{tag}: annotator {lemma!r}, capeval {got!r}")


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n", 1)[0]).parse_args()
    with open(val2014_captions(), encoding="utf-8") as fh:
        coco = [item["caption"] for item in json.load(fh)["annotations"]]
    sources = {"COCO val2014": sorted(caption_words(coco))}
    flickr = flickr8k_captions()
    if flickr is not None:
        sources["Flickr8K"] = sorted(caption_words(flickr))
    sources["parser lexicon"] = sorted(set(grammar_words()))
    for name, words in sources.items():
        pairs = [(word, tag) for word in words for tag in PTB_TAGS]
        check(f"{name} ({len(words):,} words x {len(PTB_TAGS)} tags)", pairs, run_morpha(pairs))
    stream: list[tuple[str, str]] = []
    for stage in ("dev_ptb", "dev_raw"):
        path = STAGES / f"{stage}.stages.jsonl.gz"
        if not path.exists():
            continue
        tokens = []
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                for sentence in json.loads(line)["sentences"]:
                    tokens += sentence["tokens"]
        check(f"{path.name} (tokens)", [(w, t) for w, t, _ in tokens], [lemma for _, _, lemma in tokens])
        stream += [(w, t) for w, t, _ in tokens]

    streams = {"distinct COCO pairs": [(word, tag) for word in sources["COCO val2014"] for tag in PTB_TAGS]}
    if stream:
        streams["stage-file tokens"] = stream
    for name, pairs in streams.items():
        java = time_morpha(pairs)
        morpha.lemma.cache_clear()
        start = time.perf_counter()
        for word, tag in pairs:
            morpha.lemma(word, tag)
        ours = time.perf_counter() - start
        print(
            f"speed, {name} ({len(pairs):,}): annotator {len(pairs) / java:,.0f} lemmas/s, "
            f"capeval {len(pairs) / ours:,.0f} lemmas/s ({java / ours:.2f}x)"
        )


if __name__ == "__main__":
    main()
