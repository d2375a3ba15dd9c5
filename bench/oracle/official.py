"""Locate or install the official evaluation, build the val2014 protocol, and run the oracle.

The oracle lives in ``$CAPEVAL_ORACLE_DIR`` (default ``/tmp/capeval-oracle``): a virtual
environment with ``pycocoevalcap==1.2`` from PyPI and the COCO val2014 captions file that the
package's SPICE jar bundles. Official outputs are cached there, keyed by a hash of the input,
so several suites share one run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

__all__ = [
    "OracleUnavailable",
    "human_agreement_protocol",
    "oracle_dir",
    "oracle_python",
    "run_official",
    "run_spice_core",
    "val2014_captions",
]

#: The official package version the parity suites compare against.
OFFICIAL_PACKAGE = "pycocoevalcap==1.2"
_RUNNER = Path(__file__).with_name("official_runner.py")
#: Java sources of the SPICE scoring-core oracle (see ``spice_core/SpiceCoreOracle.java``).
_SPICE_CORE = Path(__file__).with_name("spice_core")


class OracleUnavailable(RuntimeError):
    """The oracle cannot be set up here (no Java, no package index)."""


def oracle_dir() -> Path:
    """Where the oracle lives."""
    return Path(os.environ.get("CAPEVAL_ORACLE_DIR", "/tmp/capeval-oracle"))


def oracle_python(*, need_java: bool = True) -> Path:
    """The oracle's Python, installing ``pycocoevalcap==1.2`` into a venv on first use."""
    if need_java and shutil.which("java") is None:
        raise OracleUnavailable("java is not installed (apt-get install -y default-jre-headless)")
    base = oracle_dir()
    python = base / "venv" / "bin" / "python"
    probe = [str(python), "-c", "import pycocoevalcap, pycocotools"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    base.mkdir(parents=True, exist_ok=True)
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True, capture_output=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", OFFICIAL_PACKAGE, "pycocotools"],
            check=True,
            capture_output=True,
        )
    except subprocess.CalledProcessError as exc:
        raise OracleUnavailable(f"could not install {OFFICIAL_PACKAGE}: {exc.stderr!r:.500}") from None
    return python


def _spice_dir() -> Path:
    """The official package's ``spice`` folder (``spice-1.0.jar`` and its ``lib/``)."""
    python = oracle_python(need_java=False)
    found = subprocess.run(
        [str(python), "-c", "import os, pycocoevalcap as p; print(os.path.join(list(p.__path__)[0], 'spice'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Path(found)


def run_spice_core(mode: str, payload: Any, *, exact: bool = False, timeout: float = 1800) -> list[str]:
    """Run the official SPICE 1.0 scoring classes (``spice-1.0.jar``) and METEOR 1.5 synsets.

    SPICE's scene-graph, tuple and matching classes need no parser, only two CoreNLP container
    classes, which ``spice_core/`` stands in for (CoreNLP itself cannot be installed here). The
    harness is compiled with ``javac`` on first use.

    Args:
        mode: ``"score"``: ``payload`` is a list of ``{"test": tuples, "refs": [tuples, ...]}``;
            one output line per item: tp fp fn of All, Object, Attribute, Relation,
            Cardinality, Color, Size, then the All F-score. ``"synsets"``: ``payload`` is a
            list of concept strings; one line per concept, ``concept TAB synset ids``.
        exact: Score as ``-noSynsets`` does.
    """
    if shutil.which("java") is None or shutil.which("javac") is None:
        raise OracleUnavailable("java and javac are needed (apt-get install -y default-jdk-headless)")
    spice = _spice_dir()
    classpath = [spice / "spice-1.0.jar"] + [
        spice / "lib" / name for name in ("Meteor-1.5.jar", "json-simple-1.1.1.jar", "guava-19.0.jar")
    ]
    sources = sorted(_SPICE_CORE.rglob("*.java"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    classes = oracle_dir() / f"spice-core-{digest}"
    if not classes.exists():
        tmp = classes.with_name(f"{classes.name}.tmp{os.getpid()}")
        subprocess.run(
            [
                "javac",
                "-nowarn",
                "-encoding",
                "UTF-8",
                "-d",
                str(tmp),
                "-cp",
                os.pathsep.join(map(str, classpath)),
                *map(str, sources),
            ],
            check=True,
            capture_output=True,
        )
        os.replace(tmp, classes)
    work = oracle_dir() / "cache"
    work.mkdir(parents=True, exist_ok=True)
    in_path, out_path = work / f"spice-core-in-{os.getpid()}", work / f"spice-core-out-{os.getpid()}"
    if mode == "synsets":
        in_path.write_text("".join(f"{word}\n" for word in payload), encoding="utf-8")
    else:
        in_path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    command = [
        "java",
        "-cp",
        os.pathsep.join(map(str, [classes, *classpath])),
        "SpiceCoreOracle",
        mode,
        str(in_path),
        str(out_path),
    ] + (["exact"] if exact else [])
    try:
        subprocess.run(command, check=True, capture_output=True, timeout=timeout)
        return out_path.read_text(encoding="utf-8").splitlines()
    finally:
        in_path.unlink(missing_ok=True)
        out_path.unlink(missing_ok=True)


def val2014_captions() -> Path:
    """COCO val2014 captions (40,504 images, 202,654 captions), extracted from the official package."""
    target = oracle_dir() / "captions_val2014.json"
    if target.exists() and target.stat().st_size > 0:
        return target
    jar = _spice_dir() / "spice-1.0.jar"
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(jar) as archive, open(tmp, "wb") as out:
        out.write(archive.read("coco/annotations/captions_val2014.json"))
    os.replace(tmp, target)
    return target


def human_agreement_protocol(n_refs: int = 4) -> dict[str, Any]:
    """The val2014 human-agreement protocol: per image, its first caption (file order) is the
    candidate and the next ``n_refs`` are the references; images in the file's image order."""
    with open(val2014_captions(), encoding="utf-8") as fh:
        data = json.load(fh)
    by_image: dict[int, list[str]] = {}
    for ann in data["annotations"]:
        by_image.setdefault(ann["image_id"], []).append(ann["caption"])
    ids = [img["id"] for img in data["images"]]
    return {
        "ids": ids,
        "candidates": [by_image[i][0] for i in ids],
        "references": [by_image[i][1 : 1 + n_refs] for i in ids],
    }


def run_official(
    ids: list[Any],
    candidates: list[str],
    references: list[list[str]],
    *,
    metrics: tuple[str, ...] = ("bleu", "meteor", "rouge", "cider"),
    tokenize: bool = True,
    timeout: float = 3600,
) -> dict[str, Any]:
    """Official scores for the given items (cached by input hash)."""
    job = {
        "ids": [str(i) for i in ids],
        "candidates": list(candidates),
        "references": [list(r) for r in references],
        "metrics": list(metrics),
        "tokenize": tokenize,
    }
    blob = json.dumps(job, ensure_ascii=False, sort_keys=True).encode("utf-8")
    digest = hashlib.sha256(blob + _RUNNER.read_bytes()).hexdigest()[:16]
    cache = oracle_dir() / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    out_path = cache / f"official-{digest}.json"
    if not out_path.exists():
        need_java = tokenize or "meteor" in metrics
        python = oracle_python(need_java=need_java)
        in_path = cache / f"job-{digest}.json"
        in_path.write_bytes(blob)
        tmp_out = cache / f"official-{digest}.tmp{os.getpid()}"
        subprocess.run([str(python), str(_RUNNER), str(in_path), str(tmp_out)], check=True, timeout=timeout)
        os.replace(tmp_out, out_path)
    with open(out_path, encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result
