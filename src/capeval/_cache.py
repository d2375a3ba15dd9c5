"""Where capeval keeps files it derives once and reuses (converted tables, compiled patterns)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_root"]


def cache_root() -> Path:
    """The capeval user cache directory (not created): ``$CAPEVAL_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/capeval`` or ``~/.cache/capeval``."""
    explicit = os.environ.get("CAPEVAL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "capeval"
