"""CoreNLP 3.6.0's englishPCFG parser timed in Java, as SPICE's pipeline runs it (no cache).

``corenlp_parse/ParseTimer.java`` reads captions, tokenizes and splits them with the pipeline's
tokenizer, loads ``englishPCFG.ser.gz`` and parses every sentence as ``ParserAnnotator`` does (a
new query per sentence, the 1-best of the k-best code), a given number of passes over. It is
compiled on first use against the official pipeline's jars (:func:`.spice_full.spice_full_dir`).
Unlike :func:`.spice_full.run_stages`, nothing is cached: every call runs (and times) Java.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from .official import OracleUnavailable, oracle_dir
from .spice_full import spice_full_dir

__all__ = ["time_official_parse"]

_SOURCE = Path(__file__).with_name("corenlp_parse") / "ParseTimer.java"
_JARS = (
    "stanford-corenlp-3.6.0.jar",
    "stanford-corenlp-3.6.0-models.jar",
    "slf4j-api-1.7.12.jar",
    "slf4j-simple-1.7.21.jar",
    "json-simple-1.1.1.jar",
)


def _classpath() -> str:
    lib = spice_full_dir() / "lib"
    return os.pathsep.join(str(lib / name) for name in _JARS)


def _compiled() -> Path:
    digest = hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:12]
    classes = oracle_dir() / f"corenlp-parse-{digest}"
    if not (classes / "ParseTimer.class").is_file():
        classes.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", _classpath(), "-d", str(classes), str(_SOURCE)],
                check=True,
                capture_output=True,
            )
        except (OSError, subprocess.CalledProcessError) as exc:
            raise OracleUnavailable(f"could not compile {_SOURCE.name}: {exc}") from None
    return classes


def time_official_parse(captions: list[str], *, passes: int = 1, timeout: float = 7200) -> dict[str, Any]:
    """Parse ``captions`` with CoreNLP 3.6.0 in a fresh JVM and time it.

    Returns:
        ``{"wall_seconds": float, "jvm_start_seconds": float, "tokenize_seconds": float,
        "load_seconds": float, "parse_seconds": [float per pass], "parse_cpu_seconds": [float per
        pass] (process CPU time, JIT and garbage collector included), "sentences": int,
        "captions": [[{"words": [str, ...], "tree": str}, ...] per caption]}``; ``wall_seconds``
        is the whole subprocess, JVM start and output included.
    """
    for text in captions:
        if "\n" in text or "\r" in text:
            raise ValueError(f"the parse timer reads one caption per line: {text!r}")
    classes = _compiled()
    blob = "".join(f"{text}\n" for text in captions).encode("utf-8")
    command = ["java", "-Xmx6G", "-cp", f"{_classpath()}{os.pathsep}{classes}", "ParseTimer", str(passes)]
    start = time.perf_counter()
    done = subprocess.run(command, input=blob, check=True, capture_output=True, timeout=timeout)
    wall = time.perf_counter() - start
    lines = done.stdout.decode("utf-8").splitlines()
    if len(lines) != len(captions) + 1:
        raise OracleUnavailable(f"the parse timer wrote {len(lines)} lines for {len(captions)} captions")
    result: dict[str, Any] = json.loads(lines[0])
    result["wall_seconds"] = wall
    result["captions"] = [json.loads(line) for line in lines[1:]]
    return result
