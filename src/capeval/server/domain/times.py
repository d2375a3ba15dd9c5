"""How times read on pages and in messages: ``24 Nov 2026, 18:40 UTC``, to the minute, the same
everywhere (the leaderboard, submissions, the host panel, error messages). The JSON API keeps ISO 8601."""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["human_time"]


def human_time(moment: datetime) -> str:
    """``24 Nov 2026, 18:40 UTC`` (seconds are left out). Naive datetimes are taken as UTC (the
    database stores UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return f"{moment.day} {moment:%b %Y, %H:%M} UTC"
