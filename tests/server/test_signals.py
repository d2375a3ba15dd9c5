"""``capeval serve`` stops its scoring workers on SIGTERM (systemd, docker stop) and SIGINT."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from .test_config_cli import _children, _serve

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_stops_its_workers(tmp_path, signum):
    process, _ = _serve(tmp_path, "--no-demo", "--workers", "2")
    try:
        deadline = time.monotonic() + 120
        while True:
            line = process.stdout.readline()
            assert line, "capeval serve exited early"
            if "capeval server on" in line:
                break
            assert time.monotonic() < deadline
        workers = []
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = _children(process.pid)
            time.sleep(0.1)
        assert len(workers) == 2
        process.send_signal(signum)
        assert process.wait(timeout=60) == 0
        end = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < end:
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)], "orphaned workers"
    finally:
        if process.poll() is None:
            process.kill()
