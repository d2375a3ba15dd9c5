"""How times read on pages and in messages: ``24 Nov 2026, 18:40 UTC`` (seconds only when not zero,
never microseconds). The JSON API keeps ISO 8601."""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["human_time"]


def human_time(moment: datetime) -> str:
    """``24 Nov 2026, 18:40 UTC``; ``30 Jun 2026, 23:59:59 UTC`` when the seconds are not zero.
    Naive datetimes are taken as UTC (the database stores UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    clock = f"{moment:%H:%M:%S}" if moment.second else f"{moment:%H:%M}"
    return f"{moment.day} {moment:%b %Y}, {clock} UTC"
