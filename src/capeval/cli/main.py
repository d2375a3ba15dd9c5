"""The ``capeval`` command line: ``main(argv) -> exit code``.

Subcommands live in modules ``capeval.cli.cmd_<name>``; each defines
``register(subparsers)``, which adds its parser and sets ``func`` (``args -> int``).
The CLI only parses, calls the library and formats: it holds no metric logic.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import logging
import os
import pkgutil
import sys
import threading
from collections.abc import Sequence

from capeval._version import __version__

__all__ = ["CLIError", "build_parser", "console", "main"]

log = logging.getLogger("capeval")


class CLIError(Exception):
    """A user-facing error: printed as ``capeval: error: <message>`` with exit code 2."""


def add_references_argument(parser: argparse.ArgumentParser) -> None:
    """``--references`` (alias ``--annotations``): the references file of commands that score."""
    parser.add_argument(
        "--references",
        "--annotations",
        dest="references",
        required=True,
        help="references: COCO captions file, {id: [captions]}, or JSON Lines",
    )


def _subcommand_modules() -> list[str]:
    import capeval.cli as package

    return sorted(
        f"capeval.cli.{info.name}" for info in pkgutil.iter_modules(package.__path__) if info.name.startswith("cmd_")
    )


def _requested_module(argv: Sequence[str] | None) -> str | None:
    """Module of the subcommand named first in ``argv`` (``human-agreement`` -> ``cmd_human_agreement``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0].startswith("-"):
        return None
    name = "capeval.cli.cmd_" + args[0].replace("-", "_")
    return name if name in _subcommand_modules() else None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every installed subcommand (or only the module ``only``).

    Building it for the one subcommand a command line names imports only what that
    subcommand needs (help and errors list them all).
    """
    parser = argparse.ArgumentParser(
        prog="capeval",
        description="Image-caption evaluation with the official MS COCO numbers, without Java.",
    )
    parser.add_argument("--version", action="version", version=f"capeval {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in [only] if only else _subcommand_modules():
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code (0 ok, 1 failure, 2 usage/input error)."""
    parser = build_parser(_requested_module(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="capeval: %(message)s")
    try:
        code: int = args.func(args)
    except (CLIError, ValueError, OSError, RuntimeError, ImportError) as exc:
        print(f"capeval: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("capeval: interrupted", file=sys.stderr)
        return 130
    return code


def console() -> int:
    """The ``capeval`` command: :func:`main`, then the process ends at once.

    Once a command has done its work, Python's own tear-down (freeing every object a scoring run
    made, unloading numba's compiled code) takes another 0.1-0.2 s. So, after a normal return,
    this runs the exit handlers as interpreter exit would, flushes the output and ends the
    process directly. It returns normally (the ordinary exit) when another non-daemon thread
    is still running or the output cannot be flushed.
    """
    code = main()
    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        return code
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: exit the ordinary way, which reports it
        return code
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console())
