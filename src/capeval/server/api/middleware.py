"""ASGI middleware: the streaming body limit and browser security headers."""

from __future__ import annotations

import html
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import datetime, timezone
from typing import Any

__all__ = ["AccessLogMiddleware", "BodyLimitMiddleware", "HeadMiddleware", "SecurityHeadersMiddleware", "log_line_text"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _BodyTooLarge(Exception):
    pass


def _wants_html(scope: Scope) -> bool:
    path = scope.get("path", "")
    if path.startswith("/api/"):
        return False
    accept = next((v for k, v in scope.get("headers", []) if k == b"accept"), b"")
    return b"text/html" in accept


class BodyLimitMiddleware:
    """Reject request bodies over ``limit`` bytes with 413, counting bytes as they arrive.

    A ``Content-Length`` over the limit is refused before reading anything; chunked or
    lying clients are cut off as soon as the running count passes the limit. Starlette
    spools multipart file parts before a handler runs, so this has to sit in front of it.
    Browsers get a small HTML page, API clients JSON.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int, upload_limit: int | None = None) -> None:
        self.app = app
        self.limit = limit
        #: The limit people are told: the file size limit (``limit`` adds room for form framing).
        self.upload_limit = upload_limit if upload_limit is not None else limit

    async def _reject(self, scope: Scope, send: Send) -> None:
        detail = f"the request is larger than the upload limit of {self.upload_limit:,} bytes"
        if _wants_html(scope):
            body = (
                "<!doctype html><html lang=en><head><meta charset=utf-8><title>413 · capeval</title>"
                '<link rel="stylesheet" href="/static/style.css"></head><body><main><h1>413</h1>'
                f'<p class="error" role="alert">{html.escape(detail)}</p><p><a href="/">Back to the challenges</a>'
                "</p></main></body></html>"
            ).encode()
            ctype = b"text/html; charset=utf-8"
        else:
            body = json.dumps({"error": "too_large", "detail": detail}).encode()
            ctype = b"application/json"
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value) if len(value) <= 20 else -1
                except ValueError:
                    declared = -1
                if declared > self.limit or declared < 0:
                    await self._reject(scope, send)
                    return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _BodyTooLarge:
            if not started:
                await self._reject(scope, send)


class SecurityHeadersMiddleware:
    """Adds conservative browser security headers to every response."""

    HEADERS = (
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
        # Pages use only their own scripts and styles (inline style attributes draw histogram bars).
        (
            b"content-security-policy",
            b"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; "
            b"form-action 'self'",
        ),
    )

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


class HeadMiddleware:
    """``HEAD`` is answered wherever ``GET`` is (monitors and link checkers use it): the request runs
    as a ``GET`` and the response keeps its status and headers but sends no body."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


#: Paths whose last part is a secret (a password-reset link): logged without it.
_SECRET_PATHS = re.compile(r"^(/reset/)[^/]+")
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\\\"]")


def log_line_text(text: str, limit: int = 500) -> str:
    """``text`` safe on one line of a log: control, bidirectional and quote characters escaped, length bounded."""
    cut = text[:limit]
    return _UNPRINTABLE.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}", cut
    )


class AccessLogMiddleware:
    """One line per request on the ``capeval.access`` logger, once the response is sent::

        203.0.113.5 [2026-11-26T10:00:00+00:00] "GET /c/coco-demo?all=1" 200 5123 12ms "Mozilla/5.0 ..."

    The address is the one the server decides (:func:`capeval.server.api.proxy.client_address`);
    a reset link's token is never written; paths and user agents are escaped onto one line.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], settings: Any) -> None:
        self.app = app
        self.settings = settings
        self.log = logging.getLogger("capeval.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0
        sent = 0

        async def counting(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, counting)
        finally:
            if self.log.isEnabledFor(logging.INFO):
                self.log.info(self._line(scope, status or 500, sent, time.perf_counter() - start))

    def _line(self, scope: Scope, status: int, sent: int, seconds: float) -> str:
        from starlette.requests import Request

        from capeval.server.api.proxy import client_address

        address = client_address(Request(scope), self.settings)
        path = _SECRET_PATHS.sub(r"\1...", scope.get("path", ""))
        query = scope.get("query_string", b"").decode("latin-1")
        target = log_line_text(path + (f"?{query}" if query else ""))
        agent = next((v for k, v in scope.get("headers", []) if k == b"user-agent"), b"").decode("latin-1")
        moment = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return (
            f'{log_line_text(address, 64)} [{moment}] "{scope.get("method", "")} {target}" {status} {sent} '
            f'{seconds * 1000:.0f}ms "{log_line_text(agent, 200)}"'
        )
