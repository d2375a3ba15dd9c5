"""``CAPEVAL_NO_SKIP=1`` (CI) turns skips into failures, a whole module's skip included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pytest(tmp_path: Path, body: str, no_skip: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(body, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CAPEVAL_NO_SKIP"}
    if no_skip:
        env["CAPEVAL_NO_SKIP"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), "-p", "tests.conftest", "-q", "-n", "0", "-o", "addopts="],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_skips_fail_under_no_skip(tmp_path: Path) -> None:
    module_skip = 'import pytest\npytest.importorskip("no_such_module_here")\n\ndef test_a():\n    pass\n'
    test_skip = 'import pytest\n\ndef test_a():\n    pytest.skip("not here")\n'
    for body in (module_skip, test_skip):
        skipped = _pytest(tmp_path, body, no_skip=False)
        assert skipped.returncode in (0, 5) and "1 skipped" in skipped.stdout  # 5: nothing left to run
        failed = _pytest(tmp_path, body, no_skip=True)
        assert failed.returncode != 0
        assert "CAPEVAL_NO_SKIP=1" in failed.stdout
