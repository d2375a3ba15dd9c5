"""Every docstring example in capeval runs and gives the value it shows.

The modules are found by walking the package source, so a new module is checked without
being listed here. A module whose optional dependency is not installed is skipped (under
``CAPEVAL_NO_SKIP=1``, as in CI, that skip fails). Alembic's migration scripts are not
library modules (they run inside Alembic) and are not imported.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import capeval

ROOT = Path(capeval.__file__).parent
#: Packages that are not importable library code.
EXCLUDED = ("capeval.server.migrations",)


def _modules() -> list[str]:
    names = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("capeval", *path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts)
        if not name.startswith(EXCLUDED) and parts[-1] != "__main__":
            names.append(name)
    return names


MODULES = _modules()


def test_walk_finds_the_metric_modules() -> None:
    for name in ("capeval", "capeval.metrics.meteor", "capeval.metrics.spice.metric", "capeval.metrics.learned.nneval"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] == "capeval":
            raise
        pytest.skip(f"{name} needs the optional dependency {exc.name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("doc", ["docs/architecture.md", "README.md"])
def test_documentation_examples(doc: str) -> None:
    path = Path(__file__).resolve().parents[1] / doc
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
