"""Hosts manage accounts and teams: list them, approve, disable and enable accounts, move a user
to another team, rename and merge teams, issue password-reset links, set a password. Every change
is audited; every function refuses non-hosts (:class:`Forbidden`) before touching anything.

A user moved to another team leaves their past submissions with the old team (submissions belong
to teams; limits are per team). Merging team A into team B moves A's members *and* submissions to
B and deletes A: B's limits then count both teams' submissions.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from capeval.server.db import Database
from capeval.server.domain.errors import Conflict, Forbidden, InvalidInput, NotFound
from capeval.server.models import USER_STATES, ApiToken, Submission, Team, User, utcnow
from capeval.server.security import hash_password, hash_token, new_token
from capeval.server.services.accounts import (
    USERNAME_PATTERN,
    check_password_rules,
    clean_team_name,
    find_team,
    team_key,
)
from capeval.server.services.audit import audit

__all__ = [
    "RESET_HOURS",
    "consume_reset",
    "issue_reset",
    "list_teams",
    "list_users",
    "merge_teams",
    "move_user",
    "rename_team",
    "reset_target",
    "set_password",
    "set_user_status",
]

#: Lifetime of a password-reset link.
RESET_HOURS = 48
#: Rows listed at most.
LIST_MAX = 5000


def _require_host(actor: User | None) -> None:
    if actor is not None and not actor.is_host:
        raise Forbidden("host_only", "only challenge hosts may do this")


def _user(session: Session, username: str) -> User:
    name = username.strip()
    user = None
    if USERNAME_PATTERN.fullmatch(name):
        user = session.scalar(select(User).where(func.lower(User.username) == name.lower()))
    if user is None:
        raise NotFound("no_user", f"no user {name[:80]!r}")
    return user


def _team(session: Session, team_id: int) -> Team:
    team = session.get(Team, team_id) if 0 < team_id < 2**63 else None
    if team is None:
        raise NotFound("no_team", f"no team {team_id}")
    return team


def _iso(moment: Any) -> str | None:
    return moment.isoformat(timespec="seconds") if moment is not None else None


def list_users(db: Database, actor: User | None, *, status: str = "", team: str = "") -> list[dict[str, Any]]:
    """Every account (oldest first): name, team, host, status, created and last login, submissions.

    ``status`` keeps one state; ``team`` keeps teams whose name contains it (any case).
    """
    _require_host(actor)
    if status and status not in USER_STATES:
        raise InvalidInput("bad_status", f"status must be one of {', '.join(USER_STATES)} (or empty)")
    with db.read() as session:
        counts = dict(
            session.execute(select(Submission.user_id, func.count(Submission.id)).group_by(Submission.user_id)).all()
        )
        query = select(User).order_by(User.id)
        if status:
            query = query.where(User.status == status)
        rows = []
        for user in session.scalars(query.limit(LIST_MAX)):
            team_name = user.team.name if user.team else None
            if team and (team_name is None or team.lower() not in team_name.lower()):
                continue
            rows.append(
                {
                    "username": user.username,
                    "team": team_name,
                    "team_id": user.team_id,
                    "host": user.is_host,
                    "status": user.status,
                    "created_at": _iso(user.created_at),
                    "last_login_at": _iso(user.last_login_at),
                    "submissions": int(counts.get(user.id, 0)),
                }
            )
        return rows


def list_teams(db: Database, actor: User | None) -> list[dict[str, Any]]:
    """Every team (oldest first): id, name, members, submissions, join code."""
    _require_host(actor)
    with db.read() as session:
        members: dict[int, list[str]] = {}
        for team_id, username in session.execute(select(User.team_id, User.username).order_by(User.id)).all():
            if team_id is not None:
                members.setdefault(team_id, []).append(username)
        counts = dict(
            session.execute(select(Submission.team_id, func.count(Submission.id)).group_by(Submission.team_id)).all()
        )
        return [
            {
                "id": team.id,
                "name": team.name,
                "members": members.get(team.id, []),
                "submissions": int(counts.get(team.id, 0)),
                "created_at": _iso(team.created_at),
                "join_code": team.join_code,
            }
            for team in session.scalars(select(Team).order_by(Team.id).limit(LIST_MAX))
        ]


def _revoke_all(session: Session, user_id: int) -> int:
    """Revoke every live session, API token and reset link of a user; returns how many."""
    now = utcnow()
    result = session.execute(
        update(ApiToken)
        .where(ApiToken.user_id == user_id, ApiToken.revoked.is_(False), ApiToken.expires_at > now)
        .values(revoked=True)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def set_user_status(db: Database, actor: User | None, username: str, status: str) -> str:
    """``active`` (approve a pending account, enable a disabled one) or ``disabled`` (its sessions and
    API tokens are revoked and it cannot log in). Returns the previous state; audited as
    ``approve_user``, ``enable_user`` or ``disable_user``. ``actor`` ``None``: the command line.

    Raises:
        Conflict: disabling yourself or the last active host.
    """
    _require_host(actor)
    if status not in ("active", "disabled"):
        raise InvalidInput("bad_status", "status must be active or disabled")
    with db.write() as session:
        user = _user(session, username)
        previous = user.status
        if previous == status:
            return previous
        if status == "disabled":
            if actor is not None and user.id == actor.id:
                raise Conflict("self", "you cannot disable your own account")
            if user.is_host:
                active_hosts = session.scalar(
                    select(func.count(User.id)).where(User.is_host.is_(True), User.status == "active")
                )
                if (active_hosts or 0) <= 1:
                    raise Conflict("last_host", f"{user.username!r} is the last active host")
            revoked = _revoke_all(session, user.id)
            detail = f"{previous} -> disabled; {revoked} session(s)/token(s) revoked"
            action = "disable_user"
        else:
            detail = f"{previous} -> active"
            action = "approve_user" if previous == "pending" else "enable_user"
        user.status = status
        audit(session, actor, action, f"user:{user.username}", detail)
        return previous


def move_user(db: Database, actor: User | None, username: str, team_name: str, *, create: bool = False) -> str:
    """Move a user to the team named ``team_name`` (any case), or to a new team of that name with
    ``create``; their past submissions stay with their old team. Returns the team's name; audited as
    ``move_user``.

    Raises:
        NotFound: no such user, or no such team without ``create``.
        Conflict: ``create`` but the team exists, or the user is already in it.
    """
    _require_host(actor)
    name = clean_team_name(team_name)
    with db.write() as session:
        user = _user(session, username)
        target = find_team(session, name)
        if target is None:
            if not create:
                raise NotFound("no_team", f"no team is named {name!r} (tick 'new team' to create it)")
            target = Team(name=name, name_key=team_key(name))
            session.add(target)
            session.flush()
        elif create:
            raise Conflict("team_exists", f"team {target.name!r} exists already; move the user into it instead")
        if user.team_id == target.id:
            raise Conflict("same_team", f"{user.username!r} is already in team {target.name!r}")
        old = user.team.name if user.team else None
        user.team_id = target.id
        session.flush()
        audit(session, actor, "move_user", f"user:{user.username}", f"team {old!r} -> {target.name!r}")
        return target.name


def rename_team(db: Database, actor: User | None, team_id: int, new_name: str) -> str:
    """Rename a team (names compare without case; another team's name is refused). Audited as
    ``rename_team``; returns the old name."""
    _require_host(actor)
    name = clean_team_name(new_name)
    with db.write() as session:
        team = _team(session, team_id)
        other = find_team(session, name)
        if other is not None and other.id != team.id:
            raise Conflict("team_exists", f"another team is named {other.name!r}; merge the teams instead")
        old = team.name
        if old == name:
            return old
        team.name, team.name_key = name, team_key(name)
        audit(session, actor, "rename_team", f"team:{team.id}", f"{old!r} -> {name!r}")
        return old


def merge_teams(db: Database, actor: User | None, source_id: int, target_id: int) -> dict[str, int]:
    """Merge team ``source_id`` into ``target_id``: its members and submissions move, it is deleted.
    A representative entry of the source in a phase where the target has one is released (one per
    team and phase). Returns the counts moved; audited as ``merge_teams``."""
    _require_host(actor)
    if source_id == target_id:
        raise InvalidInput("same_team", "a team cannot be merged into itself")
    with db.write() as session:
        source, target = _team(session, source_id), _team(session, target_id)
        chosen = set(
            session.scalars(
                select(Submission.phase_id).where(
                    Submission.team_id == target.id, Submission.is_representative.is_(True)
                )
            )
        )
        released = moved = 0
        for submission in session.scalars(select(Submission).where(Submission.team_id == source.id)):
            if submission.is_representative and submission.phase_id in chosen:
                submission.is_representative = False
                released += 1
            submission.team_id = target.id
            moved += 1
        members = list(session.scalars(select(User).where(User.team_id == source.id)))
        for user in members:
            user.team_id = target.id
        session.flush()
        counts = {"members": len(members), "submissions": moved, "released": released}
        name = source.name
        session.delete(source)
        audit(
            session,
            actor,
            "merge_teams",
            f"team:{target.id}",
            f"team {name!r} (#{source_id}) merged into {target.name!r}: {len(members)} member(s) and "
            f"{moved} submission(s) moved",
        )
        return counts


def set_password(db: Database, actor: User | None, username: str, password: str, *, activate: bool = False) -> int:
    """Set a user's password (the host command line, a reset link); every session, API token and reset
    link of the account is revoked. With ``activate`` a disabled or pending account is made active.
    Returns how many credentials were revoked; audited as ``set_password``."""
    _require_host(actor)
    check_password_rules(password)
    digest = hash_password(password)
    with db.write() as session:
        user = _user(session, username)
        user.password_hash = digest
        revoked = _revoke_all(session, user.id)
        detail = f"{revoked} session(s)/token(s) revoked"
        if activate and user.status != "active":
            detail += f"; {user.status} -> active"
            user.status = "active"
        audit(session, actor, "set_password", f"user:{user.username}", detail)
        return revoked


def issue_reset(db: Database, actor: User | None, username: str, *, hours: float = RESET_HOURS) -> tuple[str, str]:
    """A one-time password-reset token for ``username`` (a host gives the link to its owner; no mail
    is sent). Earlier reset links of the account stop working. Returns ``(token, expires_at ISO)``;
    audited as ``reset_link``."""
    _require_host(actor)
    token = new_token()
    expires = utcnow() + timedelta(hours=hours)
    with db.write() as session:
        user = _user(session, username)
        session.execute(
            update(ApiToken)
            .where(ApiToken.user_id == user.id, ApiToken.kind == "reset", ApiToken.revoked.is_(False))
            .values(revoked=True)
        )
        session.add(
            ApiToken(user_id=user.id, token_hash=hash_token(token), kind="reset", label="reset", expires_at=expires)
        )
        audit(session, actor, "reset_link", f"user:{user.username}", f"valid until {_iso(expires)}")
    return token, _iso(expires) or ""


def _reset_owner(session: Session, token: str) -> User:
    """The account of a live reset token, or :class:`NotFound` (unknown, used or expired)."""
    row = session.scalar(
        select(ApiToken).where(ApiToken.token_hash == hash_token(token[:200]), ApiToken.kind == "reset")
    )
    if row is None or row.revoked or row.expires_at <= utcnow():
        raise NotFound("bad_reset_link", "this reset link is unknown, used or expired; ask the hosts for a new one")
    user = session.get(User, row.user_id)
    if user is None:
        raise NotFound("bad_reset_link", "this reset link belongs to no account")
    return user


def reset_target(db: Database, token: str) -> str:
    """The user name a live reset token belongs to.

    Raises:
        NotFound: unknown, used or expired.
    """
    with db.read() as session:
        return _reset_owner(session, token).username


def consume_reset(db: Database, token: str, password: str) -> str:
    """Set a new password with a reset token (once). Every session and token of the account is
    revoked. Returns the user name; audited as ``password_reset``."""
    check_password_rules(password)
    digest = hash_password(password)
    with db.write() as session:
        user = _reset_owner(session, token)
        user.password_hash = digest
        revoked = _revoke_all(session, user.id)
        audit(
            session,
            user,
            "password_reset",
            f"user:{user.username}",
            f"with a host's reset link; {revoked} credential(s) revoked",
        )
        return user.username
