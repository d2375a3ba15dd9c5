"""Jinja templates and :func:`render`, which adds the viewer and the form's CSRF token."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from capeval._version import __version__
from capeval.server.api.csrf import (
    PRESESSION_COOKIE,
    PRESESSION_SECONDS,
    SESSION_COOKIE,
    cookie_secure,
    csrf_token,
    ensure_presession,
)

__all__ = ["STATIC_DIR", "render", "templates"]

_PACKAGE = resources.files("capeval.server.web")
STATIC_DIR = str(_PACKAGE / "static")
templates = Jinja2Templates(directory=str(_PACKAGE / "templates"))
templates.env.globals.update(version=__version__)

_NO_USER = object()


def render(request: Request, name: str, status: int = 200, user: Any = _NO_USER, **context: Any) -> HTMLResponse:
    """Render a page for the request's viewer, with a CSRF token bound to the browser's session."""
    ctx = request.app.state.ctx
    if user is _NO_USER:
        from capeval.server.api.deps import current_user

        try:
            user = current_user(request, ctx.db)
        except Exception:  # noqa: BLE001 - an error page must render even when the database fails
            user = None
    had_cookie = bool(request.cookies.get(SESSION_COOKIE) or request.cookies.get(PRESESSION_COOKIE))
    secret = ensure_presession(request, ctx.settings)
    response = templates.TemplateResponse(
        request, name, {"user": user, "csrf_token": csrf_token(secret), **context}, status_code=status
    )
    if not had_cookie:
        response.set_cookie(
            PRESESSION_COOKIE,
            secret,
            max_age=PRESESSION_SECONDS,
            httponly=True,
            samesite="lax",
            secure=cookie_secure(request, ctx.settings),
        )
    return response
