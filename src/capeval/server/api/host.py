"""``/api/v1``: host actions, the audit log and failed jobs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from capeval.server.api.deps import (
    Ctx,
    Db,
    HostUser,
    SubmissionId,
    cookie_csrf,
)
from capeval.server.api.schemas import AuditRow, BaselineResult, FailedJob, HostActionResult, RerunResult
from capeval.server.services.audit import audit_rows
from capeval.server.services.jobs import failed_jobs
from capeval.server.services.submissions import cancel_submission, rerun_submission, set_baseline

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["host"])


@router.post("/submissions/{submission_id}/rerun", response_model=RerunResult, dependencies=[Depends(cookie_csrf)])
async def rerun(submission_id: SubmissionId, host: HostUser, ctx: Ctx) -> RerunResult:
    """Host: queue the submission for scoring again."""
    job_id = await run_in_threadpool(
        rerun_submission, ctx.db, host, submission_id, ctx.scorer_version, ctx.settings.max_attempts
    )
    return RerunResult(submission_id=submission_id, job_id=job_id, status="queued")


@router.post(
    "/submissions/{submission_id}/cancel", response_model=HostActionResult, dependencies=[Depends(cookie_csrf)]
)
async def cancel(submission_id: SubmissionId, host: HostUser, db: Db) -> HostActionResult:
    """Host: cancel a submission (it no longer counts against the quota)."""
    await run_in_threadpool(cancel_submission, db, host, submission_id)
    return HostActionResult(submission_id=submission_id, status="cancelled")


@router.post(
    "/submissions/{submission_id}/baseline", response_model=BaselineResult, dependencies=[Depends(cookie_csrf)]
)
async def baseline(
    submission_id: SubmissionId,
    host: HostUser,
    db: Db,
    value: bool = True,
) -> BaselineResult:
    """Host: mark (``?value=true``) or unmark a baseline."""
    await run_in_threadpool(set_baseline, db, host, submission_id, value)
    return BaselineResult(submission_id=submission_id, baseline=value)


@router.get("/audit", response_model=list[AuditRow])
def audit(host: HostUser, db: Db) -> list[dict[str, Any]]:
    """Host: the audit log, newest first."""
    return audit_rows(db)


@router.get("/jobs/failed", response_model=list[FailedJob])
def jobs_failed(host: HostUser, db: Db) -> list[dict[str, Any]]:
    """Host: jobs that failed or are retrying after an error, newest first, with the worker's error."""
    return failed_jobs(db)
