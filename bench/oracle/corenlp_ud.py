"""CoreNLP 3.6.0's tree -> UD v1 conversion on its own, for Penn trees written by hand or by a parser.

``UdFromTrees.java`` (in ``corenlp_ud/``) reads one tree per line and prints the basic and
CCprocessed dependencies the way the parser annotator inside official SPICE builds them, so a
converter can be tested on constructions no caption in the stage files happens to show. It uses
the CoreNLP jars that :func:`.spice_full.spice_full_dir` installs, is compiled on first use, and
its outputs are cached by input hash like the other oracles.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from .official import OracleUnavailable, oracle_dir
from .spice_full import _classpath, spice_full_dir

__all__ = ["run_ud_trees"]

_SOURCES = Path(__file__).with_name("corenlp_ud")


def _classes() -> Path:
    sources = sorted(_SOURCES.glob("*.java"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    target = spice_full_dir()
    classes = oracle_dir() / "corenlp-ud" / f"classes-{digest}"
    if not (classes / "UdFromTrees.class").is_file():
        classes.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", _classpath(target), "-d", str(classes)]
            + [str(p) for p in sources],
            check=True,
            capture_output=True,
        )
    return classes


def run_ud_trees(trees: list[str], *, sentence_index: int | None = None, timeout: float = 3600) -> list[dict[str, Any]]:
    """``{"basic": [[rel, gov, dep], ...], "ccprocessed": [...]}`` per Penn tree string, in order.

    Args:
        trees: trees as ``Tree.toString()`` prints them, one line each.
        sentence_index: when given, the leaves carry this sentence index (CoreNLP hashes words by
            it, which can change the order in which it visits them); ``None`` leaves it unset.
    """
    for text in trees:
        if "\n" in text or "\r" in text or "\t" in text:
            raise ValueError(f"one tree per line, without tabs: {text!r}")
    prefix = "" if sentence_index is None else f"{sentence_index}\t"
    blob = "".join(f"{prefix}{text}\n" for text in trees).encode("utf-8")
    harness = b"".join(p.read_bytes() for p in sorted(_SOURCES.glob("*.java")))
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    out_path = cache / f"udtrees-{hashlib.sha256(blob + harness).hexdigest()[:16]}.json"
    if not out_path.exists():
        classes = _classes()
        classpath = f"{_classpath(spice_full_dir())}{os.pathsep}{classes}"
        done = subprocess.run(
            ["java", "-Xmx4G", "-cp", classpath, "UdFromTrees"],
            input=blob,
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        lines = done.stdout.decode("utf-8").splitlines()
        if len(lines) != len(trees):
            raise OracleUnavailable(f"the tree harness wrote {len(lines)} lines for {len(trees)} trees")
        tmp = out_path.with_name(f"{out_path.name}.tmp{os.getpid()}")
        tmp.write_text("[" + ",\n".join(lines) + "]", encoding="utf-8")
        os.replace(tmp, out_path)
    with open(out_path, encoding="utf-8") as fh:
        result: list[dict[str, Any]] = json.load(fh)
    return result
