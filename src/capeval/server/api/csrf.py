"""Cross-site request forgery defence and cookie settings.

State-changing requests authenticated by the session cookie, and the login and registration
forms, must (1) come from the server's own origin (``Origin``, else ``Referer``, when the
browser sends one) and (2) carry a token bound to the browser's session: the ``csrf_token``
form field or the ``X-CSRF-Token`` header. The token is an HMAC of the session cookie (or, before
login, of a random pre-session cookie), so it cannot be guessed without reading the cookie.
Requests with ``Authorization: Bearer`` carry no ambient credential and are not checked.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from capeval.server.api.proxy import client_address, request_host, scheme
from capeval.server.config import Settings
from capeval.server.domain.errors import Forbidden

__all__ = [
    "CSRF_HEADER",
    "PRESESSION_COOKIE",
    "SESSION_COOKIE",
    "check_origin",
    "client_address",
    "cookie_secure",
    "csrf_token",
    "ensure_presession",
    "verify_csrf",
]

SESSION_COOKIE = "capeval_session"
PRESESSION_COOKIE = "capeval_presession"
CSRF_HEADER = "x-csrf-token"
PRESESSION_SECONDS = 24 * 3600


def csrf_token(secret: str) -> str:
    """The token bound to a session (or pre-session) cookie value."""
    return hmac.new(secret.encode("utf-8", "replace"), b"capeval-csrf-v1", hashlib.sha256).hexdigest()


def cookie_secure(request: Request, settings: Settings) -> bool:
    """Cookies are ``Secure`` when configured so or when the request came over HTTPS."""
    return settings.secure_cookies or scheme(request, settings) == "https"


def _own_origin(request: Request, settings: Settings) -> str:
    return f"{scheme(request, settings)}://{request_host(request, settings)}".lower()


def check_origin(request: Request, settings: Settings) -> None:
    """Refuse a request whose ``Origin`` (or, without one, ``Referer``) is another site or port."""
    allowed = {_own_origin(request, settings), *settings.allowed_origins}
    origin = request.headers.get("origin")
    if origin is not None:
        if origin.rstrip("/").lower() not in allowed:
            raise Forbidden("csrf_origin", f"cross-origin request refused (Origin {origin[:100]!r})")
        return
    referer = request.headers.get("referer")
    if referer:
        parts = urlsplit(referer)
        if f"{parts.scheme}://{parts.netloc}".lower() not in allowed:
            raise Forbidden("csrf_origin", "cross-origin request refused (Referer from another site)")


def verify_csrf(request: Request, settings: Settings, supplied: str | None) -> None:
    """Origin check plus the session-bound token; raises :class:`Forbidden`."""
    check_origin(request, settings)
    secret = request.cookies.get(SESSION_COOKIE) or request.cookies.get(PRESESSION_COOKIE)
    supplied = supplied or request.headers.get(CSRF_HEADER)
    if not secret or not supplied or not hmac.compare_digest(supplied.encode(), csrf_token(secret).encode()):
        raise Forbidden(
            "csrf",
            "this form has expired or did not come from this site; reload the page and try again "
            f"(API clients: send the {CSRF_HEADER} header or use a bearer token)",
        )


def ensure_presession(request: Request, settings: Settings, response: Response | None = None) -> str:
    """The CSRF secret of this browser: its session, or a pre-session cookie set on ``response``."""
    secret = request.cookies.get(SESSION_COOKIE) or request.cookies.get(PRESESSION_COOKIE)
    if secret:
        return secret
    secret = getattr(request.state, "presession", None) or secrets.token_urlsafe(32)
    request.state.presession = secret
    if response is not None:
        response.set_cookie(
            PRESESSION_COOKIE,
            secret,
            max_age=PRESESSION_SECONDS,
            httponly=True,
            samesite="lax",
            secure=cookie_secure(request, settings),
        )
    return secret
