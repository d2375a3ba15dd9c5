"""Oracle: the raw tuples official SPICE 1.0's parser emits per caption, and the graphs its rules read.

``spice_tuples/edu/anu/spice/SpiceRawTuples.java`` runs SPICE's CoreNLP 3.6.0 pipeline (configured
as SPICE's ``Annotator`` configures it) and SPICE's own ``SpiceParser.parseAnnotation`` on each
caption, and prints, per caption, the raw tuple list in the order the rules emit it (what the jar's
``-cache`` stores, before any scene-graph merging) and every sentence's CCprocessed graph before and
after SPICE's enhancements, with copy nodes and in the graph's own iteration order. It needs the
installation of :mod:`.spice_full`; outputs are cached under the oracle directory by input hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from .official import OracleUnavailable, oracle_dir
from .spice_full import cached_json_lines, spice_full_dir

__all__ = ["run_graph_tuples", "run_raw_tuples"]

_SOURCES = Path(__file__).with_name("spice_tuples")


def _classpath(target: Path) -> str:
    return os.pathsep.join([str(target / "spice-1.0.jar"), *sorted(str(p) for p in (target / "lib").glob("*.jar"))])


def _compiled() -> tuple[Path, str]:
    if shutil.which("javac") is None:
        raise OracleUnavailable("java and javac are needed (apt-get install -y default-jdk-headless)")
    target = spice_full_dir()
    sources = sorted(_SOURCES.rglob("*.java"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    classes = oracle_dir() / f"spice-tuples-{digest}"
    if not classes.exists():
        tmp = classes.with_name(f"{classes.name}.tmp{os.getpid()}")
        command = ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", _classpath(target), "-d", str(tmp)]
        subprocess.run([*command, *map(str, sources)], check=True, capture_output=True)
        os.replace(tmp, classes)
    return classes, digest


def _run(main_class: str, blob: bytes, kind: str, count: int, timeout: float, *args: str) -> list[Any]:
    """Run one harness on ``blob`` (one input per line), cached by input hash; one JSON value per line."""
    classes, digest = _compiled()
    key = hashlib.sha256(blob + digest.encode() + " ".join(args).encode()).hexdigest()[:16]
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    out_path = cache / f"{kind}-{key}.json"
    target = spice_full_dir()

    def command() -> list[str]:
        return ["java", "-Xmx6G", "-cp", f"{_classpath(target)}{os.pathsep}{classes}", main_class, *args]

    return cached_json_lines(out_path, command, blob, count, timeout)


def run_raw_tuples(captions: list[str], *, threads: int = 1, timeout: float = 7200) -> list[dict[str, Any]]:
    """Per caption, in input order: ``{"caption", "tuples": [[...], ...], "before": [graph, ...],
    "after": [graph, ...]}``.

    A graph is ``{"vertices": [[index, copy, word, tag, lemma], ...], "edges": [[rel, [gov, copy],
    [dep, copy]], ...], "roots": [[index, copy], ...]}``, vertices and edges in the graph's iteration
    order (vertex by vertex, each vertex's outgoing edges).
    """
    for text in captions:
        if "\n" in text or "\r" in text:
            raise ValueError(f"the tuples harness reads one caption per line: {text!r}")
    blob = "".join(f"{text}\n" for text in captions).encode("utf-8")
    return _run("edu.anu.spice.SpiceRawTuples", blob, "rawtuples", len(captions), timeout, str(threads))


def run_graph_tuples(documents: list[dict[str, Any]], *, timeout: float = 3600) -> list[Any]:
    """SPICE's own enhancements and rules (``SpiceParser.parseAnnotation``) on given graphs.

    Args:
        documents: ``{"sentences": [{"nodes": [[index, copy, word, tag, lemma], ...], "edges":
            [[rel, [gov, copy], [dep, copy]], ...], "roots": [[index, copy], ...]}, ...]}`` each;
            the graph is built in that order (nodes, edges, roots), nodes hashed with their
            sentence index as in SPICE's pipeline.

    Returns:
        Per document, the raw tuple list in the jar's order, or ``{"error": message}`` where
        the jar throws (or loops: 5 s per document).
    """
    blob = "".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in documents).encode("utf-8")
    return _run("edu.anu.spice.SpiceGraphTuples", blob, "graphtuples", len(documents), timeout)
