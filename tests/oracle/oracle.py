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

__all__ = ["OracleUnavailable", "human_agreement_protocol", "oracle_dir", "oracle_python", "run_official",
           "val2014_captions"]

#: The official package version the parity suites compare against.
OFFICIAL_PACKAGE = "pycocoevalcap==1.2"
_RUNNER = Path(__file__).with_name("official_runner.py")


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
        subprocess.run([str(python), "-m", "pip", "install", "-q", OFFICIAL_PACKAGE, "pycocotools"], check=True,
                       capture_output=True)
    except subprocess.CalledProcessError as exc:
        raise OracleUnavailable(f"could not install {OFFICIAL_PACKAGE}: {exc.stderr!r:.500}") from None
    return python


def val2014_captions() -> Path:
    """COCO val2014 captions (40,504 images, 202,654 captions), extracted from the official package."""
    target = oracle_dir() / "captions_val2014.json"
    if target.exists() and target.stat().st_size > 0:
        return target
    python = oracle_python(need_java=False)
    jar = subprocess.run(
        [str(python), "-c", "import os, pycocoevalcap as p; "
         "print(os.path.join(list(p.__path__)[0], 'spice', 'spice-1.0.jar'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
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


def run_official(ids: list[Any], candidates: list[str], references: list[list[str]], *,
                 metrics: tuple[str, ...] = ("bleu", "meteor", "rouge", "cider"), tokenize: bool = True,
                 timeout: float = 3600) -> dict[str, Any]:
    """Official scores for the given items (cached by input hash)."""
    job = {"ids": [str(i) for i in ids], "candidates": list(candidates), "references": [list(r) for r in references],
           "metrics": list(metrics), "tokenize": tokenize}
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
