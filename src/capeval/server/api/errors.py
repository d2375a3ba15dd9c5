"""Domain errors to HTTP, in one place; HTML error pages for browsers, JSON for API clients."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from capeval.server.domain import errors as e

__all__ = ["STATUS", "error_response", "install_error_handler", "wants_html"]

log = logging.getLogger("capeval")

#: HTTP status of each domain error.
STATUS: dict[type[e.DomainError], int] = {
    e.InvalidInput: 400,
    e.Unauthenticated: 401,
    e.Forbidden: 403,
    e.NotFound: 404,
    e.Conflict: 409,
    e.TooLarge: 413,
    e.UnsupportedType: 415,
    e.UnprocessableResults: 422,
    e.LimitReached: 429,
    e.TooManyAttempts: 429,
}
_HTTP_CODES = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed", 409: "conflict"}


def status_of(exc: e.DomainError) -> int:
    """The HTTP status of a domain error (its nearest mapped class)."""
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 400


def wants_html(request: Request) -> bool:
    """Browsers (``Accept: text/html``) outside ``/api/`` get pages; everyone else JSON."""
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


def error_response(request: Request, status: int, code: str, detail: str) -> Response:
    """A JSON error ``{"error", "detail"}``, or the error page for a browser."""
    if wants_html(request):
        from capeval.server.web.templating import render

        return render(request, "error.html", status=status, status_code=status, code=code, detail=detail)
    return JSONResponse({"error": code, "detail": detail}, status_code=status)


def _validation_detail(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where or 'request'}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


async def handle_error(request: Request, exc: Exception) -> Response:
    """The application's one error handler."""
    if isinstance(exc, e.Unauthenticated) and request.method in ("GET", "HEAD") and wants_html(request):
        from capeval.server.web.accounts import login_redirect

        return login_redirect(request)  # a page that needs a login comes back after it
    if isinstance(exc, e.DomainError):
        return error_response(request, status_of(exc), exc.code, exc.message)
    if isinstance(exc, RequestValidationError):
        return error_response(request, 400, "invalid_request", _validation_detail(exc))
    if isinstance(exc, StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        return error_response(request, exc.status_code, _HTTP_CODES.get(exc.status_code, "error"), detail)
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(request, 500, "internal_error", "the server failed on this request; it has been logged")


def install_error_handler(app: FastAPI) -> None:
    """Route every error class through :func:`handle_error`."""
    for cls in (e.DomainError, RequestValidationError, StarletteHTTPException, Exception):
        app.add_exception_handler(cls, handle_error)
