"""Compare ``capeval spice parse`` output with the official SPICE pipeline's stages, caption by caption.

Both files are JSON lines (optionally gzipped) in the stage schema: ``{"caption": str, "sentences":
[{"tokens": [[word, tag, lemma], ...], "tree": str, "basic": [[relation, governor, dependent], ...],
"ccprocessed": [...]}]}``. The official file is what ``bench.oracle.run_stages`` (or the oracle's
``run-stages``) writes for a captions file; capeval's is ``capeval spice parse`` on the same file::

    capeval spice parse --tokenizer none --quiet captions.txt > capeval.jsonl
    python bench/compare_spice_stages.py official.stages.jsonl.gz capeval.jsonl

Use ``--tokenizer none`` when the captions file holds the text exactly as SPICE received it (for
example captions already PTB-tokenized as ``COCOEvalCap`` feeds them); ``--tokenizer ptb`` when it
holds raw captions and the official stages were computed on ``COCOEvalCap``'s tokenized text.

Captions are matched by their ``caption`` field (the official file may hold more captions than
capeval's). Prints, per field (tokens, tags, lemmas, tree, basic, ccprocessed), how many captions
agree, how many agree in every field, and the first differences; exits with status 1 when a
caption differs (or is missing from the official file).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIELDS = ("sentences", "words", "tags", "lemmas", "tree", "basic", "ccprocessed")


def read_stages(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a (gzipped) JSON lines file, checked to carry a caption."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}: line {number} is not JSON ({exc})") from None
            if not isinstance(record, dict) or not isinstance(record.get("caption"), str):
                raise SystemExit(f"{path}: line {number} has no caption field")
            yield record


def field_values(record: dict[str, Any]) -> dict[str, Any]:
    """What is compared, per field, for one caption."""
    sentences = record.get("sentences") or []
    tokens = [s.get("tokens") or [] for s in sentences]
    return {
        "sentences": len(sentences),
        "words": [[t[0] for t in ts] for ts in tokens],
        "tags": [[t[1] for t in ts] for ts in tokens],
        "lemmas": [[t[2] for t in ts] for ts in tokens],
        "tree": [s.get("tree") for s in sentences],
        "basic": [s.get("basic") for s in sentences],
        "ccprocessed": [s.get("ccprocessed") for s in sentences],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("official", type=Path, help="official stages (JSON lines, .gz allowed)")
    ap.add_argument("capeval", type=Path, help="capeval spice parse output (JSON lines, .gz allowed)")
    ap.add_argument("--show", type=int, default=5, help="differences printed (default 5)")
    args = ap.parse_args()
    official = {r["caption"]: r for r in read_stages(args.official)}
    agree = dict.fromkeys(FIELDS, 0)
    total = identical = missing = 0
    shown = 0
    for record in read_stages(args.capeval):
        total += 1
        theirs = official.get(record["caption"])
        if theirs is None:
            missing += 1
            continue
        mine_values, their_values = field_values(record), field_values(theirs)
        differing = [f for f in FIELDS if mine_values[f] != their_values[f]]
        for field in FIELDS:
            agree[field] += field not in differing
        identical += not differing
        if differing and shown < args.show:
            shown += 1
            print(f"differs: {record['caption']!r}", file=sys.stderr)
            for field in differing:
                shown_values = f"    capeval  {mine_values[field]}\n    official {their_values[field]}"
                print(f"  {field}:\n{shown_values}", file=sys.stderr)
    compared = total - missing
    print(f"captions: {total:,} from capeval, {compared:,} found in the official file ({missing:,} not found)")
    for field in FIELDS:
        print(f"  {field:12} identical {agree[field]:>8,} / {compared:,}")
    share = 100.0 * identical / compared if compared else 0.0
    print(f"every stage identical: {identical:,} / {compared:,} ({share:.3f}%)")
    return 0 if identical == total else 1


if __name__ == "__main__":
    sys.exit(main())
