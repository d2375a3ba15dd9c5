"""ASGI middleware: the streaming body limit and browser security headers."""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BodyLimitMiddleware", "HeadMiddleware", "SecurityHeadersMiddleware"]

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
