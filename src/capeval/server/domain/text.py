"""Text people type: how names compare."""

from __future__ import annotations

import unicodedata

__all__ = ["TEAM_KEY_MAX", "team_key"]

#: Longest comparison key of a team name (compatibility forms can expand a character).
TEAM_KEY_MAX = 255


def team_key(name: str) -> str:
    """The form team names are compared in: compatibility forms folded (``Ｖ`` is ``V``), case folded,
    runs of spaces made one. ``"VisionLab"``, ``"visionlab"`` and ``" Vision\u3000lab"`` differ;
    ``"VisionLab"``, ``"VISIONLAB"`` and ``"ＶisionLab"`` are one team."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())
