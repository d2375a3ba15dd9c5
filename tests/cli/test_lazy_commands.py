"""The command line imports only the subcommand it runs; help and typos still list them all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from capeval.cli.main import build_parser, main

SRC = str(Path(__file__).resolve().parents[2] / "src")

_PROBE = """
import sys
sys.path.insert(0, {src!r})
from capeval.cli.main import main
try:
    main(["demo", "--help"])
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.startswith("capeval.cli.cmd_")))
"""


def test_running_a_command_imports_only_its_module() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(src=SRC)], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "['capeval.cli.cmd_demo', 'capeval.cli.cmd_score']"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for name in ("score", "demo", "compare", "rank", "human-agreement", "serve"):
        assert name in text


def test_an_unknown_command_is_a_usage_error_listing_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["scroe"])
    assert exc.value.code == 2
    assert "human-agreement" in capsys.readouterr().err


def test_a_dashed_command_name_finds_its_module() -> None:
    parser = build_parser("capeval.cli.cmd_human_agreement")
    args = parser.parse_args(["human-agreement", "--annotations", "captions.json"])
    assert args.command == "human-agreement"
