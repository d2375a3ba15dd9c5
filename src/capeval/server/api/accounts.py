"""``/api/v1``: accounts and tokens."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from capeval.server.api.csrf import SESSION_COOKIE
from capeval.server.api.deps import (
    Ctx,
    CurrentUser,
    cookie_csrf,
    json_body,
    json_body_schema,
)
from capeval.server.api.proxy import throttle_keys
from capeval.server.api.schemas import (
    Me,
    PasswordChange,
    PasswordChanged,
    RegisterRequest,
    RegisterResponse,
    TokenRequest,
    TokenResponse,
)
from capeval.server.domain.errors import Forbidden, InvalidInput, Unauthenticated
from capeval.server.models import User, utcnow
from capeval.server.services.accounts import (
    authenticate,
    change_password,
    check_active,
    check_label,
    create_user,
    issue_token,
    record_failed_login,
    record_login,
)
from capeval.server.services.context import ServerContext
from capeval.server.services.hosting import read_registration

__all__ = ["check_password", "login", "new_password", "register_user", "request_credential", "router"]

router = APIRouter(prefix="/api/v1", tags=["accounts"])
RegisterBody = Annotated[RegisterRequest, Depends(json_body(RegisterRequest))]
TokenBody = Annotated[TokenRequest, Depends(json_body(TokenRequest))]
PasswordBody = Annotated[PasswordChange, Depends(json_body(PasswordChange))]


async def check_password(ctx: ServerContext, username: str, password: str, addresses: tuple[str, ...]) -> User | None:
    """The user with these credentials, under the login throttle (:mod:`capeval.server.services.throttle`):
    a locked attempt is refused before the password is checked, a slowed one waits its turn (without
    holding a worker thread); a failure is counted, logged and audited, a success clears the counter."""
    admission = ctx.throttle.admit(username, addresses)
    if admission.delay > 0:
        await asyncio.sleep(admission.delay)
    user = await run_in_threadpool(authenticate, ctx.db, username, password)
    if user is None:
        events = ctx.throttle.failed(username, addresses)
        await run_in_threadpool(record_failed_login, ctx.db, username, addresses, events)
        return None
    ctx.throttle.succeeded(username, addresses)
    return user


async def login(ctx: ServerContext, username: str, password: str, addresses: tuple[str, ...]) -> User:
    """Check credentials under the login throttle; raises on failure and for accounts that are
    waiting for approval or disabled."""
    user = await check_password(ctx, username, password, addresses)
    if user is None:
        raise Unauthenticated("unauthorized", "wrong username or password")
    check_active(user)
    await run_in_threadpool(record_login, ctx.db, user.id)
    return user


async def new_password(
    ctx: ServerContext,
    user: User,
    current: str,
    new: str,
    addresses: tuple[str, ...],
    *,
    keep_token: str | None,
    revoke_api_tokens: bool = False,
) -> dict[str, int]:
    """Change ``user``'s password after checking the current one under the login throttle (a stolen
    session cannot guess it any faster than the login form)."""
    if await check_password(ctx, user.username, current, addresses) is None:
        raise Forbidden("wrong_password", "the current password is wrong")
    if new == current:
        raise InvalidInput("same_password", "the new password is the current one; choose another")
    return await run_in_threadpool(
        change_password, ctx.db, user.id, new, keep_token=keep_token, revoke_api_tokens=revoke_api_tokens
    )


def request_credential(request: Request) -> str | None:
    """The session cookie or bearer token this request authenticated with (kept on a password change)."""
    auth = getattr(request.state, "auth", None)
    if auth == "cookie":
        return request.cookies.get(SESSION_COOKIE)
    if auth == "bearer":
        return request.headers.get("authorization", "")[7:].strip()
    return None


@router.post(
    "/register", status_code=201, response_model=RegisterResponse, openapi_extra=json_body_schema(RegisterRequest)
)
async def register(request: Request, body: RegisterBody, ctx: Ctx) -> RegisterResponse:
    """Create an account; body ``{"username", "password", "team"?, "team_code"?, "invite_code"?}``.

    A new team name creates the team; an existing one needs its ``team_code`` (a code alone joins
    its team). When the hosts made registration invite-only, ``invite_code`` is needed; when they
    approve accounts, the account is ``pending`` until a host approves it; when they closed it,
    nobody registers. One address registers at most the hosts' hourly limit of accounts (429).
    """
    user = await register_user(
        ctx,
        request,
        body.username,
        body.password,
        team_name=body.team or None,
        team_code=body.team_code or None,
        invite_code=body.invite_code or None,
    )
    return RegisterResponse(username=user.username, team_id=user.team_id, status=user.status)


async def register_user(
    ctx: ServerContext,
    request: Request,
    username: str,
    password: str,
    *,
    team_name: str | None,
    team_code: str | None,
    invite_code: str | None,
) -> User:
    """Registration under the per-address hourly limit; the address becomes known to the account."""
    addresses = throttle_keys(request, ctx.settings)
    limit = (await run_in_threadpool(read_registration, ctx.db)).per_address_hour
    ctx.registrations.check(addresses, limit)
    user = await run_in_threadpool(
        lambda: create_user(
            ctx.db,
            username,
            password,
            team_name=team_name,
            team_code=team_code,
            invite_code=invite_code,
            address=addresses[0],
        )
    )
    ctx.registrations.registered(addresses)
    ctx.throttle.succeeded(user.username, addresses)
    return user


@router.post("/tokens", status_code=201, response_model=TokenResponse, openapi_extra=json_body_schema(TokenRequest))
async def tokens(request: Request, body: TokenBody, ctx: Ctx) -> TokenResponse:
    """Exchange username and password for an expiring API token."""
    label = check_label(body.label)
    addresses = throttle_keys(request, ctx.settings)
    user = await login(ctx, body.username, body.password, addresses)
    lifetime = timedelta(days=ctx.settings.token_days)
    token = await run_in_threadpool(issue_token, ctx.db, user.id, kind="api", lifetime=lifetime, label=label)
    return TokenResponse(token=token, expires_at=(utcnow() + lifetime).isoformat())


@router.get("/me", response_model=Me)
def me(user: CurrentUser) -> Me:
    """The authenticated user."""
    return Me(
        username=user.username,
        team=user.team.name if user.team else None,
        team_join_code=user.team.join_code if user.team else None,
        host=user.is_host,
    )


@router.post(
    "/password",
    response_model=PasswordChanged,
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(PasswordChange),
)
async def password(request: Request, body: PasswordBody, user: CurrentUser, ctx: Ctx) -> PasswordChanged:
    """Change your password; body ``{"current_password", "new_password", "revoke_api_tokens"?}``. Ends
    your other web sessions (and, with ``revoke_api_tokens``, your API tokens but the one in use)."""
    counts = await new_password(
        ctx,
        user,
        body.current_password,
        body.new_password,
        throttle_keys(request, ctx.settings),
        keep_token=request_credential(request),
        revoke_api_tokens=body.revoke_api_tokens,
    )
    return PasswordChanged(changed=True, **counts)
