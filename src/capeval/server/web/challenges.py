"""Pages: the challenge list and a challenge's leaderboard."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from capeval.server.api.deps import (
    Ctx,
    MaybeUser,
    Versus,
)
from capeval.server.api.leaderboard import AllEntries, board
from capeval.server.services.challenges import challenge_summary, get_challenge, list_challenges
from capeval.server.web.templating import render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/")
def index(request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    return render(request, "index.html", challenges=list_challenges(ctx.db, user), user=user)


@router.get("/c/{slug}")
def challenge(
    slug: str,
    request: Request,
    ctx: Ctx,
    user: MaybeUser,
    vs: Versus = None,
    all: AllEntries = None,
) -> Response:
    result = board(ctx, slug, user, vs, all_entries=bool(all))
    with ctx.db.read() as session:
        summary = challenge_summary(get_challenge(session, slug), user)
    return render(request, "challenge.html", board=result, challenge=summary, user=user)
