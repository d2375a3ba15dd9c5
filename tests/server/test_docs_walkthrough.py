"""Runs the host walkthrough of docs/server.md ("From an empty machine to a running challenge").

Two levels:

* ``test_docs_walkthrough_sqlite`` / ``_postgres`` (fast, default suite): the block after the
  ``walkthrough`` marker, in an empty folder holding reference files, with this checkout on
  ``PYTHONPATH``; on PostgreSQL when ``CAPEVAL_TEST_POSTGRES_URL`` is set. Then, in the same folder,
  the blocks of "Running it for real" that run on the machine (a host's password reset, a phase
  export, a backup, the database wiped, the restore: the leaderboard is the same).
* ``test_docs_from_an_empty_machine`` (slow; CI runs it with ``-m slow`` against the PostgreSQL that
  ``.ci/run`` starts): every command of the section, in order: the ``install`` block (a new venv in
  the empty folder, ``pip install``), the walkthrough on SQLite, the ``postgres`` block (role,
  database, ``pip install`` of the extra, the database URL), and the walkthrough again on
  PostgreSQL, all in one shell, with the installed package (no ``PYTHONPATH``).

What the test changes in the commands, and why (nothing else is changed):

* ``pip install '/path/to/capeval[...]'`` installs this source checkout (``/path/to/capeval`` is
  the doc's placeholder for the reader's copy of the source);
* port 8000 becomes a free port;
* ``sudo`` is a stand-in script first on ``PATH``: ``sudo apt-get install PKG...`` checks with
  ``dpkg-query`` that each package is installed (``.ci/run`` installs them; the test does not run
  apt, which needs the network and package lists) and fails naming any that is not;
  ``sudo -u USER CMD...`` runs ``CMD`` as database user ``USER`` (``PGUSER``), since the test
  server trusts local connections and CI may have no ``sudo``;
* the PostgreSQL commands reach the test server through ``PGHOST``/``PGPORT`` taken from
  ``CAPEVAL_TEST_POSTGRES_URL``, and ``@localhost/`` in the documented database URL becomes
  ``@<that host>:<that port>/``. The role and database the doc creates (``capeval``) are dropped
  before and after the run: that server is a throwaway test server (the fixtures already reset it).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .support import demo_references, postgres_url, reset_postgres, results_for, split_ids

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "server.md"
SECTION = "## From an empty machine to a running challenge"

SUDO_STAND_IN = """#!/bin/sh
# Stand-in for sudo in the docs test (see tests/server/test_docs_walkthrough.py).
if [ "$1" = "apt-get" ] && [ "$2" = "install" ]; then
  shift 2
  for package in "$@"; do
    case "$package" in -*) continue ;; esac
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' \\
      || { echo "docs/server.md names apt package '$package', which is not installed" >&2; exit 1; }
    echo "apt package $package is installed"
  done
  exit 0
fi
if [ "$1" = "-u" ]; then
  user="$2"; shift 2
  PGUSER="$user" exec "$@"
fi
exec "$@"
"""


def _block(marker: str) -> str:
    """The bash block after ``<!-- marker: ... -->`` in the walkthrough section."""
    after = DOCS.read_text().split(f"<!-- {marker}:", 1)[1]
    return after.split("```bash\n", 1)[1].split("\n```", 1)[0]


def _walkthrough() -> str:
    return _block("walkthrough")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _reference_files(folder: Path) -> list[int]:
    refs = demo_references()
    val, test = split_ids()
    (folder / "references").mkdir()
    (folder / "references" / "val.json").write_text(json.dumps({str(i): refs[i] for i in val}))
    (folder / "references" / "test.json").write_text(json.dumps({str(i): refs[i] for i in test}))
    (folder / "baseline-val.json").write_text(json.dumps(results_for(val)))
    return val


def _check_run(stdout: str, log: str, val: list[int]) -> None:
    """What one run of the walkthrough block prints and logs."""
    lines = stdout.strip().split("\n")
    assert lines[:3] == [str(i) for i in sorted(val)[:3]], stdout
    registration = json.loads(lines[3])
    assert registration["mode"] == "invite" and registration["team_size"] == 4 and registration["invite_code"]
    assert "challenge 'my-challenge' installed" in log and "baseline of my-challenge/val queued" in log


def _run(tmp_path: Path, database_url: str | None) -> str:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    val = _reference_files(tmp_path)
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
    _check_run(done.stdout, log, val)
    return log


RUNNING = "## Running it for real"
#: The blocks of "Running it for real" this file runs, in the order it runs them.
OPERATIONS = ("reset", "export", "backup", "restore")


def _section_block(marker: str) -> str:
    """The bash block after ``<!-- marker: ... -->`` in "Running it for real"."""
    section = DOCS.read_text().split(RUNNING, 1)[1].split("\n## ", 1)[0]
    after = section.split(f"<!-- {marker}: tests/server/test_docs_walkthrough.py runs this block -->\n", 1)[1]
    return after.split("```bash\n", 1)[1].split("\n```", 1)[0]


def _bash(script: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (script, done.stdout, done.stderr)
    return done.stdout


def _board(database_url: str) -> list:
    """Every split's leaderboard (every entry, scores and significance) as the host sees it."""
    from fastapi.testclient import TestClient

    from capeval.server.app import create_app
    from capeval.server.config import Settings
    from capeval.server.db import Database

    db = Database(database_url)
    app = create_app(Settings(database_url=database_url, metrics=("bleu",)), db=db)
    with TestClient(app) as client:
        boards = client.get("/api/v1/challenges/my-challenge/leaderboard?all=1").json()["splits"]
    db.dispose()
    return boards


def _operations(tmp_path: Path, database_url: str | None) -> None:
    """The runnable blocks of "Running it for real", in the walkthrough's folder after its server
    stopped: a host's password reset, a phase export, a backup, the database wiped, the restore;
    the restored leaderboard equals the one backed up."""
    from capeval.server.config import Settings
    from capeval.server.db import Database
    from capeval.server.worker import Worker

    url = database_url or f"sqlite:///{tmp_path / 'server-data' / 'capeval.db'}"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    env.pop("CAPEVAL_DATABASE_URL", None)
    env.pop("CAPEVAL_NEW_PASSWORD", None)
    if database_url:
        env["CAPEVAL_DATABASE_URL"] = database_url
    db = Database(url)
    Worker(db, Settings(database_url=url)).run(once=True)  # the baseline, scored as the server would
    db.dispose()
    out = _bash(_section_block("reset"), tmp_path, env)
    password = out.split("new password: ", 1)[1].split()[0]
    assert "revoked" in out and len(password) >= 12
    _bash(_section_block("export"), tmp_path, env)
    manifest = json.loads(zipfile.ZipFile(tmp_path / "my-challenge-val.zip").read("manifest.json"))
    assert manifest["challenge"]["slug"] == "my-challenge" and manifest["submissions"][0]["baseline"]
    assert "alice" in (tmp_path / "roster.csv").read_text()
    before = _board(url)
    assert before[0]["entries"] and before[0]["entries"][0]["scores"]
    _bash(_section_block("backup"), tmp_path, env)
    assert len(list(tmp_path.glob("capeval-*.backup"))) == 1
    if database_url:
        reset_postgres(database_url)
    else:
        shutil.rmtree(tmp_path / "server-data")
    _bash(_section_block("restore"), tmp_path, env)
    assert _board(url) == before


def test_running_it_for_real_runs_its_bash_blocks():
    """Every bash block of "Running it for real" is one this file runs (configs are nginx, toml, ini)."""
    section = DOCS.read_text().split(RUNNING, 1)[1].split("\n## ", 1)[0]
    assert section.count("```bash") == len(OPERATIONS)
    for marker in OPERATIONS:
        assert _section_block(marker)


def test_docs_walkthrough_sqlite(tmp_path):
    _run(tmp_path, None)
    assert (tmp_path / "server-data" / "capeval.db").exists()
    _operations(tmp_path, None)


@pytest.mark.postgres
def test_docs_walkthrough_postgres(tmp_path):
    url = postgres_url()
    if not url:
        pytest.skip("CAPEVAL_TEST_POSTGRES_URL is not set")
    pytest.importorskip("psycopg")
    reset_postgres(url)
    _run(tmp_path, url)
    assert not (tmp_path / "server-data" / "capeval.db").exists()
    _operations(tmp_path, url)


def test_the_section_is_exactly_three_blocks_all_run():
    """No command of the section escapes the slow test: it has the three marked blocks and no other."""
    section = DOCS.read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]
    assert section.count("```bash") == 3
    for marker in ("install", "walkthrough", "postgres"):
        assert f"<!-- {marker}: tests/server/test_docs_walkthrough.py runs this block -->\n```bash" in section


def _drop_doc_database(admin: dict[str, str]) -> None:
    for sql in ("DROP DATABASE IF EXISTS capeval", "DROP ROLE IF EXISTS capeval"):
        subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c", sql], env=admin, check=True)


@pytest.mark.slow
def test_docs_from_an_empty_machine(tmp_path):
    """Every command of the section, in order, in one shell (see the module docstring for the changes)."""
    for tool in ("curl", "dpkg-query"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    url = postgres_url()
    bin_dir = tmp_path / "stand-in-bin"
    bin_dir.mkdir()
    (bin_dir / "sudo").write_text(SUDO_STAND_IN)
    (bin_dir / "sudo").chmod(0o755)
    work = tmp_path / "host"
    work.mkdir()
    val = _reference_files(work)
    port = str(_free_port())
    install = _block("install").replace("'/path/to/capeval[", f"'{ROOT}[")
    assert str(ROOT) in install
    walkthrough = _walkthrough().replace("8000", port)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAPEVAL_DATABASE", "PYTHON", "VIRTUAL_ENV", "PG"))}
    # The interpreter running the tests provides python3 (and pip's cache); the stand-in sudo comes first.
    env["PATH"] = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    parts = [
        install,
        'test "$(command -v capeval)" = "$PWD/capeval-env/bin/capeval"',
        "echo '=== sqlite'",
        walkthrough,
        "printf '\\n=== end\\n'",  # the last curl prints no newline
        "mv server.log server-sqlite.log",
    ]
    admin: dict[str, str] = {}
    if url:
        from sqlalchemy.engine import make_url

        pytest.importorskip("psycopg")
        reset_postgres(url)
        parsed = make_url(url)
        env["PGHOST"] = parsed.host or "127.0.0.1"
        env["PGPORT"] = str(parsed.port or 5432)
        if parsed.password:
            env["PGPASSWORD"] = parsed.password
        admin = {**env, "PGUSER": parsed.username or "postgres"}
        _drop_doc_database(admin)
        postgres = _block("postgres").replace("@localhost/", f"@{env['PGHOST']}:{env['PGPORT']}/")
        postgres = postgres.replace("'/path/to/capeval[", f"'{ROOT}[")
        assert str(ROOT) in postgres and f":{env['PGPORT']}/" in postgres
        parts += [postgres, "echo '=== postgres'", walkthrough, "printf '\\n=== end\\n'"]
    try:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", "\n".join(parts)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        logs = {p.name: p.read_text() for p in work.glob("server*.log")}
        assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-4000:], logs)
        out = done.stdout
        assert "apt package python3-venv is installed" in out and "apt package curl is installed" in out
        sqlite_out = out.split("=== sqlite\n", 1)[1].split("\n=== end\n", 1)[0]
        _check_run(sqlite_out, logs["server-sqlite.log"], val)
        assert (work / "server-data" / "capeval.db").exists()
        if url:
            assert "apt package postgresql is installed" in out
            _check_run(out.split("=== postgres\n", 1)[1].split("\n=== end\n", 1)[0], logs["server.log"], val)
            # The second run stored its challenge in the database the doc created, owned by its role.
            query = (
                "SELECT c.slug, pg_get_userbyid(d.datdba) FROM challenge c, pg_database d WHERE d.datname = 'capeval'"
            )
            rows = subprocess.run(
                ["psql", "-At", "-d", "capeval", "-c", query], env=admin, check=True, capture_output=True, text=True
            ).stdout.split()
            assert rows == ["my-challenge|capeval"], rows
    finally:
        if admin:
            _drop_doc_database(admin)
    if not url:
        pytest.skip("the SQLite part ran; the PostgreSQL part needs CAPEVAL_TEST_POSTGRES_URL")
