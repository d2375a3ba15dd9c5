"""The FastAPI application: it assembles middleware, routers and the error handler.

Layout of the server package:

* ``domain/``: states, errors and the visibility policy (no web framework, no SQL);
* ``services/``: accounts, challenge set-up, submissions and quotas, jobs, significance, the
  leaderboard and the upload intake, raising domain errors;
* ``api/``: the JSON API (one router per area), dependencies, the error mapping, CSRF, middleware;
* ``web/``: server-rendered pages over the same services, with their templates and static files;
* ``models.py``/``db.py``/``migrations/``: storage; ``worker.py``/``scoring.py``: scoring workers.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from capeval._version import __version__
from capeval.server.api import (
    accounts,
    challenges,
    exports,
    host,
    hosting,
    leaderboard,
    meta,
    setup,
    submissions,
    users,
)
from capeval.server.api.errors import install_error_handler
from capeval.server.api.middleware import (
    AccessLogMiddleware,
    BodyLimitMiddleware,
    HeadMiddleware,
    SecurityHeadersMiddleware,
)
from capeval.server.config import Settings, resolve_settings
from capeval.server.db import Database, upgrade_schema
from capeval.server.scoring import available_metrics, scorer_version
from capeval.server.services.context import ServerContext
from capeval.server.web import accounts as web_accounts
from capeval.server.web import challenges as web_challenges
from capeval.server.web import host as web_host
from capeval.server.web import submissions as web_submissions
from capeval.server.web.templating import STATIC_DIR

__all__ = ["MULTIPART_OVERHEAD_BYTES", "configure_access_log", "create_app", "uvicorn_config"]

#: Allowance for multipart framing and form fields on top of the file-size limit.
MULTIPART_OVERHEAD_BYTES = 64 * 1024

ROUTERS = (
    meta.router,
    accounts.router,
    challenges.router,
    submissions.router,
    leaderboard.router,
    host.router,
    hosting.router,
    users.router,
    setup.router,
    exports.router,
    web_accounts.router,
    web_challenges.router,
    web_submissions.router,
    web_host.router,
)


def create_app(settings: Settings | None = None, *, db: Database | None = None, migrate: bool = True) -> FastAPI:
    """Build the application.

    Args:
        settings: Resolved server settings (default: :func:`resolve_settings` with no config file:
            the defaults and the ``CAPEVAL_*`` environment).
        db: An existing database handle (default: one for ``settings.database_url``).
        migrate: Run the schema migrations at start-up.
    """
    settings = settings or resolve_settings()[0]
    db = db or Database(settings.database_url)
    if migrate:
        upgrade_schema(db)
    metrics = available_metrics(settings.metrics)
    app = FastAPI(
        title="capeval evaluation server",
        version=__version__,
        description="Caption challenges: hidden test references, submission limits, leaderboards.",
        # The interactive docs pages load their scripts from a CDN; the server stays offline-clean
        # and serves the schema only (/openapi.json).
        docs_url=None,
        redoc_url=None,
    )
    app.state.ctx = ServerContext(
        db=db, settings=settings, metrics=metrics, scorer_version=scorer_version(metrics, settings.tokenizer)
    )
    app.add_middleware(
        BodyLimitMiddleware,
        limit=settings.max_upload_bytes + MULTIPART_OVERHEAD_BYTES,
        upload_limit=settings.max_upload_bytes,
    )
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(HeadMiddleware)
    app.add_middleware(AccessLogMiddleware, settings=settings)
    install_error_handler(app)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    for router in ROUTERS:
        app.include_router(router)
    return app


def uvicorn_config(app: FastAPI, host: str, port: int, **options: Any) -> Any:
    """The uvicorn configuration ``capeval serve`` runs ``app`` with.

    uvicorn's own proxy-header handling is off (by default it rewrites the client address from
    ``X-Forwarded-For`` on connections from 127.0.0.1, and ``FORWARDED_ALLOW_IPS`` widens that):
    the application decides the client address itself (:mod:`capeval.server.api.proxy`), believing
    forwarding headers only from the proxies the host configured. ``options`` are passed on.
    """
    import uvicorn

    settings: dict[str, Any] = {"log_level": "warning", "access_log": False, "server_header": False}
    settings.update(options)
    return uvicorn.Config(app, host=host, port=port, proxy_headers=False, forwarded_allow_ips="", **settings)


def configure_access_log(target: str) -> logging.Logger:
    """Send the ``capeval.access`` lines to ``target``: ``"-"`` standard output, a file path (appended;
    reopened when rotated away, as by logrotate), or ``""``/``"off"`` nowhere. Calling it again
    replaces the earlier destination."""
    import sys
    from logging.handlers import WatchedFileHandler

    logger = logging.getLogger("capeval.access")
    for old in [h for h in logger.handlers if getattr(h, "capeval_access", False)]:
        logger.removeHandler(old)
        old.close()
    logger.propagate = False
    if target in ("", "off"):
        logger.setLevel(logging.CRITICAL)
        return logger
    handler: logging.Handler
    if target == "-":
        handler = logging.StreamHandler(sys.stdout)
    else:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        handler = WatchedFileHandler(target, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    setattr(handler, "capeval_access", True)  # noqa: B010 - marks the handlers this function owns
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger
