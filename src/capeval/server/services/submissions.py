"""Submissions: the one intake pipeline (dry run and real upload alike), quotas, views, host actions.

Everything that reads and then writes runs in one :meth:`Database.write` transaction:
on SQLite that is ``BEGIN IMMEDIATE`` (one writer at a time, others wait on the busy
timeout); on PostgreSQL the team row is locked with ``SELECT ... FOR UPDATE`` before
the quota is counted. So parallel uploads can never exceed a limit.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from capeval.server.db import Database
from capeval.server.domain.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    LimitReached,
    NotFound,
    TooLarge,
    UnprocessableResults,
)
from capeval.server.domain.states import FREE_STATES, IN_FLIGHT_STATES, JobState, SubmissionState
from capeval.server.domain.text import character_problem, scrub
from capeval.server.domain.times import human_time
from capeval.server.domain.visibility import Access, access
from capeval.server.models import Job, Phase, Result, Submission, Team, UploadFile, User, utcnow
from capeval.server.services.audit import audit
from capeval.server.services.challenges import get_challenge, get_phase, ids_url, template_url
from capeval.server.services.context import ServerContext
from capeval.server.services.intake import parse_upload, validate_results

__all__ = [
    "SubmissionMeta",
    "accept_upload",
    "cancel_submission",
    "check_phase_open",
    "create_submission",
    "drilldown",
    "edit_submission",
    "get_submission",
    "list_submissions",
    "quota_usage",
    "rerun_submission",
    "set_baseline",
    "set_representative",
    "submission_view",
    "team_quota",
    "uploaded_file",
    "withdraw_submission",
]

METHOD_NAME_MAX = 200
METHOD_DESCRIPTION_MAX = 5000
FILENAME_MAX = 255
#: Histogram bins of the per-image drill-down.
HISTOGRAM_BINS = 10
#: Images listed as worst and best in the drill-down.
DRILLDOWN_EXTREMES = 10
#: Submissions listed per page of "my submissions" and the host panel.
LIST_LIMIT = 500


@dataclass(frozen=True)
class SubmissionMeta:
    """Participant-supplied description of a submission, validated."""

    method_name: str = ""
    method_description: str = ""
    public: bool = True

    @classmethod
    def build(cls, method_name: object, method_description: object, public: object) -> SubmissionMeta:
        """Validate raw values (strings from a form, a query or JSON).

        Raises:
            InvalidInput: a value of the wrong type, too long, or holding control characters.
        """
        name = _text("method_name", method_name, METHOD_NAME_MAX)
        description = _text("method_description", method_description, METHOD_DESCRIPTION_MAX, multiline=True)
        return cls(name.strip(), description, parse_flag("public", public, default=True))


def _text(field: str, value: object, limit: int, *, multiline: bool = False) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInput(f"bad_{field}", f"{field} must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise InvalidInput(f"bad_{field}", f"{field} has {len(value)} characters; at most {limit}")
    problem = character_problem(value, multiline=multiline)
    if problem:
        kind = "text (line breaks and tabs are fine)" if multiline else "one line of visible text"
        raise InvalidInput(f"bad_{field}", f"{field} {problem}; it must be {kind}")
    return value


def parse_flag(field: str, value: object, *, default: bool) -> bool:
    """A boolean from JSON, a query string or a form: ``true/false``, ``1/0``, ``on/off``, ``yes/no``."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= 5:
        lowered = value.strip().lower()
        if lowered in ("true", "1", "on", "yes"):
            return True
        if lowered in ("false", "0", "off", "no"):
            return False
    raise InvalidInput(f"bad_{field}", f"{field} must be true or false")


def _clean_filename(filename: str) -> str:
    """The client's file name as shown to people: every character typed text may not hold becomes ``?``."""
    return scrub(filename)[:FILENAME_MAX]


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


def team_quota(db: Database, user: User | None, slug: str) -> dict[str, dict[str, Any]]:
    """``{phase name: quota usage}`` of the user's team in a challenge (empty without a team)."""
    with db.read() as session:
        challenge = get_challenge(session, slug)
        if user is None or user.team_id is None:
            return {}
        now = utcnow()
        return {p.name: quota_usage(session, user.team_id, p, now) for p in challenge.phases}


def check_phase_open(phase: Phase, now: datetime) -> None:
    """Raise :class:`Forbidden` unless the phase accepts submissions now."""
    if phase.starts_at is not None and now < phase.starts_at:
        raise Forbidden("phase_not_open", f"phase {phase.name!r} opens at {human_time(phase.starts_at)}")
    if phase.ends_at is not None and now >= phase.ends_at:
        raise Forbidden("phase_closed", f"phase {phase.name!r} closed at {human_time(phase.ends_at)}")


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
    raw: bytes | None = None,
) -> int:
    """Insert a validated submission and its scoring job, enforcing the team's limits atomically.

    Returns:
        The submission id.

    Raises:
        LimitReached: naming the limit reached.
        Forbidden: the phase is closed or the user has no team.
    """
    payload = json.dumps({str(k): v for k, v in captions.items()}, ensure_ascii=False)
    with db.write() as session:
        user = session.get(User, user_id)
        if user is None or user.team_id is None:
            raise Forbidden("no_team", "the account belongs to no team")
        phase = session.get(Phase, phase_id)
        if phase is None:
            raise NotFound("no_phase", f"phase {phase_id} does not exist")
        now = utcnow()
        if enforce_limits:
            check_phase_open(phase, now)
            # Serialise submissions of one team (PostgreSQL); SQLite already holds the write lock.
            session.execute(select(Team.id).where(Team.id == user.team_id).with_for_update())
            _check_limits(phase, quota_usage(session, user.team_id, phase, now))
        submission = Submission(
            phase_id=phase.id,
            team_id=user.team_id,
            user_id=user.id,
            file_sha256=file_sha256,
            filename=_clean_filename(filename),
            n_bytes=n_bytes,
            candidates_json=payload,
            method_name=method_name[:METHOD_NAME_MAX],
            method_description=method_description,
            is_public=is_public,
            is_baseline=is_baseline,
            status=SubmissionState.QUEUED,
        )
        session.add(submission)
        session.flush()
        if raw is not None:
            session.add(UploadFile(submission_id=submission.id, data=raw))
        session.add(Job(submission_id=submission.id, scorer_version=scorer_version, max_attempts=max_attempts))
        return submission.id


def _check_limits(phase: Phase, usage: dict[str, Any]) -> None:
    if phase.max_in_flight is not None and usage["in_flight"] >= phase.max_in_flight:
        raise LimitReached(
            "limit_in_flight",
            f"your team already has {usage['in_flight']} submission(s) queued or running in phase "
            f"{phase.name!r} (limit {phase.max_in_flight}); wait until one finishes",
        )
    if phase.max_per_day is not None and usage["today"] >= phase.max_per_day:
        resets = human_time(datetime.fromisoformat(usage["day_resets_at"]))
        raise LimitReached(
            "limit_per_day",
            f"your team has used {usage['today']} of {phase.max_per_day} submissions in phase "
            f"{phase.name!r} today (UTC); the count resets at {resets}",
        )
    if phase.max_total is not None and usage["total"] >= phase.max_total:
        raise LimitReached(
            "limit_total", f"your team has used all {phase.max_total} submissions of phase {phase.name!r}"
        )


def accept_upload(
    ctx: ServerContext,
    user: User,
    slug: str,
    phase_name: str,
    data: bytes,
    *,
    content_type: str,
    filename: str,
    meta: SubmissionMeta,
    dry_run: bool,
) -> dict[str, Any]:
    """Validate an upload and (unless ``dry_run``) store it as a submission with its job.

    Dry runs and real uploads go through exactly the same checks; only the last step differs.
    """
    settings = ctx.settings
    with ctx.db.read() as session:
        phase = get_phase(session, slug, phase_name)
        check_phase_open(phase, utcnow())
        if dry_run and not phase.allow_dry_run:
            raise Forbidden("no_dry_run", f"phase {phase_name!r} does not offer dry runs")
        expected = ctx.phase_ids.get(phase)
        phase_id = phase.id
    if len(data) > settings.max_upload_bytes:
        raise TooLarge(
            "too_large", f"the file has {len(data):,} bytes; the upload limit is {settings.max_upload_bytes:,} bytes"
        )
    parsed = parse_upload(
        data,
        content_type=content_type,
        filename=filename,
        max_members=settings.max_zip_members,
        max_unzipped=settings.max_unzipped_bytes,
    )
    try:
        captions = validate_results(
            parsed.document, expected, max_caption_chars=settings.max_caption_chars, where=parsed.member or "results"
        )
    except UnprocessableResults as exc:
        if exc.code == "missing_images":
            raise UnprocessableResults(
                exc.code,
                f"{exc.message}; the {len(expected)} image ids this phase expects are listed at "
                f"{ids_url(slug, phase_name)} (a results template: {template_url(slug, phase_name)})",
            ) from exc
        raise
    if dry_run:
        return {"valid": True, "dry_run": True, "n_images": len(captions), "detail": "file is valid; not scored"}
    submission_id = create_submission(
        ctx.db,
        user_id=user.id,
        phase_id=phase_id,
        captions=captions,
        file_sha256=hashlib.sha256(data).hexdigest(),
        filename=filename,
        n_bytes=len(data),
        scorer_version=ctx.scorer_version,
        max_attempts=settings.max_attempts,
        method_name=meta.method_name,
        method_description=meta.method_description,
        is_public=meta.public,
        raw=data,
    )
    return {"id": submission_id, "status": str(SubmissionState.QUEUED), "url": f"/submissions/{submission_id}"}


def _latest_result(session: Session, submission_id: int, split_id: int) -> Result | None:
    return session.scalars(
        select(Result)
        .where(Result.submission_id == submission_id, Result.split_id == split_id)
        .order_by(Result.id.desc())
    ).first()


def get_submission(session: Session, submission_id: int, viewer: User | None) -> tuple[Submission, Access]:
    """A submission whose details ``viewer`` may see, with the viewer's access; else :class:`NotFound`."""
    submission = session.get(Submission, submission_id) if 0 < submission_id < 2**63 else None
    if submission is not None:
        acc = access(viewer, submission, submission.phase)
        if acc.details:
            return submission, acc
    raise NotFound("no_submission", f"no submission {submission_id} of your team")


def submission_view(session: Session, submission: Submission, acc: Access) -> dict[str, Any]:
    """The JSON view of a submission for a viewer with access ``acc`` (scores only when visible)."""
    phase = submission.phase
    results = {}
    for split in phase.splits:
        row = _latest_result(session, submission.id, split.id)
        if row is None:
            continue
        results[split.name] = {
            "scores": json.loads(row.scores_json) if acc.scores else None,
            "signatures": json.loads(row.signatures_json) if acc.scores else None,
            "scorer_version": row.scorer_version,
            "drilldown": f"/submissions/{submission.id}/images/{split.name}" if acc.items(split.name) else None,
        }
    jobs = list(session.scalars(select(Job).where(Job.submission_id == submission.id).order_by(Job.id.desc())))
    view: dict[str, Any] = {
        "id": submission.id,
        "challenge": phase.challenge.slug,
        "phase": phase.name,
        "team": submission.team.name,
        "method_name": submission.method_name,
        "method_description": submission.method_description,
        "public": submission.is_public,
        "baseline": submission.is_baseline,
        "representative": submission.is_representative,
        "withdrawn_at": submission.withdrawn_at.isoformat() if submission.withdrawn_at else None,
        "hidden_at": submission.hidden_at.isoformat() if submission.hidden_at else None,
        "status": str(submission.status),
        "error": submission.error or None,
        "attempts": jobs[0].attempts if jobs else 0,
        "created_at": submission.created_at.isoformat(),
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
        "file_sha256": submission.file_sha256,
        "scores_hidden": not acc.scores,
        "results": results,
    }
    if acc.host:
        view["jobs"] = [
            {
                "id": job.id,
                "status": str(job.status),
                "attempts": job.attempts,
                "max_attempts": job.max_attempts,
                "worker_id": job.worker_id,
                "scorer_version": job.scorer_version,
                "last_error": job.last_error or None,
                "finished_at": job.finished_at.isoformat() if job.finished_at else None,
            }
            for job in jobs
        ]
    return view


def list_submissions(db: Database, viewer: User, limit: int = LIST_LIMIT) -> list[dict[str, Any]]:
    """The viewer's team's submissions, newest first (hosts: all)."""
    with db.read() as session:
        query = select(Submission).order_by(Submission.id.desc())
        if not viewer.is_host:
            query = query.where(Submission.team_id == viewer.team_id)
        out = []
        for submission in session.scalars(query.limit(limit)):
            out.append(submission_view(session, submission, access(viewer, submission, submission.phase)))
        return out


def drilldown(db: Database, viewer: User | None, submission_id: int, split_name: str) -> dict[str, Any]:
    """Per-image scores, captions and references of one submission on one split (policy permitting)."""
    with db.read() as session:
        submission, acc = get_submission(session, submission_id, viewer)
        split = next((s for s in submission.phase.splits if s.name == split_name), None)
        if split is None:
            raise NotFound("no_split", f"submission {submission_id} has no split {split_name[:80]!r}")
        if not acc.items(split.name):
            reason = (
                f"the {split.visibility} split" if split.visibility != "public" else "this phase until scores are shown"
            )
            raise Forbidden("items_hidden", f"per-image results are not available for {reason}")
        row = _latest_result(session, submission.id, split.id)
        if row is None:
            raise NotFound("no_results", f"submission {submission_id} has no results on {split_name!r} yet")
        items = json.loads(row.items_json)
        captions = json.loads(submission.candidates_json)
        references = json.loads(split.references_json)
    return _drilldown_data(submission_id, split_name, items, captions, references)


def _drilldown_data(
    submission_id: int, split_name: str, items: dict[str, Any], captions: dict[str, str], references: dict[str, Any]
) -> dict[str, Any]:
    outputs = list(items["item_scores"])
    key = "cider-d" if "cider-d" in outputs else (outputs[-1] if outputs else None)
    images = [
        {
            "image_id": image_id,
            "caption": captions.get(str(image_id), ""),
            "references": references.get(str(image_id), []),
            "scores": {o: items["item_scores"][o][index] for o in outputs},
        }
        for index, image_id in enumerate(items["ids"])
    ]
    # Images whose score is missing or NaN (e.g. SPICE parts on an empty graph) are left out of the
    # extremes and the histogram rather than scrambling the order.
    scored = [im for im in images if key and _finite(im["scores"].get(key))]
    ordered = sorted(scored, key=lambda im: im["scores"][key]) if key else images
    values = [im["scores"][key] for im in scored] if key else []
    return {
        "submission_id": submission_id,
        "split": split_name,
        "sort_key": key,
        "outputs": outputs,
        "worst": ordered[:DRILLDOWN_EXTREMES],
        "best": ordered[::-1][:DRILLDOWN_EXTREMES],
        "histogram": _histogram(values),
        "images": images,
    }


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _histogram(values: list[float]) -> list[dict[str, float]]:
    if not values:
        return []
    lo, hi = min(values), max(values)
    width = (hi - lo) / HISTOGRAM_BINS or 1.0
    counts = [0] * HISTOGRAM_BINS
    for v in values:
        counts[min(int((v - lo) / width), HISTOGRAM_BINS - 1)] += 1
    return [{"low": lo + i * width, "high": lo + (i + 1) * width, "count": c} for i, c in enumerate(counts)]


# --- host actions ----------------------------------------------------------------------


def _host_submission(session: Session, actor: User, submission_id: int) -> Submission:
    if not actor.is_host:
        raise Forbidden("host_only", "only challenge hosts may do this")
    submission = session.get(Submission, submission_id) if 0 < submission_id < 2**63 else None
    if submission is None:
        raise NotFound("no_submission", f"submission {submission_id} does not exist")
    return submission


def cancel_submission(db: Database, actor: User, submission_id: int) -> None:
    """Host action: cancel an unfinished (queued or running) submission and its pending jobs (it stops
    counting against the quota). Finished entries are hidden, not cancelled.

    Raises:
        Conflict: the submission is not queued or running.
    """
    with db.write() as session:
        submission = _host_submission(session, actor, submission_id)
        if submission.status not in IN_FLIGHT_STATES:
            raise Conflict(
                "not_cancellable",
                f"submission {submission_id} is {submission.status}; only queued or running ones can be "
                "cancelled (hide a finished entry instead)",
            )
        submission.status = SubmissionState.CANCELLED
        submission.finished_at = utcnow()
        for job in session.scalars(select(Job).where(Job.submission_id == submission_id)):
            if job.status in IN_FLIGHT_STATES:
                job.status = JobState.CANCELLED
                job.finished_at = utcnow()
        audit(session, actor, "cancel", f"submission:{submission_id}")


def rerun_submission(db: Database, actor: User, submission_id: int, scorer_version: str, max_attempts: int) -> int:
    """Host action: queue a new scoring job (results already stored for this scorer version are kept)."""
    with db.write() as session:
        submission = _host_submission(session, actor, submission_id)
        for job in session.scalars(select(Job).where(Job.submission_id == submission_id)):
            if job.status in IN_FLIGHT_STATES:
                raise Conflict("already_queued", f"submission {submission_id} is already queued or running")
        job = Job(submission_id=submission_id, scorer_version=scorer_version, max_attempts=max_attempts)
        session.add(job)
        submission.status = SubmissionState.QUEUED
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


# --- a team's own entries --------------------------------------------------------------


def _own_submission(session: Session, actor: User, submission_id: int) -> Submission:
    """A submission of the actor's team (hosts act on their own team's entries here too)."""
    submission = session.get(Submission, submission_id) if 0 < submission_id < 2**63 else None
    if submission is None or actor.team_id is None or submission.team_id != actor.team_id:
        raise NotFound("no_submission", f"no submission {submission_id} of your team")
    return submission


def set_representative(db: Database, actor: User, submission_id: int, flag: bool = True) -> None:
    """Choose (or un-choose) the entry that represents the team on the leaderboard; at most one
    per team and phase, so choosing one releases the team's previous choice in that phase."""
    with db.write() as session:
        submission = _own_submission(session, actor, submission_id)
        if flag:
            if submission.withdrawn_at is not None:
                raise Conflict("withdrawn", f"submission {submission_id} was withdrawn")
            if submission.status != SubmissionState.FINISHED:
                raise Conflict("not_finished", f"submission {submission_id} is {submission.status}, not finished")
            others = select(Submission).where(
                Submission.team_id == submission.team_id,
                Submission.phase_id == submission.phase_id,
                Submission.is_representative.is_(True),
            )
            for other in session.scalars(others):
                other.is_representative = False
        submission.is_representative = flag
        action = "choose_representative" if flag else "unchoose_representative"
        audit(session, actor, action, f"submission:{submission_id}")


#: Fields of an entry its team may edit after the upload.
EDITABLE_FIELDS = ("method_name", "method_description", "public")


def _short(text: str, limit: int = 60) -> str:
    return json.dumps(text if len(text) <= limit else text[:limit] + "…", ensure_ascii=False)


def edit_submission(db: Database, actor: User, submission_id: int, changes: Mapping[str, object]) -> dict[str, str]:
    """Change an entry's method name, description or public flag (its own team only; audited as
    ``edit_entry``). Only the fields given change; returns ``{field: "old -> new"}`` of what changed.

    Raises:
        InvalidInput: an unknown field, or a value :class:`SubmissionMeta` refuses.
        NotFound: no such submission of the actor's team (other teams and hosts alike).
        Conflict: the entry was withdrawn.
    """
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        raise InvalidInput("bad_field", f"unknown field(s) {unknown[:5]}; editable: {', '.join(EDITABLE_FIELDS)}")
    if not changes:
        raise InvalidInput("nothing_to_change", f"send at least one of: {', '.join(EDITABLE_FIELDS)}")
    with db.write() as session:
        submission = _own_submission(session, actor, submission_id)
        if submission.withdrawn_at is not None:
            raise Conflict("withdrawn", f"submission {submission_id} was withdrawn; it can no longer be edited")
        current = SubmissionMeta(submission.method_name, submission.method_description, submission.is_public)
        meta = SubmissionMeta.build(
            changes.get("method_name", current.method_name),
            changes.get("method_description", current.method_description),
            changes.get("public", current.public),
        )
        changed: dict[str, str] = {}
        if meta.method_name != current.method_name:
            changed["method_name"] = f"{_short(current.method_name)} -> {_short(meta.method_name)}"
            submission.method_name = meta.method_name
        if meta.method_description != current.method_description:
            changed["method_description"] = (
                f"{len(current.method_description)} -> {len(meta.method_description)} characters"
            )
            submission.method_description = meta.method_description
        if meta.public != current.public:
            changed["public"] = f"{json.dumps(current.public)} -> {json.dumps(meta.public)}"
            submission.is_public = meta.public
        if changed:
            detail = "; ".join(f"{k}: {v}" for k, v in changed.items())
            audit(session, actor, "edit_entry", f"submission:{submission_id}", detail)
        return changed


def withdraw_submission(db: Database, actor: User, submission_id: int, *, confirm: bool) -> str:
    """Withdraw one of the team's entries: it leaves the leaderboard for good. A finished entry
    still counts against the quota (its scores were seen); an unfinished one is cancelled and
    stops counting. Returns the entry's status afterwards.

    Raises:
        InvalidInput: without ``confirm``.
        Conflict: already withdrawn.
    """
    with db.write() as session:
        submission = _own_submission(session, actor, submission_id)
        if not confirm:
            raise InvalidInput("confirm_required", "withdrawing cannot be undone; send confirm=true to go ahead")
        if submission.withdrawn_at is not None:
            raise Conflict("withdrawn", f"submission {submission_id} was already withdrawn")
        now = utcnow()
        submission.withdrawn_at = now
        submission.is_representative = False
        if submission.status in IN_FLIGHT_STATES:
            submission.status = SubmissionState.CANCELLED
            submission.finished_at = now
            for job in session.scalars(select(Job).where(Job.submission_id == submission_id)):
                if job.status in IN_FLIGHT_STATES:
                    job.status = JobState.CANCELLED
                    job.finished_at = now
        audit(session, actor, "withdraw", f"submission:{submission_id}", f"status:{submission.status}")
        return str(submission.status)


def uploaded_file(db: Database, viewer: User, submission_id: int) -> tuple[bytes, str, str]:
    """The uploaded file of a submission (its team and hosts): ``(data, filename, sha256)``. The
    bytes are checked against the hash recorded at upload before they are handed out.

    Raises:
        NotFound: no such submission for the viewer, or it was stored before uploads were kept.
        Conflict: the stored bytes no longer match their hash.
    """
    with db.read() as session:
        submission, _ = get_submission(session, submission_id, viewer)
        row = session.get(UploadFile, submission_id)
        if row is None:
            raise NotFound(
                "no_file", f"submission {submission_id} has no kept upload (stored before uploads were kept)"
            )
        data = row.data
        filename = submission.filename or f"submission-{submission_id}"
        digest = submission.file_sha256
    if hashlib.sha256(data).hexdigest() != digest:
        raise Conflict("file_corrupt", f"the stored file of submission {submission_id} does not match its SHA-256")
    if viewer.is_host:
        with db.write() as session:
            audit(session, viewer, "download_file", f"submission:{submission_id}")
    return data, filename, digest
