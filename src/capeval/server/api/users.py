"""``/api/v1``: hosts manage accounts and teams; anyone with a reset link sets a new password."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from starlette.concurrency import run_in_threadpool

from capeval.server.api.deps import Ctx, Db, HostUser, cookie_csrf, json_body, json_body_schema
from capeval.server.api.schemas import MergeRequest, MoveRequest, PasswordReset, StatusChange, TeamRename
from capeval.server.services.users import (
    consume_reset,
    issue_reset,
    list_teams,
    list_users,
    merge_teams,
    move_user,
    rename_team,
    set_user_status,
)

__all__ = ["reset_url", "router"]

router = APIRouter(prefix="/api/v1", tags=["users"])
TeamId = Annotated[int, Path(ge=1, le=2**63 - 1)]
Username = Annotated[str, Path(max_length=200)]
StatusBody = Annotated[StatusChange, Depends(json_body(StatusChange))]
MoveBody = Annotated[MoveRequest, Depends(json_body(MoveRequest))]
RenameBody = Annotated[TeamRename, Depends(json_body(TeamRename))]
MergeBody = Annotated[MergeRequest, Depends(json_body(MergeRequest))]
ResetBody = Annotated[PasswordReset, Depends(json_body(PasswordReset))]


def reset_url(request: Request, token: str) -> str:
    """The page where the owner of a reset token sets a new password (an absolute URL)."""
    return str(request.url_for("reset_page", token=token))


@router.get("/users")
def users(host: HostUser, db: Db, status: str = "", team: str = "") -> list[dict[str, Any]]:
    """Host: every account (``?status=pending`` for those waiting for approval; ``?team=`` part of a
    team name), with its team, state, creation, last login and submission count."""
    return list_users(db, host, status=status[:16], team=team[:200])


@router.get("/teams")
def teams(host: HostUser, db: Db) -> list[dict[str, Any]]:
    """Host: every team with its members, submission count and join code."""
    return list_teams(db, host)


@router.post(
    "/users/{username}/status", dependencies=[Depends(cookie_csrf)], openapi_extra=json_body_schema(StatusChange)
)
async def status(username: Username, body: StatusBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: ``{"status": "active"}`` approves a pending account or enables a disabled one;
    ``"disabled"`` revokes its sessions and tokens and refuses its logins. Audited."""
    previous = await run_in_threadpool(set_user_status, db, host, username, body.status)
    return {"username": username, "status": body.status, "previous": previous}


@router.post("/users/{username}/team", dependencies=[Depends(cookie_csrf)], openapi_extra=json_body_schema(MoveRequest))
async def move(username: Username, body: MoveBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: move a user to team ``team`` (``"create": true`` makes a new team of that name); their
    past submissions stay with the old team. Audited."""
    team = await run_in_threadpool(lambda: move_user(db, host, username, body.team, create=body.create))
    return {"username": username, "team": team}


@router.post("/users/{username}/reset-link", dependencies=[Depends(cookie_csrf)])
async def reset_link(username: Username, request: Request, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: a one-time link (valid 48 hours) where the account's owner sets a new password; give it
    to them yourself (no mail is sent). Earlier links of the account stop working. Audited."""
    token, expires = await run_in_threadpool(issue_reset, db, host, username)
    return {"username": username, "url": reset_url(request, token), "expires_at": expires}


@router.patch("/teams/{team_id}", dependencies=[Depends(cookie_csrf)], openapi_extra=json_body_schema(TeamRename))
async def rename(team_id: TeamId, body: RenameBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: rename a team (audited)."""
    old = await run_in_threadpool(rename_team, db, host, team_id, body.name)
    return {"id": team_id, "name": body.name.strip(), "previous": old}


@router.post(
    "/teams/{team_id}/merge", dependencies=[Depends(cookie_csrf)], openapi_extra=json_body_schema(MergeRequest)
)
async def merge(team_id: TeamId, body: MergeBody, host: HostUser, db: Db) -> dict[str, Any]:
    """Host: merge this team into team ``into``: its members and submissions move, it is deleted. Audited."""
    counts = await run_in_threadpool(merge_teams, db, host, team_id, body.into)
    return {"merged": team_id, "into": body.into, **counts}


@router.post("/password-reset", openapi_extra=json_body_schema(PasswordReset))
async def password_reset(body: ResetBody, ctx: Ctx) -> dict[str, Any]:
    """Set a new password with the token of a host's reset link (once; every session and token of the
    account is revoked)."""
    username = await run_in_threadpool(consume_reset, ctx.db, body.token, body.new_password)
    return {"username": username, "changed": True}
