"""The ``capeval`` console script: ``console()`` ends the process at once after a normal return."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

_SCRIPT = textwrap.dedent(
    """
    import atexit, sys, threading, time
    from pathlib import Path
    from capeval.cli.main import console

    marker = Path(sys.argv[1])
    atexit.register(lambda: marker.write_text("exit handlers ran"))
    if sys.argv[2] == "thread":  # a non-daemon thread still running: the ordinary exit waits for it
        threading.Thread(target=lambda: (time.sleep(0.5), marker.with_suffix(".thread").write_text("done"))).start()
    sys.argv = ["capeval", "demo", "--quiet", "--metrics", "bleu,rouge-l", "--format", "csv"]
    sys.exit(console())
    """
)


def _run(tmp_path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp_path / "marker.txt"), mode],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_console_flushes_output_and_runs_exit_handlers(tmp_path: Path) -> None:
    done = _run(tmp_path, "plain")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("metric")  # the whole table reached the pipe
    assert any(line.startswith("rouge-l,ROUGE_L,0.39625") for line in lines)  # the last row too
    assert (tmp_path / "marker.txt").read_text() == "exit handlers ran"


def test_console_waits_for_running_threads(tmp_path: Path) -> None:
    done = _run(tmp_path, "thread")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "marker.thread").read_text() == "done"
    assert (tmp_path / "marker.txt").read_text() == "exit handlers ran"


def test_console_returns_the_command_exit_code(tmp_path: Path) -> None:
    script = "import sys; from capeval.cli.main import console; sys.argv = ['capeval', 'score']; sys.exit(console())"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2  # usage error from argparse: the ordinary exit path
    assert "required" in done.stderr
