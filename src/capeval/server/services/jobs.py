"""Scoring jobs: claim with a lease, heartbeat, complete, fail with back-off, reap lost leases;
and the significance comparisons the workers compute between jobs.

Jobs are claimed with ``FOR UPDATE SKIP LOCKED`` on PostgreSQL and under SQLite's single
writer, so two workers never hold the same job. A result is keyed by (submission, split,
scorer version), so a job that runs twice still leaves exactly one row per split.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from capeval.server.db import Database
from capeval.server.domain.states import JobState, SubmissionState
from capeval.server.models import Job, Result, Submission, utcnow
from capeval.server.services.audit import audit
from capeval.server.services.significance import requests_for_result

__all__ = ["ClaimedJob", "claim_job", "complete_job", "fail_job", "failed_jobs", "heartbeat", "reap_jobs"]

log = logging.getLogger("capeval")

#: Seconds a failed job waits before its next attempt (multiplied by the attempt number).
RETRY_BACKOFF_SECONDS = 2.0
#: Failed jobs listed for hosts.
FAILED_LIST_LIMIT = 200


@dataclass(frozen=True)
class ClaimedJob:
    """What a worker needs after claiming a job."""

    job_id: int
    submission_id: int
    scorer_version: str
    attempt: int


def claim_job(db: Database, worker_id: str, lease_seconds: float) -> ClaimedJob | None:
    """Take the oldest runnable job, mark it running with a lease; ``None`` when the queue is empty."""
    now = utcnow()
    # A plain read first, so idle workers do not take the write lock on every poll.
    with db.read() as session:
        runnable = select(Job.id).where(Job.status == JobState.QUEUED, Job.available_at <= now).limit(1)
        if session.scalar(runnable) is None:
            return None
    with db.write() as session:
        query = (
            select(Job)
            .where(Job.status == JobState.QUEUED, Job.available_at <= now)
            .order_by(Job.available_at, Job.id)
            .limit(1)
        )
        if not db.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        job = session.scalars(query).first()
        if job is None:
            return None
        job.status = JobState.RUNNING
        job.attempts += 1
        job.worker_id = worker_id
        job.heartbeat_at = now
        job.lease_expires_at = now + timedelta(seconds=lease_seconds)
        submission = session.get(Submission, job.submission_id)
        if submission is not None and submission.status != SubmissionState.CANCELLED:
            submission.status = SubmissionState.RUNNING
        return ClaimedJob(job.id, job.submission_id, job.scorer_version, job.attempts)


def heartbeat(db: Database, job_id: int, worker_id: str, lease_seconds: float) -> bool:
    """Renew a lease; ``False`` when the job is no longer this worker's (cancelled or reaped)."""
    now = utcnow()
    with db.write() as session:
        job = session.get(Job, job_id)
        if job is None or job.status != JobState.RUNNING or job.worker_id != worker_id:
            return False
        job.heartbeat_at = now
        job.lease_expires_at = now + timedelta(seconds=lease_seconds)
        return True


def complete_job(
    db: Database,
    job: ClaimedJob,
    worker_id: str,
    results: Sequence[Mapping[str, Any]],
    *,
    significance: tuple[int, int] | None = None,
) -> bool:
    """Store results and finish a job. A result already stored for (submission, split, scorer version)
    is kept, so a repeated run never adds a second row. Returns ``False`` if the job was lost.

    ``significance``: ``(n_resamples, seed)``; the comparisons the new results need are requested.
    """
    with db.write() as session:
        query = select(Job).where(Job.id == job.job_id)
        if not db.is_sqlite:
            query = query.with_for_update()
        row = session.scalars(query).first()
        if row is None or row.status != JobState.RUNNING or row.worker_id != worker_id:
            log.warning("job %s: lease lost before completion; discarding this run", job.job_id)
            return False
        for result in results:
            exists = session.scalar(
                select(Result.id).where(
                    Result.submission_id == job.submission_id,
                    Result.split_id == result["split_id"],
                    Result.scorer_version == job.scorer_version,
                )
            )
            if exists is None:
                session.add(Result(submission_id=job.submission_id, scorer_version=job.scorer_version, **result))
        now = utcnow()
        added: list[Result] = [r for r in session.new if isinstance(r, Result)]
        row.status = JobState.FINISHED
        row.finished_at = now
        submission = session.get(Submission, job.submission_id)
        if submission is not None and submission.status != SubmissionState.CANCELLED:
            submission.status = SubmissionState.FINISHED
            submission.finished_at = now
        if significance is not None and added:
            session.flush()
            for new in added:
                requests_for_result(session, new, *significance)
        return True


def fail_job(db: Database, job: ClaimedJob, worker_id: str, error: str, public_error: str) -> None:
    """Record a failed attempt: requeue with back-off, or fail the submission after the last attempt."""
    with db.write() as session:
        row = session.get(Job, job.job_id)
        if row is None or row.status != JobState.RUNNING or row.worker_id != worker_id:
            return
        row.last_error = error[-4000:]
        _retry_or_fail(session, row, public_error)


def _retry_or_fail(session: Session, row: Job, public_error: str) -> None:
    now = utcnow()
    submission = session.get(Submission, row.submission_id)
    if row.attempts < row.max_attempts:
        row.status = JobState.QUEUED
        row.worker_id = ""
        row.lease_expires_at = None
        row.available_at = now + timedelta(seconds=RETRY_BACKOFF_SECONDS * row.attempts)
        if submission is not None and submission.status != SubmissionState.CANCELLED:
            submission.status = SubmissionState.QUEUED
    else:
        row.status = JobState.FAILED
        row.finished_at = now
        if submission is not None and submission.status != SubmissionState.CANCELLED:
            submission.status = SubmissionState.FAILED
            submission.error = public_error
            submission.finished_at = now


def reap_jobs(db: Database) -> int:
    """Requeue (or fail, after the last attempt) running jobs whose lease ran out; returns how many."""
    now = utcnow()
    expired = select(Job.id).where(Job.status == JobState.RUNNING, Job.lease_expires_at < now).limit(1)
    with db.read() as session:
        if session.scalar(expired) is None:
            return 0
    with db.write() as session:
        query = select(Job).where(Job.status == JobState.RUNNING, Job.lease_expires_at < now)
        if not db.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        rows = list(session.scalars(query))
        for row in rows:
            worker = row.worker_id
            row.last_error = f"worker {worker} lost its lease at attempt {row.attempts}"
            _retry_or_fail(session, row, "scoring failed repeatedly; the hosts have been told")
            if row.status == JobState.QUEUED:
                outcome = f"requeued (attempt {row.attempts} of {row.max_attempts} lost)"
            else:
                outcome = f"failed after {row.attempts} attempts"
            log.warning("job %s: worker %s stopped heartbeating; %s", row.id, worker, outcome)
            audit(session, None, "reap", f"job:{row.id}", f"{row.last_error}; {outcome}")
        return len(rows)


def failed_jobs(db: Database, limit: int = FAILED_LIST_LIMIT) -> list[dict[str, Any]]:
    """Host view: the newest jobs that failed, or are waiting to retry after an error, with the error."""
    with db.read() as session:
        rows = session.scalars(select(Job).where(Job.last_error != "").order_by(Job.id.desc()).limit(limit))
        return [
            {
                "job_id": job.id,
                "submission_id": job.submission_id,
                "status": str(job.status),
                "attempts": job.attempts,
                "max_attempts": job.max_attempts,
                "worker_id": job.worker_id,
                "last_error": job.last_error,
                "finished_at": job.finished_at.isoformat() if job.finished_at else None,
            }
            for job in rows
        ]
