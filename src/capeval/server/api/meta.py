"""``/health``."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import func, select

from capeval._version import __version__
from capeval.server.api.deps import (
    Ctx,
)
from capeval.server.api.schemas import Health
from capeval.server.models import Job

__all__ = ["router"]

router = APIRouter(tags=["meta"])


@router.get("/health", response_model=Health)
def health(ctx: Ctx) -> Health:
    """Liveness and queue depth."""
    with ctx.db.read() as session:
        counts = dict(session.execute(select(Job.status, func.count(Job.id)).group_by(Job.status)).all())
    return Health(
        status="ok",
        version=__version__,
        database=ctx.db.engine.dialect.name,
        scorer_version=ctx.scorer_version,
        jobs={str(k): int(v) for k, v in counts.items()},
    )
