"""The FastAPI application: JSON API under ``/api/v1``, server-rendered pages, ``/health``.

Routes are thin: they authenticate, call :mod:`capeval.server.intake` and
:mod:`capeval.server.services`, and render. Request bodies are bounded by
:class:`BodyLimitMiddleware` before any handler (or multipart parser) sees them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import timedelta
from importlib import resources
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from capeval._version import __version__
from capeval.server.config import Settings
from capeval.server.db import Database, upgrade_schema
from capeval.server.intake import UploadError, parse_upload, validate_results
from capeval.server.leaderboard import (
    SignificanceCache,
    build_leaderboard,
    can_see_items,
    leaderboard_csv,
    leaderboard_json,
    scores_visible,
)
from capeval.server.models import AuditLog, Challenge, Job, Phase, Result, Submission, User, utcnow
from capeval.server.scoring import available_metrics, scorer_version
from capeval.server.services import (
    ServiceError,
    authenticate,
    cancel_submission,
    check_phase_open,
    create_submission,
    create_user,
    issue_token,
    phase_image_ids,
    quota_usage,
    rerun_submission,
    revoke_token,
    set_baseline,
    user_for_token,
)

__all__ = ["BodyLimitMiddleware", "LoginThrottle", "SecurityHeadersMiddleware", "create_app"]

log = logging.getLogger("capeval")

SESSION_COOKIE = "capeval_session"
#: Allowance for multipart framing and form fields on top of the file-size limit.
MULTIPART_OVERHEAD_BYTES = 64 * 1024
#: Histogram bins of the per-image drill-down.
HISTOGRAM_BINS = 10
#: Failed logins per username within LOGIN_WINDOW_SECONDS before further attempts are refused.
LOGIN_MAX_FAILURES = 10
LOGIN_WINDOW_SECONDS = 15 * 60
#: Bound on the usernames the in-memory login throttle tracks.
LOGIN_THROTTLE_MAX_USERS = 100_000
#: Images listed as worst and best in the drill-down.
DRILLDOWN_EXTREMES = 10

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _BodyTooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """Reject request bodies over ``limit`` bytes with 413, counting bytes as they arrive.

    A ``Content-Length`` over the limit is refused before reading anything; chunked or
    lying clients are cut off as soon as the running count passes the limit. Starlette
    spools multipart file parts before a handler runs, so this has to sit in front of it.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int) -> None:
        self.app = app
        self.limit = limit

    async def _reject(self, send: Send) -> None:
        body = json.dumps(
            {"error": "too_large", "detail": f"request body exceeds the {self.limit}-byte upload limit"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
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
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.limit or declared < 0:
                    await self._reject(send)
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
                await self._reject(send)


class SecurityHeadersMiddleware:
    """Adds conservative browser security headers to every response."""

    HEADERS = (
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
        # Pages use only their own scripts and styles (inline style attributes draw histogram bars).
        (
            b"content-security-policy",
            b"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
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


class LoginThrottle:
    """Refuses logins for a username after too many recent failures (in memory, per process)."""

    def __init__(self, max_failures: int, window_seconds: float) -> None:
        self.max_failures = max_failures
        self.window = window_seconds
        self._lock = threading.Lock()
        self._failures: dict[str, list[float]] = {}

    def _recent(self, username: str, now: float) -> list[float]:
        times = [t for t in self._failures.get(username, []) if now - t < self.window]
        self._failures[username] = times
        return times

    def check(self, username: str) -> None:
        """Raise 429 when ``username`` is locked out."""
        with self._lock:
            if len(self._recent(username, time.monotonic())) >= self.max_failures:
                raise ServiceError(
                    429,
                    "too_many_attempts",
                    f"too many failed logins for {username!r}; try again in {self.window / 60:.0f} minutes",
                )

    def failed(self, username: str) -> None:
        """Record a failed login."""
        with self._lock:
            now = time.monotonic()
            self._recent(username, now).append(now)
            if len(self._failures) > LOGIN_THROTTLE_MAX_USERS:
                self._failures.clear()

    def succeeded(self, username: str) -> None:
        """Forget the failures of a user who logged in."""
        with self._lock:
            self._failures.pop(username, None)


class _PhaseIds:
    """Expected image ids per phase, parsed once (reference payloads can be large)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[tuple[int, tuple[str, ...]], frozenset[int]] = {}

    def get(self, phase: Phase) -> frozenset[int]:
        key = (phase.id, tuple(s.references_sha256 for s in phase.splits))
        with self._lock:
            if key not in self._data:
                self._data[key] = frozenset(phase_image_ids(phase))
            return self._data[key]


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def create_app(settings: Settings | None = None, *, db: Database | None = None, migrate: bool = True) -> FastAPI:
    """Build the application.

    Args:
        settings: Server settings (default: :class:`Settings` from the environment).
        db: An existing database handle (default: one for ``settings.database_url``).
        migrate: Run the schema migrations at start-up.
    """
    settings = settings or Settings()
    db = db or Database(settings.database_url)
    if migrate:
        upgrade_schema(db)
    metrics = available_metrics(settings.metrics)
    version = scorer_version(metrics, settings.tokenizer)
    app = FastAPI(
        title="capeval evaluation server",
        version=__version__,
        description="Caption challenges: hidden test references, submission limits, leaderboards.",
        # The interactive docs pages load their scripts from a CDN; the server stays offline-clean
        # and serves the schema only (/openapi.json).
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_upload_bytes + MULTIPART_OVERHEAD_BYTES)
    app.add_middleware(SecurityHeadersMiddleware)
    throttle = LoginThrottle(LOGIN_MAX_FAILURES, LOGIN_WINDOW_SECONDS)

    def login(username: str, password: str) -> User | None:
        throttle.check(username)
        user = authenticate(db, username, password)
        if user is None:
            throttle.failed(username)
        else:
            throttle.succeeded(username)
        return user

    app.state.settings = settings
    app.state.db = db
    app.state.metrics = metrics
    app.state.scorer_version = version
    phase_ids = _PhaseIds()
    significance_cache = SignificanceCache()
    package = resources.files("capeval.server")
    templates = Jinja2Templates(directory=str(package / "templates"))
    templates.env.globals.update(version=__version__)
    app.mount("/static", StaticFiles(directory=str(package / "static")), name="static")

    # --- helpers ---------------------------------------------------------------------
    def current_user(request: Request) -> User | None:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return user_for_token(db, header[7:].strip())
        cookie = request.cookies.get(SESSION_COOKIE)
        return user_for_token(db, cookie, kind="session") if cookie else None

    def require_user(request: Request) -> User:
        user = current_user(request)
        if user is None:
            raise HTTPException(401, "log in or send 'Authorization: Bearer <token>'")
        return user

    def require_host(request: Request) -> User:
        user = require_user(request)
        if not user.is_host:
            raise HTTPException(403, "only challenge hosts may do this")
        return user

    def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        user = context.pop("user", None) if "user" in context else current_user(request)
        return templates.TemplateResponse(request, name, {"user": user, **context}, status_code=status)

    def error_response(request: Request, status: int, code: str, detail: str) -> Response:
        if _is_api(request) or "text/html" not in request.headers.get("accept", ""):
            return JSONResponse({"error": code, "detail": detail}, status_code=status)
        return render(request, "error.html", status=status, status_code=status, code=code, detail=detail)

    @app.exception_handler(ServiceError)
    @app.exception_handler(UploadError)
    async def _refused(request: Request, exc: ServiceError | UploadError) -> Response:
        return error_response(request, exc.status, exc.code, exc.message)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> Response:
        codes = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed", 409: "conflict"}
        return error_response(request, exc.status_code, codes.get(exc.status_code, "error"), str(exc.detail))

    from starlette.exceptions import HTTPException as StarletteHTTPException

    @app.exception_handler(StarletteHTTPException)
    async def _starlette_error(request: Request, exc: StarletteHTTPException) -> Response:
        return await _http_error(request, HTTPException(exc.status_code, exc.detail))

    def get_challenge(session: Session, slug: str) -> Challenge:
        challenge = session.scalar(select(Challenge).where(Challenge.slug == slug))
        if challenge is None:
            raise HTTPException(404, f"no challenge {slug!r}")
        return challenge

    def get_phase(session: Session, slug: str, phase_name: str) -> Phase:
        challenge = get_challenge(session, slug)
        for phase in challenge.phases:
            if phase.name == phase_name:
                return phase
        raise HTTPException(404, f"challenge {slug!r} has no phase {phase_name!r}")

    def visible_submission(session: Session, submission_id: int, user: User) -> Submission:
        submission = session.get(Submission, submission_id)
        if submission is None or not (user.is_host or submission.team_id == user.team_id):
            raise HTTPException(404, f"no submission {submission_id} of your team")
        return submission

    def submission_view(session: Any, submission: Submission, user: User) -> dict[str, Any]:
        phase = submission.phase
        visible = scores_visible(phase, user)
        results = {}
        for split in phase.splits:
            row = session.scalars(
                select(Result)
                .where(Result.submission_id == submission.id, Result.split_id == split.id)
                .order_by(Result.id.desc())
            ).first()
            if row is None:
                continue
            results[split.name] = {
                "scores": json.loads(row.scores_json) if visible else None,
                "signatures": json.loads(row.signatures_json) if visible else None,
                "scorer_version": row.scorer_version,
                "drilldown": f"/submissions/{submission.id}/images/{split.name}"
                if can_see_items(split, submission, user)
                else None,
            }
        job = session.scalars(select(Job).where(Job.submission_id == submission.id).order_by(Job.id.desc())).first()
        return {
            "id": submission.id,
            "challenge": phase.challenge.slug,
            "phase": phase.name,
            "team": submission.team.name,
            "method_name": submission.method_name,
            "method_description": submission.method_description,
            "public": submission.is_public,
            "baseline": submission.is_baseline,
            "status": submission.status,
            "error": submission.error or None,
            "attempts": job.attempts if job else 0,
            "created_at": submission.created_at.isoformat(),
            "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
            "file_sha256": submission.file_sha256,
            "scores_hidden": not visible,
            "results": results,
        }

    def accept_upload(
        user: User,
        slug: str,
        phase_name: str,
        data: bytes,
        content_type: str,
        filename: str,
        meta: dict[str, Any],
        dry_run: bool,
    ) -> dict[str, Any]:
        with db.read() as session:
            phase = get_phase(session, slug, phase_name)
            check_phase_open(phase, utcnow())
            if dry_run and not phase.allow_dry_run:
                raise ServiceError(403, "no_dry_run", f"phase {phase_name!r} does not offer dry runs")
            expected = phase_ids.get(phase)
            phase_id = phase.id
        if len(data) > settings.max_upload_bytes:
            raise UploadError(413, "too_large", f"file exceeds the {settings.max_upload_bytes}-byte upload limit")
        parsed = parse_upload(
            data,
            content_type=content_type,
            filename=filename,
            max_members=settings.max_zip_members,
            max_unzipped=settings.max_unzipped_bytes,
        )
        captions = validate_results(
            parsed.document,
            expected,
            max_caption_chars=settings.max_caption_chars,
            where=parsed.member or "results",
        )
        if dry_run:
            return {"valid": True, "dry_run": True, "n_images": len(captions), "detail": "file is valid; not scored"}
        submission_id = create_submission(
            db,
            user_id=user.id,
            phase_id=phase_id,
            captions=captions,
            file_sha256=hashlib.sha256(data).hexdigest(),
            filename=filename,
            n_bytes=len(data),
            scorer_version=version,
            max_attempts=settings.max_attempts,
            method_name=str(meta.get("method_name", ""))[:200],
            method_description=str(meta.get("method_description", ""))[:5000],
            is_public=bool(meta.get("public", True)),
        )
        return {"id": submission_id, "status": "queued", "url": f"/submissions/{submission_id}"}

    async def read_upload(request: Request) -> tuple[bytes, str, str, dict[str, Any]]:
        content_type = request.headers.get("content-type", "")
        meta: dict[str, Any] = {}
        if content_type.startswith("multipart/form-data"):
            form = await request.form(max_files=1, max_fields=10)
            part = form.get("file")
            if not isinstance(part, UploadFile):
                raise UploadError(400, "no_file", "the form has no 'file' part")
            data = await part.read()
            for key in ("method_name", "method_description"):
                if isinstance(form.get(key), str):
                    meta[key] = form[key]
            meta["public"] = form.get("public", "on") in ("on", "true", "1")
            meta["dry_run"] = form.get("dry_run") in ("on", "true", "1")
            return data, part.content_type or "", part.filename or "", meta
        data = await request.body()
        params = request.query_params
        meta = {
            "method_name": params.get("method_name", ""),
            "method_description": params.get("method_description", ""),
            "public": params.get("public", "true") in ("true", "1", "on"),
            "dry_run": params.get("dry_run", "false") in ("true", "1", "on"),
        }
        return data, content_type, params.get("filename", ""), meta

    # --- health ----------------------------------------------------------------------
    @app.get("/health", tags=["meta"])
    def health() -> dict[str, Any]:
        """Liveness and queue depth."""
        with db.read() as session:
            counts = dict(session.execute(select(Job.status, func.count(Job.id)).group_by(Job.status)).all())
        return {
            "status": "ok",
            "version": __version__,
            "database": db.engine.dialect.name,
            "scorer_version": version,
            "jobs": {k: int(v) for k, v in counts.items()},
        }

    # --- JSON API --------------------------------------------------------------------
    @app.post("/api/v1/register", status_code=201, tags=["accounts"])
    async def api_register(request: Request) -> dict[str, Any]:
        """Create an account; body ``{"username", "password", "team"?, "team_code"?}``.

        A new team name creates the team; an existing one needs its ``team_code``.
        """
        body = await _json_body(request)
        user = await run_in_threadpool(
            create_user,
            db,
            str(body.get("username", "")),
            str(body.get("password", "")),
            team_name=body.get("team") or None,
            team_code=body.get("team_code") or None,
        )
        return {"username": user.username, "team_id": user.team_id}

    @app.post("/api/v1/tokens", status_code=201, tags=["accounts"])
    async def api_token(request: Request) -> dict[str, Any]:
        """Exchange username and password for an expiring API token."""
        body = await _json_body(request)
        user = await run_in_threadpool(login, str(body.get("username", "")), str(body.get("password", "")))
        if user is None:
            raise HTTPException(401, "wrong username or password")
        lifetime = timedelta(days=settings.token_days)
        token = await run_in_threadpool(
            issue_token, db, user.id, kind="api", lifetime=lifetime, label=str(body.get("label", ""))
        )
        return {"token": token, "expires_at": (utcnow() + lifetime).isoformat()}

    @app.get("/api/v1/me", tags=["accounts"])
    def api_me(request: Request) -> dict[str, Any]:
        """The authenticated user."""
        user = require_user(request)
        return {
            "username": user.username,
            "team": user.team.name if user.team else None,
            "team_join_code": user.team.join_code if user.team else None,
            "host": user.is_host,
        }

    @app.get("/api/v1/challenges", tags=["challenges"])
    def api_challenges() -> list[dict[str, Any]]:
        """Challenges with their phases and splits (never references)."""
        with db.read() as session:
            return [_challenge_summary(c) for c in session.scalars(select(Challenge).order_by(Challenge.id))]

    @app.get("/api/v1/challenges/{slug}", tags=["challenges"])
    def api_challenge(slug: str, request: Request) -> dict[str, Any]:
        """One challenge; with authentication, the team's quota usage per phase."""
        user = current_user(request)
        with db.read() as session:
            challenge = get_challenge(session, slug)
            out = _challenge_summary(challenge)
            if user is not None and user.team_id is not None:
                now = utcnow()
                out["quota"] = {p.name: quota_usage(session, user.team_id, p, now) for p in challenge.phases}
            return out

    @app.post(
        "/api/v1/challenges/{slug}/phases/{phase}/submissions",
        status_code=202,
        tags=["submissions"],
        openapi_extra={
            "requestBody": {
                "content": {
                    "application/json": {"schema": {"type": "array"}},
                    "application/zip": {"schema": {"type": "string", "format": "binary"}},
                },
                "required": True,
            }
        },
    )
    async def api_submit(slug: str, phase: str, request: Request) -> Response:
        """Upload a results json or zip (raw body or multipart ``file``). ``?dry_run=true`` only validates."""
        user = await run_in_threadpool(require_user, request)
        data, content_type, filename, meta = await read_upload(request)
        out = await run_in_threadpool(
            accept_upload, user, slug, phase, data, content_type, filename, meta, bool(meta.get("dry_run"))
        )
        return JSONResponse(out, status_code=200 if out.get("dry_run") else 202)

    @app.get("/api/v1/submissions", tags=["submissions"])
    def api_submissions(request: Request) -> list[dict[str, Any]]:
        """The team's submissions (hosts: all)."""
        user = require_user(request)
        with db.read() as session:
            query = select(Submission).order_by(Submission.id.desc())
            if not user.is_host:
                query = query.where(Submission.team_id == user.team_id)
            return [submission_view(session, s, user) for s in session.scalars(query.limit(500))]

    @app.get("/api/v1/submissions/{submission_id}", tags=["submissions"])
    def api_submission(submission_id: int, request: Request) -> dict[str, Any]:
        """Status and (when visible) scores of one submission."""
        user = require_user(request)
        with db.read() as session:
            return submission_view(session, visible_submission(session, submission_id, user), user)

    @app.get("/api/v1/submissions/{submission_id}/images/{split}", tags=["submissions"])
    def api_images(submission_id: int, split: str, request: Request) -> dict[str, Any]:
        """Per-image scores, captions and references (public splits only, own team or host)."""
        user = require_user(request)
        with db.read() as session:
            return drilldown_data(session, submission_id, split, user)

    @app.post("/api/v1/submissions/{submission_id}/rerun", tags=["host"])
    def api_rerun(submission_id: int, request: Request) -> dict[str, Any]:
        """Host: queue the submission for scoring again."""
        host = require_host(request)
        job_id = rerun_submission(db, host, submission_id, version, settings.max_attempts)
        return {"submission_id": submission_id, "job_id": job_id, "status": "queued"}

    @app.post("/api/v1/submissions/{submission_id}/cancel", tags=["host"])
    def api_cancel(submission_id: int, request: Request) -> dict[str, Any]:
        """Host: cancel a submission (it no longer counts against the quota)."""
        host = require_host(request)
        cancel_submission(db, host, submission_id)
        return {"submission_id": submission_id, "status": "cancelled"}

    @app.post("/api/v1/submissions/{submission_id}/baseline", tags=["host"])
    def api_baseline(submission_id: int, request: Request, value: bool = True) -> dict[str, Any]:
        """Host: mark (``?value=true``) or unmark a baseline."""
        host = require_host(request)
        set_baseline(db, host, submission_id, value)
        return {"submission_id": submission_id, "baseline": value}

    @app.get("/api/v1/audit", tags=["host"])
    def api_audit(request: Request) -> list[dict[str, Any]]:
        """Host: the audit log, newest first."""
        require_host(request)
        with db.read() as session:
            return [_audit_row(a) for a in session.scalars(select(AuditLog).order_by(AuditLog.id.desc()).limit(500))]

    @app.get("/api/v1/challenges/{slug}/leaderboard", tags=["leaderboard"])
    def api_leaderboard(slug: str, request: Request, vs: int | None = None) -> dict[str, Any]:
        """Leaderboard as JSON (what the caller may see); ``vs``: compare against this entry, not the baseline."""
        return leaderboard_json(board_for(slug, current_user(request), vs))

    @app.get("/c/{slug}/leaderboard.json", tags=["leaderboard"])
    def export_json(slug: str, request: Request, vs: int | None = None) -> Response:
        """Leaderboard export as a JSON file."""
        data = leaderboard_json(board_for(slug, current_user(request), vs))
        return JSONResponse(data, headers={"content-disposition": f'attachment; filename="{slug}-leaderboard.json"'})

    @app.get("/c/{slug}/leaderboard.csv", tags=["leaderboard"])
    def export_csv(slug: str, request: Request) -> Response:
        """Leaderboard export as CSV."""
        text = leaderboard_csv(board_for(slug, current_user(request)))
        return PlainTextResponse(
            text,
            media_type="text/csv",
            headers={"content-disposition": f'attachment; filename="{slug}-leaderboard.csv"'},
        )

    def board_for(slug: str, user: User | None, versus: int | None = None) -> Any:
        with db.read() as session:
            challenge = get_challenge(session, slug)
            return build_leaderboard(
                session,
                challenge,
                user,
                n_resamples=settings.bootstrap_resamples,
                seed=settings.bootstrap_seed,
                cache=significance_cache,
                versus=versus,
            )

    def drilldown_data(session: Any, submission_id: int, split_name: str, user: User) -> dict[str, Any]:
        submission = visible_submission(session, submission_id, user)
        split = next((s for s in submission.phase.splits if s.name == split_name), None)
        if split is None:
            raise HTTPException(404, f"submission {submission_id} has no split {split_name!r}")
        if not can_see_items(split, submission, user):
            raise HTTPException(403, f"per-image results are not available for the {split.visibility} split")
        row = session.scalars(
            select(Result)
            .where(Result.submission_id == submission.id, Result.split_id == split.id)
            .order_by(Result.id.desc())
        ).first()
        if row is None:
            raise HTTPException(404, f"submission {submission_id} has no results on {split_name!r} yet")
        items = json.loads(row.items_json)
        captions = json.loads(submission.candidates_json)
        references = json.loads(split.references_json)
        outputs = list(items["item_scores"])
        key = "cider-d" if "cider-d" in outputs else (outputs[-1] if outputs else None)
        images = []
        for index, image_id in enumerate(items["ids"]):
            images.append(
                {
                    "image_id": image_id,
                    "caption": captions.get(str(image_id), ""),
                    "references": references.get(str(image_id), []),
                    "scores": {o: items["item_scores"][o][index] for o in outputs},
                }
            )
        ordered = sorted(images, key=lambda im: im["scores"].get(key, 0.0)) if key else images
        values = [im["scores"][key] for im in images] if key else []
        histogram: list[dict[str, float]] = []
        if values:
            lo, hi = min(values), max(values)
            width = (hi - lo) / HISTOGRAM_BINS or 1.0
            counts = [0] * HISTOGRAM_BINS
            for v in values:
                counts[min(int((v - lo) / width), HISTOGRAM_BINS - 1)] += 1
            histogram = [
                {"low": lo + i * width, "high": lo + (i + 1) * width, "count": c} for i, c in enumerate(counts)
            ]
        return {
            "submission_id": submission.id,
            "split": split.name,
            "sort_key": key,
            "outputs": outputs,
            "worst": ordered[:DRILLDOWN_EXTREMES],
            "best": ordered[::-1][:DRILLDOWN_EXTREMES],
            "histogram": histogram,
            "images": images,
        }

    # --- pages -----------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page_index(request: Request) -> Response:
        with db.read() as session:
            challenges = [_challenge_summary(c) for c in session.scalars(select(Challenge).order_by(Challenge.id))]
        return render(request, "index.html", challenges=challenges)

    @app.get("/register", response_class=HTMLResponse, include_in_schema=False)
    def page_register(request: Request) -> Response:
        return render(request, "register.html", error=None)

    @app.post("/register", include_in_schema=False)
    async def page_register_post(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=10)
        try:
            user = await run_in_threadpool(
                create_user,
                db,
                str(form.get("username", "")),
                str(form.get("password", "")),
                team_name=str(form.get("team", "")) or None,
                team_code=str(form.get("team_code", "")) or None,
            )
        except ServiceError as exc:
            return render(request, "register.html", status=exc.status, error=exc.message, user=None)
        return await _login_redirect(user)

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def page_login(request: Request) -> Response:
        return render(request, "login.html", error=None)

    @app.post("/login", include_in_schema=False)
    async def page_login_post(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=10)
        try:
            user = await run_in_threadpool(login, str(form.get("username", "")), str(form.get("password", "")))
        except ServiceError as exc:
            return render(request, "login.html", status=exc.status, error=exc.message, user=None)
        if user is None:
            return render(request, "login.html", status=401, error="wrong username or password", user=None)
        return await _login_redirect(user)

    async def _login_redirect(user: User) -> Response:
        lifetime = timedelta(hours=settings.session_hours)
        token = await run_in_threadpool(issue_token, db, user.id, kind="session", lifetime=lifetime)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=int(lifetime.total_seconds()),
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
        )
        return response

    @app.post("/logout", include_in_schema=False)
    def page_logout(request: Request) -> Response:
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            revoke_token(db, cookie)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    @app.get("/c/{slug}", response_class=HTMLResponse, include_in_schema=False)
    def page_challenge(slug: str, request: Request, vs: int | None = None) -> Response:
        user = current_user(request)
        board = board_for(slug, user, vs)
        with db.read() as session:
            challenge = get_challenge(session, slug)
            summary = _challenge_summary(challenge)
        return render(request, "challenge.html", board=board, challenge=summary, user=user)

    @app.get("/c/{slug}/submit", response_class=HTMLResponse, include_in_schema=False)
    def page_submit(slug: str, request: Request) -> Response:
        user = current_user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        with db.read() as session:
            challenge = get_challenge(session, slug)
            summary = _challenge_summary(challenge)
            now = utcnow()
            quota = (
                {p.name: quota_usage(session, user.team_id, p, now) for p in challenge.phases} if user.team_id else {}
            )
        return render(request, "submit.html", challenge=summary, quota=quota, error=None, user=user, result=None)

    @app.post("/c/{slug}/submit", include_in_schema=False)
    async def page_submit_post(slug: str, request: Request) -> Response:
        user = await run_in_threadpool(current_user, request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        form = await request.form(max_files=1, max_fields=10)
        phase = str(form.get("phase", ""))
        part = form.get("file")
        with db.read() as session:
            summary = _challenge_summary(get_challenge(session, slug))
        if not isinstance(part, UploadFile) or not part.filename:
            return render(
                request,
                "submit.html",
                status=400,
                challenge=summary,
                quota={},
                user=user,
                result=None,
                error="choose a results file (.json or .zip) to upload",
            )
        data = await part.read()
        meta = {
            "method_name": str(form.get("method_name", "")),
            "method_description": str(form.get("method_description", "")),
            "public": form.get("public") in ("on", "true", "1"),
        }
        dry_run = form.get("dry_run") in ("on", "true", "1")
        try:
            out = await run_in_threadpool(
                accept_upload, user, slug, phase, data, part.content_type or "", part.filename or "", meta, dry_run
            )
        except (UploadError, ServiceError) as exc:
            return render(
                request,
                "submit.html",
                status=exc.status,
                challenge=summary,
                quota={},
                user=user,
                result=None,
                error=exc.message,
            )
        if dry_run:
            return render(request, "submit.html", challenge=summary, quota={}, user=user, error=None, result=out)
        return RedirectResponse(out["url"], status_code=303)

    @app.get("/submissions", response_class=HTMLResponse, include_in_schema=False)
    def page_submissions(request: Request) -> Response:
        user = current_user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        return render(request, "submissions.html", submissions=api_submissions(request), user=user)

    @app.get("/submissions/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
    def page_submission(submission_id: int, request: Request) -> Response:
        user = current_user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        with db.read() as session:
            view = submission_view(session, visible_submission(session, submission_id, user), user)
        return render(request, "submission.html", s=view, user=user)

    @app.get("/submissions/{submission_id}/images/{split}", response_class=HTMLResponse, include_in_schema=False)
    def page_images(submission_id: int, split: str, request: Request) -> Response:
        user = current_user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        with db.read() as session:
            data = drilldown_data(session, submission_id, split, user)
        return render(request, "images.html", d=data, user=user)

    @app.get("/host", response_class=HTMLResponse, include_in_schema=False)
    def page_host(request: Request) -> Response:
        user = require_host(request)
        with db.read() as session:
            subs = [
                submission_view(session, s, user)
                for s in session.scalars(select(Submission).order_by(Submission.id.desc()).limit(200))
            ]
            audit_rows = [
                _audit_row(a) for a in session.scalars(select(AuditLog).order_by(AuditLog.id.desc()).limit(100))
            ]
        return render(request, "host.html", submissions=subs, audit=audit_rows, user=user)

    @app.post("/host/submissions/{submission_id}/{action}", include_in_schema=False)
    def page_host_action(submission_id: int, action: str, request: Request) -> Response:
        host = require_host(request)
        if action == "rerun":
            rerun_submission(db, host, submission_id, version, settings.max_attempts)
        elif action == "cancel":
            cancel_submission(db, host, submission_id)
        elif action in ("baseline", "unbaseline"):
            set_baseline(db, host, submission_id, action == "baseline")
        else:
            raise HTTPException(404, f"unknown action {action!r}")
        return RedirectResponse("/host", status_code=303)

    return app


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        body = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError(400, "bad_json", f"request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ServiceError(400, "bad_json", "request body must be a JSON object")
    return body


def _challenge_summary(challenge: Challenge) -> dict[str, Any]:
    return {
        "slug": challenge.slug,
        "title": challenge.title,
        "description": challenge.description,
        "splits": [
            {"name": s.name, "visibility": s.visibility, "n_images": s.n_images, "nrefs": s.nrefs}
            for s in challenge.splits
        ],
        "phases": [
            {
                "name": p.name,
                "splits": [s.name for s in p.splits],
                "starts_at": p.starts_at.isoformat() if p.starts_at else None,
                "ends_at": p.ends_at.isoformat() if p.ends_at else None,
                "max_per_day": p.max_per_day,
                "max_total": p.max_total,
                "max_in_flight": p.max_in_flight,
                "scores_visible": p.scores_visible,
                "allow_dry_run": p.allow_dry_run,
            }
            for p in challenge.phases
        ],
    }


def _audit_row(row: AuditLog) -> dict[str, Any]:
    return {
        "at": row.at.isoformat(),
        "actor": row.actor.username if row.actor else "system",
        "action": row.action,
        "target": row.target,
        "detail": row.detail,
    }
