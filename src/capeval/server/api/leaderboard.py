"""Leaderboards as JSON, and the JSON and CSV exports."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from capeval.server.api.deps import (
    Ctx,
    MaybeUser,
    Versus,
)
from capeval.server.models import User
from capeval.server.services.context import ServerContext
from capeval.server.services.leaderboard import Leaderboard, leaderboard_csv, leaderboard_for, leaderboard_json

__all__ = ["board", "router"]

router = APIRouter(tags=["leaderboard"])


def board(ctx: ServerContext, slug: str, user: User | None, versus: int | None = None) -> Leaderboard:
    """The leaderboard as ``user`` may see it (significance read from the workers' comparisons)."""
    settings = ctx.settings
    return leaderboard_for(
        ctx.db, slug, user, n_resamples=settings.bootstrap_resamples, seed=settings.bootstrap_seed, versus=versus
    )


@router.get("/api/v1/challenges/{slug}/leaderboard")
def api_leaderboard(
    slug: str,
    user: MaybeUser,
    ctx: Ctx,
    vs: Versus = None,
) -> dict[str, Any]:
    """Leaderboard as JSON (what the caller may see)."""
    return leaderboard_json(board(ctx, slug, user, vs))


@router.get("/c/{slug}/leaderboard.json")
def export_json(
    slug: str,
    user: MaybeUser,
    ctx: Ctx,
    vs: Versus = None,
) -> Response:
    """Leaderboard export as a JSON file."""
    data = leaderboard_json(board(ctx, slug, user, vs))
    return JSONResponse(
        data, headers={"content-disposition": f'attachment; filename="{data["challenge"]}-leaderboard.json"'}
    )


@router.get("/c/{slug}/leaderboard.csv")
def export_csv(slug: str, user: MaybeUser, ctx: Ctx) -> Response:
    """Leaderboard export as CSV (cells that would start a spreadsheet formula are quoted as text)."""
    result = board(ctx, slug, user)
    return PlainTextResponse(
        leaderboard_csv(result),
        media_type="text/csv",
        headers={"content-disposition": f'attachment; filename="{result.slug}-leaderboard.csv"'},
    )
