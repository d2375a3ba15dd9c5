"""``/api/v1``: challenges and phases."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from capeval.server.api.deps import (
    Db,
    MaybeUser,
)
from capeval.server.api.schemas import ChallengeSummary
from capeval.server.domain.errors import InvalidInput
from capeval.server.services.challenges import challenge_summary, expected_ids, get_challenge, list_challenges
from capeval.server.services.submissions import team_quota

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["challenges"])


@router.get("/challenges", response_model=list[ChallengeSummary], response_model_exclude_unset=True)
def challenges(db: Db, user: MaybeUser) -> list[dict[str, Any]]:
    """Challenges with their phases and splits (never references)."""
    return list_challenges(db, user)


@router.get("/challenges/{slug}", response_model=ChallengeSummary, response_model_exclude_unset=True)
def challenge(slug: str, db: Db, user: MaybeUser) -> dict[str, Any]:
    """One challenge; with authentication, the team's quota usage per phase."""
    with db.read() as session:
        out = challenge_summary(get_challenge(session, slug), user)
    if user is not None and user.team_id is not None:
        out["quota"] = team_quota(db, user, slug)
    return out


def _ids_response(slug: str, what: str, name: str, ids: list[int], fmt: str) -> Response:
    if fmt == "txt":
        return PlainTextResponse(
            "".join(f"{i}\n" for i in ids),
            headers={"content-disposition": f'attachment; filename="{slug}-{name}-image_ids.txt"'},
        )
    if fmt != "json":
        raise InvalidInput("bad_format", "format must be json or txt")
    return JSONResponse({"challenge": slug, what: name, "n_images": len(ids), "image_ids": ids})


@router.get("/challenges/{slug}/phases/{phase}/image_ids")
def phase_ids(slug: str, phase: str, db: Db, user: MaybeUser, format: str = "json") -> Response:
    """The image ids a results file for ``phase`` must cover, sorted (``?format=txt``: one per line).
    Every id needs exactly one caption; references of hidden splits stay on the server. Before the
    phase opens, hosts only (403)."""
    with db.read() as session:
        ids = expected_ids(session, slug, phase=phase, viewer=user)
    return _ids_response(slug, "phase", phase, ids, format)


@router.get("/challenges/{slug}/splits/{split}/image_ids")
def split_ids(slug: str, split: str, db: Db, user: MaybeUser, format: str = "json") -> Response:
    """The image ids of one split, sorted (``?format=txt``: one per line); once one of its phases opened."""
    with db.read() as session:
        ids = expected_ids(session, slug, split=split, viewer=user)
    return _ids_response(slug, "split", split, ids, format)


@router.get("/challenges/{slug}/phases/{phase}/template.json")
def results_template(slug: str, phase: str, db: Db, user: MaybeUser) -> Response:
    """A results file skeleton for ``phase``: ``[{"image_id": ..., "caption": ""}, ...]`` for every
    expected image; fill in the captions and upload it (once the phase opened)."""
    with db.read() as session:
        ids = expected_ids(session, slug, phase=phase, viewer=user)
    return JSONResponse(
        [{"image_id": i, "caption": ""} for i in ids],
        headers={"content-disposition": f'attachment; filename="{slug}-{phase}-results-template.json"'},
    )
