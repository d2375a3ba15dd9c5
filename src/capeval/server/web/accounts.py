"""Pages: register, log in, log out, change the password."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from capeval.server.api.accounts import login, new_password, register_user, request_credential
from capeval.server.api.csrf import PRESESSION_COOKIE, SESSION_COOKIE, cookie_secure
from capeval.server.api.deps import (
    Ctx,
    MaybeUser,
    SubmissionId,
)
from capeval.server.api.proxy import throttle_keys
from capeval.server.api.uploads import form_text, read_checked_form
from capeval.server.domain.errors import DomainError, InvalidInput
from capeval.server.models import User
from capeval.server.services.accounts import issue_token, revoke_token
from capeval.server.services.context import ServerContext
from capeval.server.services.hosting import list_tokens
from capeval.server.services.hosting import revoke_token as revoke_api_token
from capeval.server.services.submissions import parse_flag
from capeval.server.services.users import consume_reset, reset_target
from capeval.server.web.templating import render

__all__ = ["login_redirect", "router", "safe_next"]

router = APIRouter(include_in_schema=False)


def safe_next(value: str | None) -> str:
    """A page of this site to go to after logging in: a path (``/c/x?all=1``), never another site
    (``//evil.example``, ``https://...``, ``/\\evil``) nor anything with control characters."""
    if not value or len(value) > 2000 or not value.startswith("/") or value.startswith(("//", "/\\")):
        return "/"
    if "\\" in value or any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return "/"
    return value


def login_redirect(request: Request) -> RedirectResponse:
    """To the login page, which comes back to the page asked for."""
    wanted = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?{urlencode({'next': safe_next(wanted)})}", status_code=303)


async def _session_redirect(request: Request, ctx: ServerContext, user_id: int, to: str = "/") -> Response:
    lifetime = timedelta(hours=ctx.settings.session_hours)
    token = await run_in_threadpool(issue_token, ctx.db, user_id, kind="session", lifetime=lifetime)
    response = RedirectResponse(safe_next(to), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(lifetime.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=cookie_secure(request, ctx.settings),
    )
    response.delete_cookie(PRESESSION_COOKIE)
    return response


#: Register-form fields given back after an error (never the password).
REGISTER_KEPT = ("username", "team", "team_code", "invite_code")


def _kept(form: FormData, names: tuple[str, ...]) -> dict[str, str]:
    """What the user typed in ``names``, to show again in the form (empty for a file or an over-long value)."""
    out = {}
    for name in names:
        try:
            out[name] = form_text(form, name, limit=200)
        except DomainError:
            out[name] = ""
    return out


@router.get("/register")
def register_page(request: Request) -> Response:
    return render(request, "register.html", error=None, state={})


@router.post("/register")
async def register_post(request: Request, ctx: Ctx) -> Response:
    state: dict[str, str] = {}
    try:
        form = await read_checked_form(request, ctx.settings)
        state = _kept(form, REGISTER_KEPT)
        user = await register_user(
            ctx,
            request,
            form_text(form, "username", limit=200),
            form_text(form, "password", limit=2000),
            team_name=form_text(form, "team", limit=200) or None,
            team_code=form_text(form, "team_code", limit=200) or None,
            invite_code=form_text(form, "invite_code", limit=200) or None,
        )
    except DomainError as exc:
        from capeval.server.api.errors import status_of

        return render(request, "register.html", status=status_of(exc), error=exc.message, user=None, state=state)
    if not user.active:
        return render(request, "register.html", status=201, error=None, user=None, state={}, pending=user.username)
    return await _session_redirect(request, ctx, user.id)


@router.get("/login")
def login_page(request: Request) -> Response:
    state = {"next": safe_next(request.query_params.get("next"))}
    return render(request, "login.html", error=None, state=state, done=request.query_params.get("done", ""))


@router.post("/login")
async def login_post(request: Request, ctx: Ctx) -> Response:
    state: dict[str, str] = {}
    try:
        form = await read_checked_form(request, ctx.settings)
        state = _kept(form, ("username", "next"))
        addresses = throttle_keys(request, ctx.settings)
        user = await login(
            ctx, form_text(form, "username", limit=200), form_text(form, "password", limit=2000), addresses
        )
    except DomainError as exc:
        from capeval.server.api.errors import status_of

        return render(request, "login.html", status=status_of(exc), error=exc.message, user=None, state=state)
    return await _session_redirect(request, ctx, user.id, state.get("next", "/"))


@router.post("/logout")
async def logout(request: Request, ctx: Ctx) -> Response:
    await read_checked_form(request, ctx.settings)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        await run_in_threadpool(revoke_token, ctx.db, cookie)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


def _account(
    request: Request, ctx: ServerContext, user: User, *, status: int = 200, error: str | None = None
) -> Response:
    done = request.query_params.get("done", "") if error is None else ""
    tokens = [t for t in list_tokens(ctx.db, user) if t["user"] == user.username]
    return render(request, "account.html", status=status, user=user, error=error, done=done, tokens=tokens)


@router.get("/account")
def account_page(request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    """The user's account: password change and their API tokens."""
    if user is None:
        return login_redirect(request)
    return _account(request, ctx, user)


@router.post("/account/tokens/{token_id}/revoke")
async def account_revoke(token_id: SubmissionId, request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    """Revoke one of the user's own API tokens (audited; others' tokens are a 404)."""
    if user is None:
        return login_redirect(request)
    await read_checked_form(request, ctx.settings)
    await run_in_threadpool(revoke_api_token, ctx.db, user, token_id)
    return RedirectResponse("/account?done=revoked#tokens", status_code=303)


@router.post("/account/password")
async def password_post(request: Request, ctx: Ctx, user: MaybeUser) -> Response:
    """Change the password: the current one, the new one twice. Other sessions end; this one stays."""
    if user is None:
        return login_redirect(request)
    form = await read_checked_form(request, ctx.settings)
    try:
        new = form_text(form, "new_password", limit=2000)
        if new != form_text(form, "new_password2", limit=2000):
            raise InvalidInput("password_mismatch", "the two new passwords differ")
        counts = await new_password(
            ctx,
            user,
            form_text(form, "current_password", limit=2000),
            new,
            throttle_keys(request, ctx.settings),
            keep_token=request_credential(request),
            revoke_api_tokens=parse_flag("revoke_api_tokens", form_text(form, "revoke_api_tokens"), default=False),
        )
    except DomainError as exc:
        from capeval.server.api.errors import status_of

        return _account(request, ctx, user, status=status_of(exc), error=exc.message)
    done = f"password:{counts['sessions_revoked']}:{counts['api_tokens_revoked']}"
    return RedirectResponse(f"/account?done={done}", status_code=303)


@router.get("/reset/{token}", name="reset_page")
def reset_page(token: str, request: Request, ctx: Ctx) -> Response:
    """Choose a new password with a host's reset link."""
    username = reset_target(ctx.db, token)
    return render(request, "reset.html", username=username, error=None, user=None)


@router.post("/reset/{token}")
async def reset_post(token: str, request: Request, ctx: Ctx) -> Response:
    form = await read_checked_form(request, ctx.settings)
    username = await run_in_threadpool(reset_target, ctx.db, token)
    try:
        new = form_text(form, "new_password", limit=2000)
        if new != form_text(form, "new_password2", limit=2000):
            raise InvalidInput("password_mismatch", "the two passwords differ")
        await run_in_threadpool(consume_reset, ctx.db, token, new)
    except DomainError as exc:
        from capeval.server.api.errors import status_of

        return render(request, "reset.html", status=status_of(exc), username=username, error=exc.message, user=None)
    return RedirectResponse("/login?done=reset", status_code=303)
