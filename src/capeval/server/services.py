"""Server operations on the database: accounts, challenges, submissions with limits, jobs.

Everything that reads and then writes runs in one :meth:`Database.write` transaction:
on SQLite that is ``BEGIN IMMEDIATE`` (one writer at a time, others wait on the busy
timeout); on PostgreSQL the team row is locked with ``SELECT ... FOR UPDATE`` before
the quota is counted, and jobs are claimed with ``FOR UPDATE SKIP LOCKED``. So parallel
uploads can never exceed a limit, and two workers never hold the same job.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from capeval.server.config import ChallengeConfig, parse_utc
from capeval.server.db import Database
from capeval.server.models import (
    FREE_STATES,
    IN_FLIGHT_STATES,
    ApiToken,
    AuditLog,
    Challenge,
    Job,
    Phase,
    PhaseSplit,
    Result,
    Split,
    Submission,
    Team,
    User,
    utcnow,
)
from capeval.server.security import hash_password, hash_token, new_token, verify_password

__all__ = [
    "ClaimedJob",
    "LimitError",
    "ServiceError",
    "audit",
    "authenticate",
    "cancel_submission",
    "claim_job",
    "complete_job",
    "create_submission",
    "create_user",
    "ensure_host",
    "fail_job",
    "heartbeat",
    "install_challenge",
    "issue_token",
    "load_references",
    "phase_image_ids",
    "quota_usage",
    "reap_jobs",
    "rerun_submission",
    "set_baseline",
    "user_for_token",
]

log = logging.getLogger("capeval")

#: Seconds a failed job waits before its next attempt (multiplied by the attempt number).
RETRY_BACKOFF_SECONDS = 2.0
USERNAME_MAX = 80
PASSWORD_MIN = 8


class ServiceError(ValueError):
    """A refused operation with an HTTP status and a precise message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class LimitError(ServiceError):
    """A submission refused by a per-team limit (HTTP 429)."""


def audit(session: Session, actor: User | None, action: str, target: str = "", detail: str = "") -> None:
    """Append an audit-log row in the caller's transaction."""
    session.add(AuditLog(actor_id=actor.id if actor else None, action=action, target=target, detail=detail))


# --- accounts --------------------------------------------------------------------------


def create_user(
    db: Database,
    username: str,
    password: str,
    *,
    team_name: str | None = None,
    team_code: str | None = None,
    is_host: bool = False,
) -> User:
    """Register a user and put them in a team: a new one, or an existing one given its join code.

    Hosts join the hosts' team without a code.

    Raises:
        ServiceError: 400 for a bad name or short password, 409 when the name is taken,
            403 for an existing team without its join code.
    """
    username = username.strip()
    if not username or len(username) > USERNAME_MAX or not all(c.isalnum() or c in "-_." for c in username):
        raise ServiceError(400, "bad_username", "username must be 1-80 letters, digits, '-', '_' or '.'")
    if len(password) < PASSWORD_MIN:
        raise ServiceError(400, "weak_password", f"password must have at least {PASSWORD_MIN} characters")
    team_name = (team_name or username).strip()[:USERNAME_MAX]
    password_hash = hash_password(password)
    with db.write() as session:
        if session.scalar(select(User.id).where(User.username == username)) is not None:
            raise ServiceError(409, "username_taken", f"username {username!r} is already registered")
        team = session.scalar(select(Team).where(Team.name == team_name))
        if team is None:
            team = Team(name=team_name)
            session.add(team)
            session.flush()
        elif not is_host and not hmac.compare_digest((team_code or "").strip(), team.join_code):
            raise ServiceError(
                403,
                "team_code",
                f"team {team_name!r} exists; joining it needs its join code (members find it at /api/v1/me)",
            )
        user = User(username=username, password_hash=password_hash, is_host=is_host, team_id=team.id)
        session.add(user)
        session.flush()
        if is_host:
            audit(session, None, "create_host", f"user:{username}")
        return user


def ensure_host(db: Database, username: str, password: str | None) -> bool:
    """Make ``username`` a host, creating the account (team "challenge hosts") when needed.

    Returns:
        ``True`` when the account was created (``password`` is then required).
    """
    with db.write() as session:
        user = session.scalar(select(User).where(User.username == username))
        if user is not None:
            if not user.is_host:
                user.is_host = True
                audit(session, None, "grant_host", f"user:{username}")
            return False
    if not password:
        raise ServiceError(400, "no_password", f"a password is needed to create host account {username!r}")
    create_user(db, username, password, team_name="challenge hosts", is_host=True)
    return True


def authenticate(db: Database, username: str, password: str) -> User | None:
    """The user with these credentials, or ``None``."""
    with db.read() as session:
        user = session.scalar(select(User).where(User.username == username.strip()))
        if user is None or not verify_password(password, user.password_hash):
            return None
        return user


def issue_token(db: Database, user_id: int, *, kind: str, lifetime: timedelta, label: str = "") -> str:
    """Create a token; returns the clear text (only its hash is stored)."""
    token = new_token()
    with db.read() as session:
        session.add(
            ApiToken(
                user_id=user_id,
                token_hash=hash_token(token),
                kind=kind,
                label=label[:120],
                expires_at=utcnow() + lifetime,
            )
        )
    return token


def user_for_token(db: Database, token: str, *, kind: str | None = None) -> User | None:
    """The owner of a valid, unexpired, unrevoked token, or ``None``."""
    if not token:
        return None
    with db.read() as session:
        row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(token)))
        if row is None or row.revoked or row.expires_at <= utcnow() or (kind and row.kind != kind):
            return None
        return session.get(User, row.user_id)


def revoke_token(db: Database, token: str) -> None:
    """Revoke a token (logout)."""
    with db.read() as session:
        row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(token)))
        if row is not None:
            row.revoked = True


# --- challenges ------------------------------------------------------------------------


def load_references(path: str | Path, image_ids: Sequence[int] | None = None) -> dict[int, list[str]]:
    """Read a reference file: COCO annotations (``images`` + ``annotations``) or ``{image_id: [captions]}``.

    Raises:
        ValueError: naming the file and the problem.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read references: {exc}") from None
    refs: dict[int, list[str]] = {}
    if isinstance(data, dict) and "annotations" in data:
        for img in data.get("images", []):
            refs.setdefault(int(img["id"]), [])
        for i, ann in enumerate(data["annotations"]):
            if not isinstance(ann, dict) or not isinstance(ann.get("caption"), str) or "image_id" not in ann:
                raise ValueError(f"{path}: annotation {i} needs an integer image_id and a string caption")
            refs.setdefault(int(ann["image_id"]), []).append(ann["caption"])
    elif isinstance(data, dict):
        for key, captions in data.items():
            if not isinstance(captions, list) or not all(isinstance(c, str) for c in captions):
                raise ValueError(f"{path}: image {key!r}: references must be a list of strings")
            refs[int(key)] = list(captions)
    else:
        raise ValueError(f"{path}: expected COCO annotations or an {{image_id: [captions]}} object")
    if image_ids is not None:
        missing = [i for i in image_ids if i not in refs]
        if missing:
            raise ValueError(f"{path}: split image ids not in the file, e.g. {missing[:5]}")
        refs = {i: refs[i] for i in image_ids}
    empty = [i for i, r in refs.items() if not r]
    if empty:
        raise ValueError(f"{path}: images without reference captions, e.g. {empty[:5]}")
    return refs


def _nrefs(refs: Mapping[int, list[str]]) -> str:
    counts = [len(r) for r in refs.values()]
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def install_challenge(
    db: Database,
    config: ChallengeConfig,
    references: Mapping[str, Mapping[int, list[str]]] | None = None,
) -> int:
    """Create a challenge from its config unless one with the same slug exists; returns its id.

    Args:
        db: The database.
        config: The challenge description.
        references: Optional ``{split name: {image_id: [captions]}}`` overriding the files.
    """
    with db.write() as session:
        existing = session.scalar(select(Challenge).where(Challenge.slug == config.slug))
        if existing is not None:
            return existing.id
        challenge = Challenge(slug=config.slug, title=config.title, description=config.description)
        session.add(challenge)
        session.flush()
        split_ids: dict[str, int] = {}
        for sc in config.splits:
            refs = (references or {}).get(sc.name) or load_references(sc.references, sc.image_ids)
            payload = json.dumps({str(k): v for k, v in sorted(refs.items())}, ensure_ascii=False)
            split = Split(
                challenge_id=challenge.id,
                name=sc.name,
                visibility=sc.visibility,
                n_images=len(refs),
                nrefs=_nrefs(refs),
                references_sha256=hashlib.sha256(payload.encode("utf-8")).hexdigest(),
                references_json=payload,
            )
            session.add(split)
            session.flush()
            split_ids[sc.name] = split.id
        for pc in config.phases:
            phase = Phase(
                challenge_id=challenge.id,
                name=pc.name,
                starts_at=parse_utc(pc.starts_at) if pc.starts_at else None,
                ends_at=parse_utc(pc.ends_at) if pc.ends_at else None,
                max_per_day=pc.max_per_day,
                max_total=pc.max_total,
                max_in_flight=pc.max_in_flight,
                scores_visible=pc.scores_visible,
                allow_dry_run=pc.allow_dry_run,
            )
            session.add(phase)
            session.flush()
            for position, name in enumerate(pc.splits):
                session.add(PhaseSplit(phase_id=phase.id, split_id=split_ids[name], position=position))
        audit(session, None, "install_challenge", f"challenge:{config.slug}")
        return challenge.id


def phase_image_ids(phase: Phase) -> set[int]:
    """Image ids a results file for this phase must cover (union of its splits)."""
    ids: set[int] = set()
    for split in phase.splits:
        ids.update(int(k) for k in json.loads(split.references_json))
    return ids


# --- submissions and limits ------------------------------------------------------------


def _utc_day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def quota_usage(session: Session, team_id: int, phase: Phase, now: datetime) -> dict[str, Any]:
    """Counts and limits for a team in a phase: ``{"today", "total", "in_flight"}`` with their limits."""
    mine = select(func.count(Submission.id)).where(Submission.team_id == team_id, Submission.phase_id == phase.id)
    counted = mine.where(Submission.status.not_in(FREE_STATES))
    day_start = _utc_day_start(now)
    today = session.scalar(counted.where(Submission.created_at >= day_start)) or 0
    total = session.scalar(counted) or 0
    in_flight = session.scalar(mine.where(Submission.status.in_(IN_FLIGHT_STATES))) or 0
    return {
        "today": today,
        "max_per_day": phase.max_per_day,
        "total": total,
        "max_total": phase.max_total,
        "in_flight": in_flight,
        "max_in_flight": phase.max_in_flight,
        "day_resets_at": (day_start + timedelta(days=1)).isoformat(),
    }


def check_phase_open(phase: Phase, now: datetime) -> None:
    """Raise 403 unless the phase accepts submissions now."""
    if phase.starts_at is not None and now < phase.starts_at:
        raise ServiceError(403, "phase_not_open", f"phase {phase.name!r} opens at {phase.starts_at.isoformat()}")
    if phase.ends_at is not None and now >= phase.ends_at:
        raise ServiceError(403, "phase_closed", f"phase {phase.name!r} closed at {phase.ends_at.isoformat()}")


def create_submission(
    db: Database,
    *,
    user_id: int,
    phase_id: int,
    captions: Mapping[int, str],
    file_sha256: str,
    filename: str,
    n_bytes: int,
    scorer_version: str,
    max_attempts: int,
    method_name: str = "",
    method_description: str = "",
    is_public: bool = True,
    is_baseline: bool = False,
    enforce_limits: bool = True,
) -> int:
    """Insert a validated submission and its scoring job, enforcing the team's limits atomically.

    Returns:
        The submission id.

    Raises:
        LimitError: 429 naming the limit reached.
        ServiceError: 403 when the phase is closed or the user has no team.
    """
    payload = json.dumps({str(k): v for k, v in captions.items()}, ensure_ascii=False)
    with db.write() as session:
        user = session.get(User, user_id)
        if user is None or user.team_id is None:
            raise ServiceError(403, "no_team", "the account belongs to no team")
        phase = session.get(Phase, phase_id)
        if phase is None:
            raise ServiceError(404, "no_phase", f"phase {phase_id} does not exist")
        now = utcnow()
        if enforce_limits:
            check_phase_open(phase, now)
            # Serialise submissions of one team (PostgreSQL); SQLite already holds the write lock.
            session.execute(select(Team.id).where(Team.id == user.team_id).with_for_update())
            usage = quota_usage(session, user.team_id, phase, now)
            if phase.max_in_flight is not None and usage["in_flight"] >= phase.max_in_flight:
                raise LimitError(
                    429,
                    "limit_in_flight",
                    f"your team already has {usage['in_flight']} submission(s) queued or running in phase "
                    f"{phase.name!r} (limit {phase.max_in_flight}); wait until one finishes",
                )
            if phase.max_per_day is not None and usage["today"] >= phase.max_per_day:
                raise LimitError(
                    429,
                    "limit_per_day",
                    f"your team has used {usage['today']} of {phase.max_per_day} submissions in phase "
                    f"{phase.name!r} today (UTC); the count resets at {usage['day_resets_at']}",
                )
            if phase.max_total is not None and usage["total"] >= phase.max_total:
                raise LimitError(
                    429,
                    "limit_total",
                    f"your team has used all {phase.max_total} submissions of phase {phase.name!r}",
                )
        submission = Submission(
            phase_id=phase.id,
            team_id=user.team_id,
            user_id=user.id,
            file_sha256=file_sha256,
            filename=filename[:255],
            n_bytes=n_bytes,
            candidates_json=payload,
            method_name=method_name[:200],
            method_description=method_description,
            is_public=is_public,
            is_baseline=is_baseline,
            status="queued",
        )
        session.add(submission)
        session.flush()
        session.add(Job(submission_id=submission.id, scorer_version=scorer_version, max_attempts=max_attempts))
        return submission.id


# --- host actions ----------------------------------------------------------------------


def _host_submission(session: Session, actor: User, submission_id: int) -> Submission:
    if not actor.is_host:
        raise ServiceError(403, "host_only", "only challenge hosts may do this")
    submission = session.get(Submission, submission_id)
    if submission is None:
        raise ServiceError(404, "no_submission", f"submission {submission_id} does not exist")
    return submission


def cancel_submission(db: Database, actor: User, submission_id: int) -> None:
    """Host action: cancel a submission and its pending jobs (it stops counting against the quota)."""
    with db.write() as session:
        submission = _host_submission(session, actor, submission_id)
        submission.status = "cancelled"
        submission.finished_at = utcnow()
        for job in session.scalars(select(Job).where(Job.submission_id == submission_id)):
            if job.status in IN_FLIGHT_STATES:
                job.status = "cancelled"
                job.finished_at = utcnow()
        audit(session, actor, "cancel", f"submission:{submission_id}")


def rerun_submission(db: Database, actor: User, submission_id: int, scorer_version: str, max_attempts: int) -> int:
    """Host action: queue a new scoring job (results already stored for this scorer version are kept)."""
    with db.write() as session:
        submission = _host_submission(session, actor, submission_id)
        for job in session.scalars(select(Job).where(Job.submission_id == submission_id)):
            if job.status in IN_FLIGHT_STATES:
                raise ServiceError(409, "already_queued", f"submission {submission_id} is already queued or running")
        job = Job(submission_id=submission_id, scorer_version=scorer_version, max_attempts=max_attempts)
        session.add(job)
        submission.status = "queued"
        submission.error = ""
        session.flush()
        audit(session, actor, "rerun", f"submission:{submission_id}", f"job:{job.id} scorer:{scorer_version}")
        return job.id


def set_baseline(db: Database, actor: User, submission_id: int, flag: bool) -> None:
    """Host action: mark or unmark a submission as the baseline of its phase."""
    with db.write() as session:
        submission = _host_submission(session, actor, submission_id)
        submission.is_baseline = flag
        audit(session, actor, "set_baseline" if flag else "unset_baseline", f"submission:{submission_id}")


# --- jobs ------------------------------------------------------------------------------


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
        runnable = select(Job.id).where(Job.status == "queued", Job.available_at <= now).limit(1)
        if session.scalar(runnable) is None:
            return None
    with db.write() as session:
        query = (
            select(Job)
            .where(Job.status == "queued", Job.available_at <= now)
            .order_by(Job.available_at, Job.id)
            .limit(1)
        )
        if not db.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        job = session.scalars(query).first()
        if job is None:
            return None
        job.status = "running"
        job.attempts += 1
        job.worker_id = worker_id
        job.heartbeat_at = now
        job.lease_expires_at = now + timedelta(seconds=lease_seconds)
        submission = session.get(Submission, job.submission_id)
        if submission is not None and submission.status != "cancelled":
            submission.status = "running"
        return ClaimedJob(job.id, job.submission_id, job.scorer_version, job.attempts)


def heartbeat(db: Database, job_id: int, worker_id: str, lease_seconds: float) -> bool:
    """Renew a lease; ``False`` when the job is no longer this worker's (cancelled or reaped)."""
    now = utcnow()
    with db.write() as session:
        job = session.get(Job, job_id)
        if job is None or job.status != "running" or job.worker_id != worker_id:
            return False
        job.heartbeat_at = now
        job.lease_expires_at = now + timedelta(seconds=lease_seconds)
        return True


def complete_job(db: Database, job: ClaimedJob, worker_id: str, results: Sequence[Mapping[str, Any]]) -> bool:
    """Store results and finish a job. A result already stored for (submission, split, scorer version)
    is kept, so a repeated run never adds a second row. Returns ``False`` if the job was lost."""
    with db.write() as session:
        query = select(Job).where(Job.id == job.job_id)
        if not db.is_sqlite:
            query = query.with_for_update()
        row = session.scalars(query).first()
        if row is None or row.status != "running" or row.worker_id != worker_id:
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
        row.status = "finished"
        row.finished_at = now
        submission = session.get(Submission, job.submission_id)
        if submission is not None and submission.status != "cancelled":
            submission.status = "finished"
            submission.finished_at = now
        return True


def fail_job(db: Database, job: ClaimedJob, worker_id: str, error: str, public_error: str) -> None:
    """Record a failed attempt: requeue with back-off, or fail the submission after the last attempt."""
    with db.write() as session:
        row = session.get(Job, job.job_id)
        if row is None or row.status != "running" or row.worker_id != worker_id:
            return
        row.last_error = error[-4000:]
        _retry_or_fail(session, row, public_error)


def _retry_or_fail(session: Session, row: Job, public_error: str) -> None:
    now = utcnow()
    submission = session.get(Submission, row.submission_id)
    if row.attempts < row.max_attempts:
        row.status = "queued"
        row.worker_id = ""
        row.lease_expires_at = None
        row.available_at = now + timedelta(seconds=RETRY_BACKOFF_SECONDS * row.attempts)
        if submission is not None and submission.status != "cancelled":
            submission.status = "queued"
    else:
        row.status = "failed"
        row.finished_at = now
        if submission is not None and submission.status != "cancelled":
            submission.status = "failed"
            submission.error = public_error
            submission.finished_at = now


def reap_jobs(db: Database) -> int:
    """Requeue (or fail, after the last attempt) running jobs whose lease ran out; returns how many."""
    now = utcnow()
    expired = select(Job.id).where(Job.status == "running", Job.lease_expires_at < now).limit(1)
    with db.read() as session:
        if session.scalar(expired) is None:
            return 0
    with db.write() as session:
        query = select(Job).where(Job.status == "running", Job.lease_expires_at < now)
        if not db.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        rows = list(session.scalars(query))
        for row in rows:
            log.warning("job %s: worker %s stopped heartbeating; requeueing", row.id, row.worker_id)
            row.last_error = f"worker {row.worker_id} lost its lease at attempt {row.attempts}"
            _retry_or_fail(session, row, "scoring failed repeatedly; the hosts have been told")
            audit(session, None, "reap", f"job:{row.id}", row.last_error)
        return len(rows)
