"""The challenge config file and ``capeval serve``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from capeval.cli.main import build_parser
from capeval.server.config import load_config_file
from capeval.server.db import Database, upgrade_schema
from capeval.server.models import Phase, Split
from capeval.server.services.challenges import install_challenge

from .support import DATA, split_ids

CONFIG = """
[server]
max_upload_bytes = 5_000_000
metrics = ["bleu", "cider-d"]
tokenizer = "ws"

[[challenge]]
slug = "my-challenge"
title = "My challenge"

[[challenge.splits]]
name = "val"
references = "{refs}"
image_ids = {val}

[[challenge.splits]]
name = "test-c5"
references = "{refs}"
visibility = "hidden"
image_ids = {test}

[[challenge.phases]]
name = "val"
splits = ["val"]
max_per_day = 10
max_total = 100
max_in_flight = 2

[[challenge.phases]]
name = "test"
splits = ["test-c5"]
max_per_day = 1
scores_visible = "after_end"
ends_at = "2030-01-01T00:00:00Z"
"""


def _write_config(tmp_path: Path) -> Path:
    val, test = split_ids()
    path = tmp_path / "challenge.toml"
    refs = DATA / "captions_val2014_demo_subset.json"
    path.write_text(CONFIG.format(refs=refs.as_posix(), val=json.dumps(val), test=json.dumps(test)))
    return path


def test_config_file_installs_challenge(tmp_path):
    settings, challenges = load_config_file(_write_config(tmp_path))
    assert settings.max_upload_bytes == 5_000_000 and settings.metrics == ("bleu", "cider-d")
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    upgrade_schema(db)
    first = install_challenge(db, challenges[0])
    assert install_challenge(db, challenges[0]) == first  # idempotent by slug
    with db.read() as session:
        splits = {s.name: s for s in session.scalars(select(Split))}
        phases = {p.name: p for p in session.scalars(select(Phase))}
        assert splits["test-c5"].visibility == "hidden" and splits["val"].n_images == 30
        assert phases["test"].scores_visible == "after_end" and phases["test"].ends_at.year == 2030


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[server]\nbogus = 1\n", "unknown key(s) bogus"),
        ('[[challenge]]\nslug = "x"\ntitle = "x"\nsplits = []\n', "phases"),
        (
            '[[challenge]]\nslug="x"\ntitle="x"\n'
            'splits=[{name="a", references="r.json", visibility="secret"}]\nphases=[]\n',
            "visibility must be",
        ),
        (
            '[[challenge]]\nslug="x"\ntitle="x"\nsplits=[{name="a", references="r.json"}]\n'
            'phases=[{name="p", splits=["b"]}]\n',
            "unknown split",
        ),
        ("not toml = = =", "cannot parse config"),
    ],
)
def test_bad_config_is_reported(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        load_config_file(path)
    assert message in str(info.value)


def test_serve_is_registered():
    args = build_parser().parse_args(["serve", "--port", "9999", "--workers", "0", "--no-demo"])
    assert args.port == 9999 and args.workers == 0 and callable(args.func)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "capeval.cli.main",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "data"),
            "--tokenizer",
            "ws",
            "--metrics",
            "bleu,rouge-l,cider-d",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return process, f"http://127.0.0.1:{port}"


def _children(pid: int) -> list[int]:
    """Live child processes of ``pid`` (from /proc; zombies excluded)."""
    out = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat_file.parent.name))
    return sorted(out)


def _wait_until(fn, timeout=90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = fn()
            if value:
                return value
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError("timed out")


@pytest.mark.skipif(
    not (Path(__file__).resolve().parents[2] / "src/capeval/data/coco_demo/captions_val2014_demo_subset.json").exists(),
    reason="bundled demo data missing",
)
def test_capeval_serve_starts_with_demo(tmp_path):
    process, url = _serve(tmp_path, "--demo-host-password", "demo-host-pass")
    try:
        health = _wait_until(lambda: httpx.get(f"{url}/health").json())
        assert health["status"] == "ok"

        def baseline_scored():
            board = httpx.get(f"{url}/api/v1/challenges/coco-demo/leaderboard").json()
            return board if all(s["entries"] for s in board["splits"]) else None

        board = _wait_until(baseline_scored)
        val = next(s for s in board["splits"] if s["split"] == "val")
        assert val["n_images"] == 500 and val["entries"][0]["baseline"] and val["entries"][0]["scores"]["cider-d"] > 0
        token = httpx.post(f"{url}/api/v1/tokens", json={"username": "host", "password": "demo-host-pass"})
        assert token.status_code == 201
        # The supervisor restarts a worker that dies; the new one scores the next job.
        if Path("/proc/self/stat").exists():
            (worker_pid,) = _children(process.pid)
            os.kill(worker_pid, signal.SIGKILL)
            _wait_until(lambda: _children(process.pid) not in ([], [worker_pid]))
            auth = {"Authorization": f"Bearer {token.json()['token']}"}
            rerun = httpx.post(f"{url}/api/v1/submissions/1/rerun", headers=auth)
            assert rerun.status_code == 200, rerun.text
            _wait_until(lambda: httpx.get(f"{url}/api/v1/submissions/1", headers=auth).json()["status"] == "finished")
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    output = process.stdout.read()
    assert "capeval server on http://127.0.0.1" in output, output


def test_documented_config_example_parses(tmp_path):
    docs = Path(__file__).resolve().parents[2] / "docs" / "server.md"
    if not docs.exists():
        pytest.skip("docs/server.md not present")
    text = docs.read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.toml"
    path.write_text(block)
    settings, challenges = load_config_file(path)
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert [s.visibility for s in challenges[0].splits] == ["public", "hidden", "hidden"]
    assert challenges[0].phases[1].splits == ["test-c5", "test-c40"]


def test_ensure_host(server):
    from capeval.server.domain.errors import InvalidInput as ServiceError
    from capeval.server.services.accounts import ensure_host

    server.register("frank")
    assert ensure_host(server.db, "frank", None) is False
    with pytest.raises(ServiceError, match="password is needed"):
        ensure_host(server.db, "newhost", None)
    assert ensure_host(server.db, "newhost", "newhost-password") is True
    token = server.client.post("/api/v1/tokens", json={"username": "frank", "password": "password-123"}).json()
    assert server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token['token']}"}).json()["host"]


def test_config_baseline_is_installed_once(tmp_path):
    from capeval.server.config import Settings
    from capeval.server.models import Submission
    from capeval.server.services.accounts import ensure_host
    from capeval.server.services.baselines import install_baselines

    from .support import results_for

    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(results_for(split_ids()[0])))
    path = _write_config(tmp_path)
    path.write_text(
        path.read_text().replace(
            'title = "My challenge"\n', 'title = "My challenge"\nbaseline = {val = "baseline.json"}\n'
        )
    )
    _, challenges = load_config_file(path)
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    upgrade_schema(db)
    install_challenge(db, challenges[0])
    settings = Settings(database_url="sqlite://")
    assert "wait for a host account" in install_baselines(db, challenges[0], settings, "v")[0]
    ensure_host(db, "hostess", "host-password-1")
    lines = install_baselines(db, challenges[0], settings, "v")
    assert len(lines) == 1 and "queued as submission" in lines[0] and "30 images" in lines[0]
    assert install_baselines(db, challenges[0], settings, "v") == []  # never twice
    with db.read() as session:
        rows = list(session.scalars(select(Submission).where(Submission.is_baseline.is_(True))))
        assert len(rows) == 1 and rows[0].user.username == "hostess" and rows[0].phase.name == "val"
    # A baseline file that fails the upload checks is reported with its phase and path.
    baseline.write_text(json.dumps(results_for(split_ids()[0])[:3]))
    db2 = Database(f"sqlite:///{tmp_path / 'db2.sqlite'}")
    upgrade_schema(db2)
    install_challenge(db2, challenges[0])
    ensure_host(db2, "hostess", "host-password-1")
    with pytest.raises(ValueError, match="baseline of phase 'val'.*missing|baseline of phase 'val'.*have no caption"):
        install_baselines(db2, challenges[0], settings, "v")


def test_serve_with_config_and_no_host_says_how_to_add_one(tmp_path):
    process, url = _serve(tmp_path, "--config", str(_write_config(tmp_path)), "--workers", "0")
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            if "capeval server on" in line:
                break
        output = "".join(lines)
        assert "no host account yet" in output and "--add-host NAME" in output and "CAPEVAL_HOST_PASSWORD" in output
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def test_a_config_time_needs_a_zone_and_left_out_limits_mean_none(tmp_path):
    """``starts_at = "2026-01-01T00:00:00"`` is refused (which zone?); a phase without limits has none,
    as the host panel says of an empty limit."""
    path = _write_config(tmp_path)
    text = path.read_text()
    naive = text.replace('ends_at = "2030-01-01T00:00:00Z"', 'ends_at = "2030-01-01T00:00:00"')
    path.write_text(naive)
    with pytest.raises(ValueError, match="zone"):
        load_config_file(path)
    path.write_text(text.replace('ends_at = "2030-01-01T00:00:00Z"', 'ends_at = "2030-01-01T02:00:00+02:00"'))
    _, challenges = load_config_file(path)
    test = next(p for p in challenges[0].phases if p.name == "test")
    assert test.max_per_day == 1 and test.max_total is None and test.max_in_flight is None
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    upgrade_schema(db)
    install_challenge(db, challenges[0])
    with db.read() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "test"))
        assert phase.ends_at.isoformat() == "2030-01-01T00:00:00+00:00"
        assert (phase.max_per_day, phase.max_total, phase.max_in_flight) == (1, None, None)
    db.dispose()


def test_host_panel_times_need_a_zone_too(server):
    host = {"Authorization": f"Bearer {server.host_token()}"}
    r = server.client.patch(
        "/api/v1/challenges/coco-demo/phases/test", json={"ends_at": "2030-01-01T00:00:00"}, headers=host
    )
    assert r.status_code == 400 and "zone" in r.json()["detail"], r.text
    r = server.client.patch(
        "/api/v1/challenges/coco-demo/phases/test", json={"ends_at": "2030-01-01T00:00:00-05:00"}, headers=host
    )
    assert r.status_code == 200 and r.json()["phase"]["ends_at"] == "2030-01-01T05:00:00+00:00", r.text
