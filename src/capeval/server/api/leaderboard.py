"""Leaderboards as JSON, and the JSON and CSV exports."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from capeval.server.api.deps import (
    Ctx,
    MaybeUser,
    Versus,
)
from capeval.server.models import User
from capeval.server.services.context import ServerContext
from capeval.server.services.leaderboard import Leaderboard, leaderboard_csv, leaderboard_for, leaderboard_json

__all__ = ["AllEntries", "board", "router"]

router = APIRouter(tags=["leaderboard"])


#: ``?all=``: every entry (``1``) or one row per team, its representative or best entry (``0``).
AllEntries = Annotated[bool | None, Query(description="every entry (true) or one row per team (false)")]


def board(
    ctx: ServerContext, slug: str, user: User | None, versus: int | None = None, all_entries: bool = True
) -> Leaderboard:
    """The leaderboard as ``user`` may see it (significance read from the workers' comparisons)."""
    settings = ctx.settings
    return leaderboard_for(
        ctx.db,
        slug,
        user,
        n_resamples=settings.bootstrap_resamples,
        seed=settings.bootstrap_seed,
        versus=versus,
        all_entries=all_entries,
    )


@router.get("/api/v1/challenges/{slug}/leaderboard")
def api_leaderboard(
    slug: str,
    user: MaybeUser,
    ctx: Ctx,
    vs: Versus = None,
    all: AllEntries = None,
) -> dict[str, Any]:
    """Leaderboard as JSON (what the caller may see), ranked by the primary metric. Every entry by
    default (``?all=0``: one row per team, its chosen representative or else its best entry)."""
    return leaderboard_json(board(ctx, slug, user, vs, all_entries=all is not False))


@router.get("/c/{slug}/leaderboard.json")
def export_json(
    slug: str,
    user: MaybeUser,
    ctx: Ctx,
    vs: Versus = None,
    all: AllEntries = None,
) -> Response:
    """Leaderboard export as a JSON file (one row per team unless ``?all=1``)."""
    data = leaderboard_json(board(ctx, slug, user, vs, all_entries=bool(all)))
    return JSONResponse(
        data, headers={"content-disposition": f'attachment; filename="{data["challenge"]}-leaderboard.json"'}
    )


@router.get("/c/{slug}/leaderboard.csv")
def export_csv(slug: str, user: MaybeUser, ctx: Ctx, all: AllEntries = None) -> Response:
    """Leaderboard export as CSV, one row per team unless ``?all=1`` (cells that would start a
    spreadsheet formula are quoted as text)."""
    result = board(ctx, slug, user, all_entries=bool(all))
    return PlainTextResponse(
        leaderboard_csv(result),
        media_type="text/csv",
        headers={"content-disposition": f'attachment; filename="{result.slug}-leaderboard.csv"'},
    )
