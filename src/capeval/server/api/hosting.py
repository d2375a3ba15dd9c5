"""``/api/v1``: host settings (phases, splits, registration), hiding entries, API tokens."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from starlette.concurrency import run_in_threadpool

from capeval.server.api.deps import (
    CurrentUser,
    Db,
    HostUser,
    SubmissionId,
    cookie_csrf,
    json_body,
    json_body_schema,
)
from capeval.server.api.schemas import PhaseEdit, RegistrationEdit, SplitEdit
from capeval.server.services.challenges import challenge_summary, get_challenge
from capeval.server.services.hosting import (
    SubmissionFilter,
    hide_submission,
    host_submissions,
    list_tokens,
    read_registration,
    revoke_token,
    update_phase,
    update_registration,
    update_split,
)

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["host"])
PhaseBody = Annotated[PhaseEdit, Depends(json_body(PhaseEdit))]
SplitBody = Annotated[SplitEdit, Depends(json_body(SplitEdit))]
RegistrationBody = Annotated[RegistrationEdit, Depends(json_body(RegistrationEdit))]
TokenId = Annotated[int, Path(ge=1, le=2**63 - 1)]


@router.patch(
    "/challenges/{slug}/phases/{phase}",
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(PhaseEdit),
)
async def edit_phase(slug: str, phase: str, body: PhaseBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: change a phase's limits (``null``: none), dates (ISO 8601 UTC, ``null``: open-ended),
    ``scores_visible`` or ``allow_dry_run``. Only the fields sent change; each change is audited."""
    changes = body.model_dump(exclude_unset=True)
    changed = await run_in_threadpool(update_phase, db, host, slug, phase, changes)
    with db.read() as session:
        summary = challenge_summary(get_challenge(session, slug), host)
    return {"changed": changed, "phase": next(p for p in summary["phases"] if p["name"] == phase)}


@router.patch(
    "/challenges/{slug}/splits/{split}",
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(SplitEdit),
)
async def edit_split(slug: str, split: str, body: SplitBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: make a split's references ``public`` or ``hidden`` (audited)."""
    changed = await run_in_threadpool(update_split, db, host, slug, split, body.visibility)
    return {"split": split, "visibility": body.visibility, "changed": changed}


@router.post("/submissions/{submission_id}/hide", dependencies=[Depends(cookie_csrf)])
async def hide(submission_id: SubmissionId, host: HostUser, db: Db, value: bool = True) -> dict[str, Any]:
    """Host: hide an entry from the leaderboard (``?value=false``: restore it); audited."""
    await run_in_threadpool(hide_submission, db, host, submission_id, value)
    return {"submission_id": submission_id, "hidden": value}


@router.get("/tokens")
def tokens(user: CurrentUser, db: Db) -> list[dict[str, Any]]:
    """API tokens (never the secret): your own; hosts see everyone's."""
    return list_tokens(db, user)


@router.delete("/tokens/{token_id}", dependencies=[Depends(cookie_csrf)])
async def revoke(token_id: TokenId, user: CurrentUser, db: Db) -> dict[str, Any]:
    """Revoke an API token: your own; hosts any (audited)."""
    await run_in_threadpool(revoke_token, db, user, token_id)
    return {"id": token_id, "revoked": True}


@router.get("/registration")
def registration(db: Db, user: CurrentUser) -> dict[str, Any]:
    """How accounts are created (``open``, ``invite``, ``closed``) and the team size limit; hosts also
    see the invite code."""
    settings = read_registration(db)
    out = settings.public()
    if user.is_host:
        out["invite_code"] = settings.invite_code or None
    return out


@router.put(
    "/registration",
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(RegistrationEdit),
)
async def edit_registration(body: RegistrationBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: set the registration ``mode`` (open, invite, approval, closed), ``team_size`` and
    ``per_address_hour`` (``null``: no limit); ``new_invite_code`` draws a new code. Audited."""
    fields = body.model_dump(exclude_unset=True)
    updated = await run_in_threadpool(
        update_registration,
        db,
        host,
        mode=fields.get("mode"),
        team_size=fields["team_size"] if "team_size" in fields else "keep",
        new_invite_code=bool(fields.get("new_invite_code")),
        per_address_hour=fields["per_address_hour"] if "per_address_hour" in fields else "keep",
    )
    return {**updated.public(), "invite_code": updated.invite_code or None}


@router.get("/host/submissions")
def submissions_page(request: Request, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: every submission, newest first, a page at a time (``page``, ``per_page`` 5..500, default
    50), filtered by ``team`` (part of the name, any case), ``phase`` (``challenge/phase``) and
    ``status``; the same list as the host panel."""
    flt = SubmissionFilter.parse(request.query_params)
    listing = host_submissions(db, host, flt)
    return {
        "total": listing["total"],
        "page": listing["page"],
        "pages": listing["pages"],
        "per_page": flt.per_page,
        "submissions": listing["rows"],
    }
