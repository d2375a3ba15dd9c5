"""``/api/v1``: challenges and phases."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from capeval.server.api.deps import (
    Db,
    MaybeUser,
)
from capeval.server.api.schemas import ChallengeSummary
from capeval.server.services.challenges import challenge_summary, get_challenge, list_challenges
from capeval.server.services.submissions import team_quota

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["challenges"])


@router.get("/challenges", response_model=list[ChallengeSummary], response_model_exclude_unset=True)
def challenges(db: Db) -> list[dict[str, Any]]:
    """Challenges with their phases and splits (never references)."""
    return list_challenges(db)


@router.get("/challenges/{slug}", response_model=ChallengeSummary, response_model_exclude_unset=True)
def challenge(slug: str, db: Db, user: MaybeUser) -> dict[str, Any]:
    """One challenge; with authentication, the team's quota usage per phase."""
    with db.read() as session:
        out = challenge_summary(get_challenge(session, slug))
    if user is not None and user.team_id is not None:
        out["quota"] = team_quota(db, user, slug)
    return out
