"""Rebuild ``tests/data/morpha/morpha_oracle.jsonl.gz``: CoreNLP 3.6.0's lemmas for test pairs.

Every line is ``[word, tag, lemma, kind]``, the lemma as CoreNLP 3.6.0's lemma annotator gives it
(``bench/oracle/morpha.py``), ``kind`` naming what the pair exercises:

* ``form``: every listed form of ``capeval/data/morpha`` under a tag of its state (nouns NNS, verbs
  a VB* tag in turn), and a tenth of them as written in capitals;
* ``ending``: every listed ending, bare and after "snow" and "x9";
* ``stem``: every undoubling stem doubled before -ed and -ing, and as many made-up stems that
  keep the double letter;
* ``special``: the special forms (be, have, modals, n't, pronouns, "an") under all 45 tags;
* ``tag``: words under tags the parser never emits (lower case, longer, cut short, with
  underscores or spaces);
* ``char``: the characters the lexer treats apart (white space, "_", "-", "ı", "İ", "ſ", the
  Kelvin sign, accented letters, a capital sigma, periods);
* ``hyphen``: COCO words with hyphens under NNS, VBG and NN;
* ``sample``: 4,000 pairs drawn at random (seed 0) from the COCO val2014 vocabulary x the 45 tags.

Usage: ``PYTHONPATH=src python bench/make_morpha_fixture.py``
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from oracle import PTB_TAGS, caption_words, run_morpha, val2014_captions

from capeval.metrics.spice.corenlp import morpha

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "morpha" / "morpha_oracle.jsonl.gz"
VERB_TAGS = ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ")
SPECIAL_WORDS = sorted({word for word, _, _, _ in morpha._SPECIAL} | {"I", "An", "AN", "Me", "WAS", "N'T", "'S"})
ODD_TAGS = ("nns", "vbz", "nnp", "NnP", "NNp", "prp", "dt", "md", "V", "N", "NNX", "NN$", "NNS_X", "VB_", "N N")
ODD_TAGS += ("VH", "VM", "VDZ", "VHZ", "CSA", "XX", "VBDR", "A", "D", "P", "NN\u1cf0", "V\u00e9", "-", "1")
CHAR_WORDS = (
    "a\tb", "\t", "x\u2028", "a\rb", "a b", "a\nb", "a_b", "go_up", "went_up", "up_up", "a__up", "_up", "x_", "",
    "İs", "ıs", "ſ", "waſ", "dogſ", "\u212aept", "knİves", "runnıng", "café", "cafés", "ΟΔΟΣ", "ΑΣ1", "dogs.",
    "u.s.", "mrs.", "pp.", "1960s", "1960s.", "-", "--", "-LRB-", "dogs-", "up-", "-dogs", "a-b-dogs", "x-passers-by",
    "bogged-down-x", "no-no", "t-shirts", "'s", "n't", "O'Neil", "rock'n'roll", "3d", "+", "'", "...", "C++",
)  # fmt: skip


def main() -> None:
    tables = morpha._get_tables()
    rows: list[tuple[str, str, str]] = []
    for k, word in enumerate(sorted(tables.forms["noun"])):
        rows.append((word, "NNS", "form"))
        if k % 10 == 0:
            rows.append((word.upper(), "NNS", "form"))
    for k, word in enumerate(sorted(tables.forms["verb"])):
        rows.append((word, VERB_TAGS[k % len(VERB_TAGS)], "form"))
        if k % 10 == 0:
            rows.append((word.upper(), VERB_TAGS[(k + 1) % len(VERB_TAGS)], "form"))
    for state, tag in (("noun", "NNS"), ("verb", "VBZ")):
        for ending in sorted(tables.endings[state]):
            rows += [(start + ending, tag, "ending") for start in ("", "snow", "x9")]
    for stem in sorted(tables.stems):
        rows += [(stem + stem[-1] + "ed", "VBD", "stem"), (stem + stem[-1] + "ing", "VBG", "stem")]
    made_up = [f"z{v}{c}" for v in "aeiou" for c in "bdgmnprt"][: len(tables.stems) // 8]
    rows += [(stem + stem[-1] + "ed", "VBN", "stem") for stem in made_up]
    rows += [(word, tag, "special") for word in SPECIAL_WORDS for tag in PTB_TAGS]
    rows += [(word, tag, "tag") for word in ("dogs", "running", "was", "'s", "an", "me", "up-") for tag in ODD_TAGS]
    rows += [(word, tag, "char") for word in CHAR_WORDS for tag in ("NNS", "VBG", "NN", "NNP", "PRP", "VBZ")]
    with open(val2014_captions(), encoding="utf-8") as fh:
        vocabulary = sorted(caption_words(item["caption"] for item in json.load(fh)["annotations"]))
    hyphenated = [word for word in vocabulary if "-" in word]
    rows += [(word, tag, "hyphen") for word in hyphenated for tag in ("NNS", "VBG", "NN")]
    rng = random.Random(0)
    rows += [(rng.choice(vocabulary), rng.choice(PTB_TAGS), "sample") for _ in range(4000)]
    rows = list(dict.fromkeys(rows))
    lemmas = run_morpha([(word, tag) for word, tag, _ in rows])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(OUT, "wb", mtime=0, compresslevel=9) as fh:
        for (word, tag, kind), lemma in zip(rows, lemmas, strict=True):
            fh.write((json.dumps([word, tag, lemma, kind], ensure_ascii=False) + "\n").encode("utf-8"))
    print(f"wrote {OUT} ({len(rows):,} pairs, {OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
