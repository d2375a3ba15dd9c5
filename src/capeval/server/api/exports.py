"""``/api/v1``: the hosts' exports (a phase as a zip, the roster)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from capeval.server.api.deps import Db, HostUser
from capeval.server.models import utcnow
from capeval.server.services.exports import roster_csv, write_phase_export

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["host"])
#: Bytes per chunk of a streamed export.
CHUNK = 1 << 16


def _stream(handle: tempfile.SpooledTemporaryFile[bytes]) -> Iterator[bytes]:
    try:
        handle.seek(0)
        while chunk := handle.read(CHUNK):
            yield chunk
    finally:
        handle.close()


@router.get("/challenges/{slug}/phases/{phase}/export.zip", response_class=Response)
async def export_phase(slug: str, phase: str, host: HostUser, db: Db) -> Response:
    """Host: every submission of a phase as a zip: ``manifest.json``, each uploaded file, ``scores.csv``,
    per-image scores per split, ``roster.csv`` (ISO 8601 times with seconds and zone). Audited."""
    handle: tempfile.SpooledTemporaryFile[bytes] = tempfile.SpooledTemporaryFile(max_size=32 << 20)
    try:
        await run_in_threadpool(write_phase_export, db, host, slug, phase, handle)
    except BaseException:
        handle.close()
        raise
    stamp = utcnow().strftime("%Y%m%dT%H%M%SZ")
    name = f"{slug}-{phase}-{stamp}.zip"
    return StreamingResponse(
        _stream(handle),
        media_type="application/zip",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


@router.get("/host/roster.csv", response_class=PlainTextResponse)
def roster(host: HostUser, db: Db) -> Response:
    """Host: every account as CSV (user name, team, host, status, created, last login, submissions)."""
    return PlainTextResponse(
        roster_csv(db, host),
        media_type="text/csv",
        headers={"content-disposition": 'attachment; filename="roster.csv"'},
    )
