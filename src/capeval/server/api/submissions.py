"""``/api/v1``: uploads and the team's submissions."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from capeval.server.api.deps import (
    Ctx,
    CurrentUser,
    Db,
    SubmissionId,
    cookie_csrf,
    json_body,
    json_body_schema,
)
from capeval.server.api.schemas import AcceptedUpload, DryRunResult, EntryEdit, EntryResult, WithdrawRequest
from capeval.server.api.uploads import read_upload
from capeval.server.domain.errors import InvalidInput
from capeval.server.services.submissions import (
    accept_upload,
    drilldown,
    edit_submission,
    get_submission,
    list_submissions,
    set_representative,
    submission_view,
    uploaded_file,
    withdraw_submission,
)

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["submissions"])
WithdrawBody = Annotated[WithdrawRequest, Depends(json_body(WithdrawRequest))]
EditBody = Annotated[EntryEdit, Depends(json_body(EntryEdit))]

UPLOAD_BODY = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
            "application/zip": {"schema": {"type": "string", "format": "binary"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "method_name": {"type": "string"},
                        "method_description": {"type": "string"},
                        "public": {"type": "boolean"},
                        "dry_run": {"type": "boolean"},
                    },
                    "required": ["file"],
                }
            },
        },
        "required": True,
    }
}


@router.post(
    "/challenges/{slug}/phases/{phase}/submissions",
    status_code=202,
    responses={
        200: {"model": DryRunResult, "description": "dry run: the file is valid"},
        202: {"model": AcceptedUpload},
    },
    openapi_extra=UPLOAD_BODY,
    dependencies=[Depends(cookie_csrf)],
)
async def submit(slug: str, phase: str, request: Request, user: CurrentUser, ctx: Ctx) -> Response:
    """Upload a results json or zip (raw body or multipart ``file``). ``?dry_run=true`` only validates,
    with exactly the checks of a real upload."""
    upload = await read_upload(request)
    out = await run_in_threadpool(
        accept_upload,
        ctx,
        user,
        slug,
        phase,
        upload.data,
        content_type=upload.content_type,
        filename=upload.filename,
        meta=upload.meta,
        dry_run=upload.dry_run,
    )
    return JSONResponse(out, status_code=200 if upload.dry_run else 202)


@router.get("/submissions")
def submissions(user: CurrentUser, db: Db) -> list[dict[str, Any]]:
    """The team's submissions (hosts: all)."""
    return list_submissions(db, user)


@router.get("/submissions/{submission_id}")
def submission(submission_id: SubmissionId, user: CurrentUser, db: Db) -> dict[str, Any]:
    """Status and (when visible) scores of one submission; hosts also see each job and its error."""
    with db.read() as session:
        row, acc = get_submission(session, submission_id, user)
        return submission_view(session, row, acc)


@router.patch(
    "/submissions/{submission_id}",
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(EntryEdit),
)
async def edit(submission_id: SubmissionId, body: EditBody, user: CurrentUser, db: Db) -> dict[str, Any]:
    """Edit your team's entry: ``method_name``, ``method_description``, ``public`` (only the fields
    sent change; ``null`` is refused). Audited; returns what changed and the entry."""
    fields = body.model_dump(exclude_unset=True)
    nulls = sorted(k for k, v in fields.items() if v is None)
    if nulls:
        raise InvalidInput("invalid_request", f"{', '.join(nulls)}: null is not a value here; leave the field out")
    changed = await run_in_threadpool(edit_submission, db, user, submission_id, fields)
    with db.read() as session:
        row, acc = get_submission(session, submission_id, user)
        return {"changed": changed, "submission": submission_view(session, row, acc)}


@router.get("/submissions/{submission_id}/file", response_class=Response)
def download(submission_id: SubmissionId, user: CurrentUser, db: Db) -> Response:
    """The uploaded file, byte for byte (its team and hosts; hosts' downloads are audited). The
    ``x-content-sha256`` header repeats the hash recorded at upload."""
    data, filename, digest = uploaded_file(db, user, submission_id)
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", filename)[:120] or f"submission-{submission_id}"
    return Response(
        data,
        media_type="application/octet-stream",
        headers={"content-disposition": f'attachment; filename="{safe}"', "x-content-sha256": digest},
    )


@router.get("/submissions/{submission_id}/images/{split}")
def images(split: str, submission_id: SubmissionId, user: CurrentUser, db: Db) -> dict[str, Any]:
    """Per-image scores, captions and references (public splits, own team or host, scores visible)."""
    return drilldown(db, user, submission_id, split)


def _entry(db: Db, user: CurrentUser, submission_id: int) -> EntryResult:
    with db.read() as session:
        row, _ = get_submission(session, submission_id, user)
        return EntryResult(
            submission_id=row.id,
            status=str(row.status),
            representative=row.is_representative,
            withdrawn=row.withdrawn_at is not None,
        )


@router.post(
    "/submissions/{submission_id}/representative", response_model=EntryResult, dependencies=[Depends(cookie_csrf)]
)
async def representative(submission_id: SubmissionId, user: CurrentUser, db: Db, value: bool = True) -> EntryResult:
    """Choose (``?value=true``) or release the finished entry that represents your team on the
    leaderboard (one per team and phase; without a choice the team's best entry is shown)."""
    await run_in_threadpool(set_representative, db, user, submission_id, value)
    return _entry(db, user, submission_id)


@router.post(
    "/submissions/{submission_id}/withdraw",
    response_model=EntryResult,
    dependencies=[Depends(cookie_csrf)],
    openapi_extra=json_body_schema(WithdrawRequest),
)
async def withdraw(submission_id: SubmissionId, body: WithdrawBody, user: CurrentUser, db: Db) -> EntryResult:
    """Withdraw your team's entry from the leaderboard; body ``{"confirm": true}`` (cannot be undone).
    Finished entries still count against the quota."""
    await run_in_threadpool(withdraw_submission, db, user, submission_id, confirm=body.confirm)
    return _entry(db, user, submission_id)
