"""CoreNLP 3.6.0's tokenizer and sentence splitter alone, as SPICE's pipeline configures them.

``run_tokens(captions)`` gives, per caption, the token words of each sentence exactly as the
``tokenize,ssplit`` annotators of the official SPICE 1.0 pipeline produce them (the jars of
:func:`.spice_full.spice_full_dir`). The full pipeline (:func:`.spice_full.run_stages`) gives the same
tokens, but loads the parser and parses every sentence; this harness starts in about a second and
tokenizes thousands of captions per second, so it suits large stress sets. Captions are sent as JSON
strings, one per line, so they may hold line breaks and any other character.

Outputs are cached under the oracle directory, keyed by a hash of the input and the harness.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from .official import OracleUnavailable, oracle_dir
from .spice_full import cached_json_lines, spice_full_dir

__all__ = ["run_tokens"]

_SOURCE = Path(__file__).with_name("corenlp_tokens") / "CoreNLPTokens.java"
_LIBS = ("stanford-corenlp-3.6.0.jar", "slf4j-api-1.7.12.jar", "slf4j-simple-1.7.21.jar", "json-simple-1.1.1.jar")


def _classpath() -> str:
    lib = spice_full_dir() / "lib"
    return os.pathsep.join(str(lib / name) for name in _LIBS)


def _classes() -> Path:
    """The compiled harness (compiled on first use, again when its source changes)."""
    if shutil.which("javac") is None:
        raise OracleUnavailable("javac is needed (apt-get install -y default-jdk-headless)")
    digest = hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:12]
    classes = oracle_dir() / "corenlp-tokens" / f"classes-{digest}"
    if not (classes / "CoreNLPTokens.class").is_file():
        tmp = classes.with_name(f"{classes.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        subprocess.run(
            ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", _classpath(), "-d", str(tmp), str(_SOURCE)],
            check=True,
            capture_output=True,
        )
        shutil.rmtree(classes, ignore_errors=True)
        os.replace(tmp, classes)
    return classes


def run_tokens(captions: list[str], *, timeout: float = 3600) -> list[list[list[str]]]:
    """The token words of each sentence of each caption, from CoreNLP 3.6.0's ``tokenize,ssplit``.

    Args:
        captions: any strings (line breaks included).

    Returns:
        Per caption, its sentences, each a list of token words (``CoreLabel.word()``).
    """
    blob = "".join(json.dumps(text, ensure_ascii=True) + "\n" for text in captions).encode("ascii")
    digest = hashlib.sha256(blob + _SOURCE.read_bytes()).hexdigest()[:16]
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)

    def command() -> list[str]:
        return ["java", "-Xmx2G", "-cp", f"{_classpath()}{os.pathsep}{_classes()}", "CoreNLPTokens"]

    result: list[list[list[str]]] = cached_json_lines(
        cache / f"tokens-{digest}.json", command, blob, len(captions), timeout
    )
    return result
