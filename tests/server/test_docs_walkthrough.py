"""Runs the host walkthrough of docs/server.md (the block after its ``walkthrough`` marker) in an empty
folder holding reference files, on SQLite and, when ``CAPEVAL_TEST_POSTGRES_URL`` is set, on
PostgreSQL. The install commands before it (pip, apt, createdb) are not run here: CI installs the
package itself, and its PostgreSQL is started by ``.ci/run``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .support import demo_references, postgres_url, reset_postgres, results_for, split_ids

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "server.md"


def _walkthrough() -> str:
    after = DOCS.read_text().split("<!-- walkthrough", 1)[1]
    return after.split("```bash\n", 1)[1].split("\n```", 1)[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(tmp_path: Path, database_url: str | None) -> str:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    refs = demo_references()
    val, test = split_ids()
    (tmp_path / "references").mkdir()
    (tmp_path / "references" / "val.json").write_text(json.dumps({str(i): refs[i] for i in val}))
    (tmp_path / "references" / "test.json").write_text(json.dumps({str(i): refs[i] for i in test}))
    (tmp_path / "baseline-val.json").write_text(json.dumps(results_for(val)))
    script = _walkthrough().replace("8000", str(_free_port()))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    env.pop("CAPEVAL_DATABASE_URL", None)
    if database_url:
        env["CAPEVAL_DATABASE_URL"] = database_url
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    log = (tmp_path / "server.log").read_text() if (tmp_path / "server.log").exists() else ""
    assert done.returncode == 0, (done.stdout, done.stderr, log)
    lines = done.stdout.split("\n")
    assert lines[:3] == [str(i) for i in sorted(val)[:3]]
    registration = json.loads(lines[3])
    assert registration["mode"] == "invite" and registration["team_size"] == 4 and registration["invite_code"]
    assert "challenge 'my-challenge' installed" in log and "baseline of my-challenge/val queued" in log
    return log


def test_docs_walkthrough_sqlite(tmp_path):
    _run(tmp_path, None)
    assert (tmp_path / "server-data" / "capeval.db").exists()


@pytest.mark.postgres
def test_docs_walkthrough_postgres(tmp_path):
    url = postgres_url()
    if not url:
        pytest.skip("CAPEVAL_TEST_POSTGRES_URL is not set")
    pytest.importorskip("psycopg")
    reset_postgres(url)
    _run(tmp_path, url)
    assert not (tmp_path / "server-data" / "capeval.db").exists()
