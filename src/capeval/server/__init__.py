"""The capeval evaluation server: challenges, hidden test references, submission limits, leaderboard.

Start it with ``capeval serve`` (see docs/server.md). Needs the ``server``
extra (``pip install '.[server]'`` in the source tree); importing this package alone does not import
FastAPI.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    # Lazy: workers and the CLI import submodules without pulling in the web stack.
    if name == "create_app":
        from capeval.server.app import create_app

        return create_app
    if name == "Settings":
        from capeval.server.config import Settings

        return Settings
    raise AttributeError(f"module 'capeval.server' has no attribute {name!r}")
