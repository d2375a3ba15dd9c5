"""Server tests need the ``server`` extra; without it the whole folder is skipped (not an error)."""

from __future__ import annotations

import importlib.util

#: Modules of the ``server`` extra the tests import.
SERVER_MODULES = ("fastapi", "starlette", "sqlalchemy", "alembic", "jinja2", "multipart", "httpx", "uvicorn")
MISSING = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]

if MISSING:
    collect_ignore_glob = ["test_*.py"]
else:
    from .support import server  # noqa: F401 - the fixture, registered by import
