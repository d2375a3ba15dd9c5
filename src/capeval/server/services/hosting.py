"""Host actions beyond single submissions: phase limits and dates, split visibility, hiding entries,
API tokens, registration settings. Every change is audited; every function refuses non-hosts
(:class:`Forbidden`) before touching anything."""

from __future__ import annotations

import hmac
import json
import re
import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from capeval.server.config import parse_utc
from capeval.server.db import Database
from capeval.server.domain.errors import Forbidden, InvalidInput, NotFound
from capeval.server.domain.states import SubmissionState
from capeval.server.domain.times import human_time
from capeval.server.domain.visibility import SCORES_VISIBLE_MODES, access
from capeval.server.models import ApiToken, Challenge, Phase, SiteSetting, Submission, Team, User, utcnow
from capeval.server.services.audit import audit
from capeval.server.services.challenges import get_challenge, get_phase
from capeval.server.services.submissions import submission_view

__all__ = [
    "PHASE_FIELDS",
    "REGISTRATION_MODES",
    "Registration",
    "SubmissionFilter",
    "check_registration",
    "hide_submission",
    "host_submissions",
    "list_tokens",
    "read_registration",
    "revoke_token",
    "update_phase",
    "update_registration",
    "update_split",
]

#: Phase fields a host may edit.
PHASE_FIELDS = ("starts_at", "ends_at", "max_per_day", "max_total", "max_in_flight", "scores_visible", "allow_dry_run")
_LIMITS = ("max_per_day", "max_total", "max_in_flight")
#: ``open``: anyone registers; ``invite``: registering needs the invite code; ``approval``: anyone
#: registers, and a host approves the account before it logs in; ``closed``: nobody.
REGISTRATION_MODES = ("open", "invite", "approval", "closed")
#: Accounts one address may register per hour unless the hosts say otherwise.
DEFAULT_PER_ADDRESS_HOUR = 10
#: Largest team size or limit a host may set.
LIMIT_MAX = 1_000_000


def _require_host(actor: User) -> None:
    if not actor.is_host:
        raise Forbidden("host_only", "only challenge hosts may do this")


def _limit(field: str, value: object) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= LIMIT_MAX:
        raise InvalidInput(f"bad_{field}", f"{field} must be a whole number 0..{LIMIT_MAX} or empty (no limit)")
    return value


def _moment(field: str, value: object) -> datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 64:
        raise InvalidInput(f"bad_{field}", f"{field} must be an ISO 8601 time such as 2026-12-01T00:00:00Z")
    try:
        return parse_utc(value, field)
    except ValueError as exc:
        raise InvalidInput(f"bad_{field}", str(exc)) from None


def _show(value: object) -> str:
    return human_time(value) if isinstance(value, datetime) else json.dumps(value)


def update_phase(db: Database, actor: User, slug: str, phase_name: str, changes: dict[str, Any]) -> dict[str, str]:
    """Change a phase's limits, dates, score visibility or dry-run flag; returns ``{field: "old -> new"}``
    of what changed (audited as ``edit_phase``)."""
    _require_host(actor)
    unknown = sorted(set(changes) - set(PHASE_FIELDS))
    if unknown:
        raise InvalidInput("bad_field", f"unknown phase field(s) {unknown[:5]}; editable: {', '.join(PHASE_FIELDS)}")
    values: dict[str, Any] = {}
    for field, value in changes.items():
        if field in _LIMITS:
            values[field] = _limit(field, value)
        elif field in ("starts_at", "ends_at"):
            values[field] = _moment(field, value)
        elif field == "scores_visible":
            if value not in SCORES_VISIBLE_MODES:
                raise InvalidInput("bad_scores_visible", f"scores_visible must be one of {SCORES_VISIBLE_MODES}")
            values[field] = value
        else:
            if not isinstance(value, bool):
                raise InvalidInput("bad_allow_dry_run", "allow_dry_run must be true or false")
            values[field] = value
    with db.write() as session:
        phase = get_phase(session, slug, phase_name)
        starts = values.get("starts_at", phase.starts_at)
        ends = values.get("ends_at", phase.ends_at)
        if starts is not None and ends is not None and ends <= starts:
            raise InvalidInput("bad_dates", "ends_at must be after starts_at")
        changed: dict[str, str] = {}
        for field, value in values.items():
            old = getattr(phase, field)
            if old != value:
                changed[field] = f"{_show(old)} -> {_show(value)}"
                setattr(phase, field, value)
        if changed:
            detail = "; ".join(f"{k}: {v}" for k, v in changed.items())
            audit(session, actor, "edit_phase", f"phase:{slug}/{phase_name}", detail)
        return changed


def update_split(db: Database, actor: User, slug: str, split_name: str, visibility: str) -> bool:
    """Make a split's references ``public`` or ``hidden`` (audited as ``edit_split``); returns whether it changed."""
    _require_host(actor)
    if visibility not in ("public", "hidden"):
        raise InvalidInput("bad_visibility", "visibility must be 'public' or 'hidden'")
    with db.write() as session:
        split = next((s for s in get_challenge(session, slug).splits if s.name == split_name), None)
        if split is None:
            raise NotFound("no_split", f"challenge {slug!r} has no split {split_name[:80]!r}")
        if split.visibility == visibility:
            return False
        audit(
            session,
            actor,
            "edit_split",
            f"split:{slug}/{split_name}",
            f"visibility: {split.visibility} -> {visibility}",
        )
        split.visibility = visibility
        return True


def hide_submission(db: Database, actor: User, submission_id: int, hidden: bool) -> None:
    """Hide an entry from the leaderboard (or restore it); audited as ``hide`` / ``restore``."""
    _require_host(actor)
    with db.write() as session:
        submission = session.get(Submission, submission_id) if 0 < submission_id < 2**63 else None
        if submission is None:
            raise NotFound("no_submission", f"submission {submission_id} does not exist")
        submission.hidden_at = utcnow() if hidden else None
        audit(session, actor, "hide" if hidden else "restore", f"submission:{submission_id}")


def list_tokens(db: Database, viewer: User) -> list[dict[str, Any]]:
    """API tokens (never their secret): the viewer's own; hosts see everyone's."""
    with db.read() as session:
        query = select(ApiToken).where(ApiToken.kind == "api").order_by(ApiToken.id.desc())
        if not viewer.is_host:
            query = query.where(ApiToken.user_id == viewer.id)
        now = utcnow()
        return [
            {
                "id": t.id,
                "user": t.user.username,
                "label": t.label,
                "created_at": t.created_at.isoformat(),
                "expires_at": t.expires_at.isoformat(),
                "active": not t.revoked and t.expires_at > now,
                "revoked": t.revoked,
            }
            for t in session.scalars(query.limit(1000))
        ]


def revoke_token(db: Database, actor: User, token_id: int) -> None:
    """Revoke an API token: participants their own, hosts anyone's (audited as ``revoke_token``)."""
    with db.write() as session:
        token = session.get(ApiToken, token_id) if 0 < token_id < 2**63 else None
        if token is None or token.kind != "api" or (token.user_id != actor.id and not actor.is_host):
            raise NotFound("no_token", f"no API token {token_id} of yours")
        token.revoked = True
        audit(session, actor, "revoke_token", f"token:{token_id}", f"user:{token.user.username}")


@dataclass(frozen=True)
class Registration:
    """Who may create accounts, how large a team may grow, how many accounts one address may
    register per hour (``None``: no limit)."""

    mode: str = "open"
    invite_code: str = ""
    team_size: int | None = None
    per_address_hour: int | None = DEFAULT_PER_ADDRESS_HOUR

    def public(self) -> dict[str, Any]:
        """What anyone may know (never the invite code)."""
        return {"mode": self.mode, "team_size": self.team_size, "per_address_hour": self.per_address_hour}


def _registration(session: Session) -> Registration:
    row = session.get(SiteSetting, "registration")
    if row is None:
        return Registration()
    data = json.loads(row.value)
    return Registration(
        data.get("mode", "open"),
        data.get("invite_code", ""),
        data.get("team_size"),
        data.get("per_address_hour", DEFAULT_PER_ADDRESS_HOUR),
    )


def read_registration(db: Database) -> Registration:
    with db.read() as session:
        return _registration(session)


def update_registration(
    db: Database,
    actor: User,
    *,
    mode: str | None = None,
    team_size: object = "keep",
    new_invite_code: bool = False,
    per_address_hour: object = "keep",
) -> Registration:
    """Set the registration mode, the team size limit and the accounts one address may register per
    hour (audited as ``edit_registration``). Switching to ``invite`` without a code, or
    ``new_invite_code``, draws a new random code."""
    _require_host(actor)
    with db.write() as session:
        current = _registration(session)
        if mode is not None and mode not in REGISTRATION_MODES:
            raise InvalidInput("bad_mode", f"registration mode must be one of {', '.join(REGISTRATION_MODES)}")
        size = current.team_size if team_size == "keep" else _limit("team_size", team_size)
        if size == 0:
            raise InvalidInput("bad_team_size", "team_size must be at least 1 (empty: no limit)")
        hourly = (
            current.per_address_hour if per_address_hour == "keep" else _limit("per_address_hour", per_address_hour)
        )
        if hourly == 0:
            raise InvalidInput("bad_per_address_hour", "per_address_hour must be at least 1 (empty: no limit)")
        new_mode = mode or current.mode
        code = current.invite_code
        if new_invite_code or (new_mode == "invite" and not code):
            code = secrets.token_urlsafe(9)
        updated = Registration(new_mode, code, size, hourly)
        row = session.get(SiteSetting, "registration")
        payload = json.dumps(
            {
                "mode": updated.mode,
                "invite_code": updated.invite_code,
                "team_size": updated.team_size,
                "per_address_hour": updated.per_address_hour,
            }
        )
        if row is None:
            session.add(SiteSetting(key="registration", value=payload))
        else:
            row.value = payload
        detail = (
            f"mode: {current.mode} -> {updated.mode}; team_size: {current.team_size} -> {updated.team_size}; "
            f"per_address_hour: {current.per_address_hour} -> {updated.per_address_hour}"
        )
        if code != current.invite_code:
            detail += "; new invite code"
        audit(session, actor, "edit_registration", "registration", detail)
        return updated


def check_registration(session: Session, invite_code: str | None, team_id: int | None) -> str:
    """Refuse a participant's registration the settings do not allow (in the registering transaction);
    returns the new account's state (``pending`` while the hosts approve accounts, else ``active``).

    ``team_id`` is the existing team being joined, if any.
    """
    settings = _registration(session)
    if settings.mode == "closed":
        raise Forbidden("registration_closed", "registration is closed; ask the challenge hosts")
    if settings.mode == "invite" and not hmac.compare_digest(
        (invite_code or "").strip().encode(), settings.invite_code.encode()
    ):
        raise Forbidden("invite_code", "registration needs the invite code the challenge hosts gave you")
    if team_id is not None and settings.team_size is not None:
        members = session.scalar(select(func.count(User.id)).where(User.team_id == team_id)) or 0
        if members >= settings.team_size:
            raise Forbidden("team_full", f"the team already has {members} members (limit {settings.team_size})")
    return "pending" if settings.mode == "approval" else "active"


#: Rows per page of the host panel's submission list: the default and the bounds a query may ask for.
PER_PAGE = 50
PER_PAGE_BOUNDS = (5, 500)
#: Largest page number a query may ask for (whatever the data, the number is bounded).
PAGE_MAX = 1_000_000
_FILTER_FIELDS = ("team", "phase", "status", "per_page", "page")
_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def _one(params: Any, name: str) -> str:
    values = params.getlist(name) if hasattr(params, "getlist") else ([params[name]] if name in params else [])
    if len(values) > 1:
        raise InvalidInput(f"bad_{name}", f"{name} is given {len(values)} times; give it once")
    value = values[0] if values else ""
    if not isinstance(value, str) or len(value) > 200:
        raise InvalidInput(f"bad_{name}", f"{name} must be at most 200 characters")
    if _CONTROL.search(value):
        raise InvalidInput(f"bad_{name}", f"{name} must not contain control characters")
    return value.strip()


def _whole(name: str, raw: str, low: int, high: int, default: int) -> int:
    if raw == "":
        return default
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9 or not low <= int(raw) <= high:
        raise InvalidInput(f"bad_{name}", f"{name} must be a whole number from {low} to {high}, got {raw[:40]!r}")
    return int(raw)


@dataclass(frozen=True)
class SubmissionFilter:
    """The host panel's submission filters and page, read from a query string and written back into
    page links (so paging keeps the filters).

    ``team``: part of a team name (case-insensitive); ``phase``: ``challenge-slug/phase``; ``status``:
    a submission state; ``page`` from 1; ``per_page`` within :data:`PER_PAGE_BOUNDS`.
    """

    team: str = ""
    phase: str = ""
    status: str = ""
    page: int = 1
    per_page: int = PER_PAGE

    @classmethod
    def parse(cls, params: Any) -> SubmissionFilter:
        """Read the filters from query parameters (a Starlette ``QueryParams`` or a plain mapping).

        Raises:
            InvalidInput: a repeated, overlong or malformed value, an unknown status, a page or
                page size out of bounds, a phase not written ``challenge/phase``.
        """
        team, phase, status = (_one(params, n) for n in ("team", "phase", "status"))
        if status and status not in {str(s) for s in SubmissionState}:
            states = ", ".join(str(s) for s in SubmissionState)
            raise InvalidInput("bad_status", f"status must be one of {states} (or empty), got {status[:40]!r}")
        if phase and phase.count("/") != 1:
            raise InvalidInput("bad_phase", f"phase must be written challenge/phase, got {phase[:80]!r}")
        page = _whole("page", _one(params, "page"), 1, PAGE_MAX, 1)
        per_page = _whole("per_page", _one(params, "per_page"), *PER_PAGE_BOUNDS, PER_PAGE)
        return cls(team=team, phase=phase, status=status, page=page, per_page=per_page)

    def query(self, **change: Any) -> str:
        """The query string of these filters (defaults left out), with ``change`` applied."""
        target = replace(self, **change)
        pairs = [
            (name, str(getattr(target, name)))
            for name in _FILTER_FIELDS
            if getattr(target, name) != getattr(SubmissionFilter, name)
        ]
        return urlencode(pairs)

    @property
    def active(self) -> bool:
        """Whether any filter (not the paging) narrows the list."""
        return bool(self.team or self.phase or self.status)


def host_submissions(db: Database, viewer: User, flt: SubmissionFilter, *, clamp: bool = False) -> dict[str, Any]:
    """One page of every submission (newest first) that matches ``flt``, for a host: ``{"rows",
    "total", "page", "pages", "first", "last"}`` with 1-based row numbers ``first``..``last``.

    Raises:
        Forbidden: not a host.
        NotFound: a phase filter naming no phase.
        InvalidInput: a page past the last one (with ``clamp``, the last page is given instead: after
            a host action that emptied the page the host was on).
    """
    _require_host(viewer)
    with db.read() as session:
        query = select(Submission).join(Team, Team.id == Submission.team_id)
        if flt.phase:
            slug, name = flt.phase.split("/")
            phase_id = session.scalar(
                select(Phase.id)
                .join(Challenge, Challenge.id == Phase.challenge_id)
                .where(Challenge.slug == slug, Phase.name == name)
            )
            if phase_id is None:
                raise NotFound("no_phase", f"no phase {flt.phase[:80]!r}; write it challenge/phase")
            query = query.where(Submission.phase_id == phase_id)
        if flt.team:
            query = query.where(func.lower(Team.name).contains(flt.team.lower(), autoescape=True))
        if flt.status:
            query = query.where(Submission.status == flt.status)
        total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
        pages = max(1, -(-total // flt.per_page))
        if flt.page > pages and clamp:
            flt = replace(flt, page=pages)
        if flt.page > pages:
            raise InvalidInput(
                "bad_page", f"page {flt.page} is past the last page: {total} submission(s) make {pages} page(s)"
            )
        offset = (flt.page - 1) * flt.per_page
        rows = session.scalars(query.order_by(Submission.id.desc()).offset(offset).limit(flt.per_page))
        out = [submission_view(session, s, access(viewer, s, s.phase)) for s in rows]
    return {
        "rows": out,
        "total": total,
        "page": flt.page,
        "pages": pages,
        "first": offset + 1 if out else 0,
        "last": offset + len(out),
    }
