"""FastAPI dependencies: the server context, the database, the current user, the host user,
request bodies parsed with limits, and the CSRF guard of cookie-authenticated writes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Path, Query, Request
from pydantic import BaseModel, ValidationError

from capeval.server.api.csrf import SESSION_COOKIE, verify_csrf
from capeval.server.db import Database
from capeval.server.domain.errors import Forbidden, InvalidInput, Unauthenticated
from capeval.server.models import User
from capeval.server.services.accounts import user_for_token
from capeval.server.services.context import ServerContext
from capeval.server.services.safejson import JsonLimits, loads_limited

__all__ = [
    "BODY_LIMITS",
    "CurrentUser",
    "Ctx",
    "Db",
    "HostUser",
    "MaybeUser",
    "SubmissionId",
    "Versus",
    "cookie_csrf",
    "current_user",
    "get_ctx",
    "get_db",
    "json_body",
    "json_body_schema",
    "require_host",
    "require_user",
]

M = TypeVar("M", bound=BaseModel)

#: Bounds on small JSON request bodies (accounts, tokens).
BODY_LIMITS = JsonLimits(max_depth=4, max_int_digits=20, max_string_chars=4096)
#: Largest small JSON body read.
MAX_SMALL_BODY = 64 * 1024


async def get_ctx(request: Request) -> ServerContext:
    """The server context built by ``create_app``."""
    return request.app.state.ctx


async def get_db(ctx: Annotated[ServerContext, Depends(get_ctx)]) -> Database:
    """The database."""
    return ctx.db


def current_user(request: Request, db: Annotated[Database, Depends(get_db)]) -> User | None:
    """The user of a bearer token or of the session cookie; ``None`` when anonymous.

    Records how the request authenticated (``request.state.auth``: ``bearer``, ``cookie`` or ``None``).
    """
    request.state.auth = None
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        user = user_for_token(db, header[7:].strip())
        request.state.auth = "bearer" if user else None
        return user
    cookie = request.cookies.get(SESSION_COOKIE)
    user = user_for_token(db, cookie, kind="session") if cookie else None
    request.state.auth = "cookie" if user else None
    return user


def require_user(user: Annotated[User | None, Depends(current_user)]) -> User:
    """The authenticated user, or 401."""
    if user is None:
        raise Unauthenticated("unauthorized", "log in or send 'Authorization: Bearer <token>'")
    return user


def require_host(user: Annotated[User, Depends(require_user)]) -> User:
    """An authenticated host, or 403."""
    if not user.is_host:
        raise Forbidden("host_only", "only challenge hosts may do this")
    return user


def cookie_csrf(
    request: Request,
    user: Annotated[User | None, Depends(current_user)],
    ctx: Annotated[ServerContext, Depends(get_ctx)],
) -> None:
    """Writes authenticated by the session cookie need the CSRF header and a same-origin request."""
    if getattr(request.state, "auth", None) == "cookie":
        verify_csrf(request, ctx.settings, None)


Ctx = Annotated[ServerContext, Depends(get_ctx)]
Db = Annotated[Database, Depends(get_db)]
MaybeUser = Annotated[User | None, Depends(current_user)]
CurrentUser = Annotated[User, Depends(require_user)]
HostUser = Annotated[User, Depends(require_host)]
#: A submission id in a path (positive 63-bit integers).
SubmissionId = Annotated[int, Path(ge=1, le=2**63 - 1)]
#: ``vs``: compare every entry against this submission instead of the baseline.
Versus = Annotated[int | None, Query(ge=1, le=2**63 - 1, description="compare against this entry, not the baseline")]


def json_body(model: type[M]) -> Callable[[Request], Awaitable[M]]:
    """A dependency reading a small JSON object body with limits and validating it as ``model``."""

    async def read(request: Request) -> M:
        raw = await request.body()
        if len(raw) > MAX_SMALL_BODY:
            raise InvalidInput("too_large", f"request body over {MAX_SMALL_BODY} bytes")
        document = loads_limited(raw or b"{}", "request body", BODY_LIMITS)
        if not isinstance(document, dict):
            raise InvalidInput("bad_json", "request body must be a JSON object")
        try:
            return model.model_validate(document)
        except ValidationError as exc:
            parts = []
            for err in exc.errors()[:5]:
                where = ".".join(str(p) for p in err.get("loc", ())) or "body"
                parts.append(f"{where}: {err.get('msg', 'invalid')}")
            raise InvalidInput("invalid_request", "; ".join(parts)) from None

    return read


def json_body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` declaring ``model`` as the JSON request body."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}}
