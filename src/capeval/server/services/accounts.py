"""Accounts: registration, teams, login (with a throttle), API tokens and web sessions."""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from capeval.server.db import Database
from capeval.server.domain.errors import Conflict, Forbidden, InvalidInput
from capeval.server.domain.text import TEAM_KEY_MAX, character_problem, team_key
from capeval.server.models import ApiToken, Team, User, utcnow
from capeval.server.security import hash_password, hash_token, new_token, verify_password
from capeval.server.services.audit import audit
from capeval.server.services.throttle import LoginThrottle, normalize_username

__all__ = [
    "LoginThrottle",
    "authenticate",
    "check_active",
    "change_password",
    "check_label",
    "create_user",
    "ensure_host",
    "find_team",
    "issue_token",
    "normalize_username",
    "record_failed_login",
    "record_login",
    "revoke_token",
    "user_for_token",
]

log = logging.getLogger("capeval")

USERNAME_MAX = 80
TEAM_NAME_MAX = 80
PASSWORD_MIN = 8
#: Longer passwords are refused (scrypt cost grows with the input; nobody types 1,000 characters).
PASSWORD_MAX = 1024
LABEL_MAX = 120
USERNAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,80}")
#: Verified against when the username is unknown, so a wrong password costs the same either way.
_DUMMY_HASH = hash_password("capeval-no-such-user")


def check_password_rules(password: str) -> None:
    """Refuse a password that is too short, too long or not text."""
    if len(password) < PASSWORD_MIN:
        raise InvalidInput("weak_password", f"password must have at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise InvalidInput("bad_password", f"password must have at most {PASSWORD_MAX} characters")
    if re.search("[\ud800-\udfff]", password):
        raise InvalidInput("bad_password", "password holds a lone UTF-16 surrogate, which is not text")


def clean_team_name(team_name: str) -> str:
    """A team name as stored: one line of visible text, spaces collapsed, within the length limits."""
    problem = character_problem(team_name)
    if problem:
        raise InvalidInput("bad_team", f"team name {problem}; a team name is one line of visible text")
    name = " ".join(team_name.split())
    if not name:
        raise InvalidInput("bad_team", "team name must contain a visible character")
    if len(name) > TEAM_NAME_MAX:
        raise InvalidInput("bad_team", f"team name must have at most {TEAM_NAME_MAX} characters")
    if len(team_key(name)) > TEAM_KEY_MAX:
        raise InvalidInput("bad_team", "team name is too long once its compatibility characters are spelled out")
    return name


def check_label(label: str) -> str:
    """A token label: one line of visible text, at most :data:`LABEL_MAX` characters."""
    problem = character_problem(label)
    if problem:
        raise InvalidInput("bad_label", f"label {problem}; a label is one line of visible text")
    if len(label) > LABEL_MAX:
        raise InvalidInput("bad_label", f"label has {len(label)} characters; at most {LABEL_MAX}")
    return label


def find_team(session: Session, name: str) -> Team | None:
    """The team called ``name`` (compared by :func:`~capeval.server.domain.text.team_key`: any case,
    width or spacing), or ``None``."""
    return session.scalar(select(Team).where(Team.name_key == team_key(name)))


def _team_to_join(
    session: Session, username: str, team_name: str | None, team_code: str | None, *, is_host: bool
) -> tuple[Team | None, str]:
    """The existing team a registration joins (``None``: a new one) and the new team's name.

    A join code alone names the team it belongs to; a team name with a code must be that team's
    name; a name without a code creates the team (an existing one needs its code); neither means
    a new team named after the user.
    """
    code = (team_code or "").strip()
    if code and not team_name:
        row = session.scalars(select(Team).where(Team.join_code == code).order_by(Team.id)).first()
        if row is None:
            raise Forbidden("team_code", "no team has this join code; check it with a member of the team")
        return row, row.name
    name = clean_team_name(team_name or username)
    row = find_team(session, name)
    if row is None:
        if code:
            raise Forbidden(
                "team_code",
                f"no team is named {name!r}, so the join code cannot be checked: correct the name (or give the "
                "code alone), or leave the code empty to create the team",
            )
        return None, name
    if not is_host and not hmac.compare_digest(code.encode(), row.join_code.encode()):
        raise Forbidden(
            "team_code",
            f"team {row.name!r} exists; joining it needs its join code (members find it at /api/v1/me)",
        )
    return row, row.name


def create_user(
    db: Database,
    username: str,
    password: str,
    *,
    team_name: str | None = None,
    team_code: str | None = None,
    is_host: bool = False,
    invite_code: str | None = None,
    address: str = "",
) -> User:
    """Register a user and put them in a team: a new one, or an existing one given its join code.

    Hosts join the hosts' team without a code. Usernames differing only in case are the same name.
    While the hosts approve new accounts (registration mode ``approval``) the account is created
    ``pending``. Audited as ``register`` (with ``address``, where the request came from).

    Raises:
        InvalidInput: bad username, team name or password.
        Conflict: the name is taken.
        Forbidden: an existing team without its join code; registration closed, a wrong invite
            code or a full team (see :mod:`capeval.server.services.hosting`).
    """
    username = username.strip()
    if not USERNAME_PATTERN.fullmatch(username):
        raise InvalidInput("bad_username", "username must be 1-80 ASCII letters, digits, '-', '_' or '.'")
    check_password_rules(password)
    if team_name:
        clean_team_name(team_name)  # refuse a bad name before the (slow) password hash
    password_hash = hash_password(password)
    with db.write() as session:
        taken = session.scalar(select(User.id).where(func.lower(User.username) == username.lower()))
        if taken is not None:
            raise Conflict("username_taken", f"username {username!r} is already registered")
        status = "active"
        if not is_host:
            from capeval.server.services.hosting import check_registration

            status = check_registration(session, invite_code, None)
        row, team = _team_to_join(session, username, team_name, team_code, is_host=is_host)
        if not is_host and row is not None:
            check_registration(session, invite_code, row.id)
        new_team = row is None
        if row is None:
            row = Team(name=team, name_key=team_key(team))
            session.add(row)
            session.flush()
        user = User(username=username, password_hash=password_hash, is_host=is_host, team_id=row.id, status=status)
        session.add(user)
        session.flush()
        if is_host:
            audit(session, None, "create_host", f"user:{username}")
        else:
            joined = f"new team {team!r}" if new_team else f"joined team {team!r}"
            where = f"; from {address}" if address else ""
            audit(session, None, "register", f"user:{username}", f"{joined}; {status}{where}")
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
        raise InvalidInput("no_password", f"a password is needed to create host account {username!r}")
    create_user(db, username, password, team_name="challenge hosts", is_host=True)
    return True


def authenticate(db: Database, username: str, password: str) -> User | None:
    """The user with these credentials, or ``None``. Unknown names cost one password hash too."""
    name = username.strip()
    user = None
    if USERNAME_PATTERN.fullmatch(name) and len(password) <= PASSWORD_MAX:
        with db.read() as session:
            user = session.scalar(select(User).where(func.lower(User.username) == name.lower()))
    stored = user.password_hash if user is not None else _DUMMY_HASH
    ok = verify_password(password[:PASSWORD_MAX], stored)
    return user if ok and user is not None else None


def change_password(
    db: Database, user_id: int, new_password: str, *, keep_token: str | None = None, revoke_api_tokens: bool = False
) -> dict[str, int]:
    """Set a new password (the caller has checked the current one) and end the user's other web
    sessions: every session but the one of ``keep_token``; with ``revoke_api_tokens`` every API token
    too (but ``keep_token``). Audited as ``change_password``.

    Returns:
        ``{"sessions_revoked": n, "api_tokens_revoked": m}``.

    Raises:
        InvalidInput: the new password is too short, too long or not text.
    """
    check_password_rules(new_password)
    password_hash = hash_password(new_password)
    kept = hash_token(keep_token) if keep_token else None
    counts = {"sessions_revoked": 0, "api_tokens_revoked": 0}
    with db.write() as session:
        user = session.get(User, user_id)
        if user is None:
            raise InvalidInput("no_user", "the account no longer exists")
        user.password_hash = password_hash
        now = utcnow()
        kinds = ("session", "api") if revoke_api_tokens else ("session",)
        live = select(ApiToken).where(
            ApiToken.user_id == user_id,
            ApiToken.kind.in_(kinds),
            ApiToken.revoked.is_(False),
            ApiToken.expires_at > now,
        )
        for token in session.scalars(live):
            if token.token_hash == kept:
                continue
            token.revoked = True
            counts["sessions_revoked" if token.kind == "session" else "api_tokens_revoked"] += 1
        detail = (
            f"{counts['sessions_revoked']} other session(s) ended, {counts['api_tokens_revoked']} API token(s) revoked"
        )
        audit(session, user, "change_password", f"user:{user.username}", detail)
    return counts


def issue_token(db: Database, user_id: int, *, kind: str, lifetime: timedelta, label: str = "") -> str:
    """Create a token; returns the clear text (only its hash is stored)."""
    token = new_token()
    with db.read() as session:
        session.add(
            ApiToken(
                user_id=user_id,
                token_hash=hash_token(token),
                kind=kind,
                label=label[:LABEL_MAX],
                expires_at=utcnow() + lifetime,
            )
        )
    return token


def user_for_token(db: Database, token: str, *, kind: str | None = None) -> User | None:
    """The owner of a valid, unexpired, unrevoked token, or ``None``."""
    if not token or len(token) > 200:
        return None
    with db.read() as session:
        row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(token)))
        if row is None or row.revoked or row.expires_at <= utcnow() or (kind and row.kind != kind):
            return None
        if row.kind not in ("api", "session"):  # a password-reset link is no credential
            return None
        user = session.get(User, row.user_id)
        return user if user is not None and user.active else None


def revoke_token(db: Database, token: str) -> None:
    """Revoke a token (logout)."""
    with db.read() as session:
        row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(token)))
        if row is not None:
            row.revoked = True


def record_failed_login(db: Database, username: str, addresses: Sequence[str], events: Sequence[str]) -> None:
    """A failed login in the server log and the audit log (``login_failed``), and each lock or slow-down
    it caused (``login_locked``). The name is recorded only when it could be a user name."""
    name = username.strip()
    where = ", ".join(addresses)
    with db.write() as session:
        known = None
        if USERNAME_PATTERN.fullmatch(name):
            known = session.scalar(select(User.username).where(func.lower(User.username) == name.lower()))
        # The account's own spelling when it exists, so one account's failures share one target.
        target = f"user:{known or name.lower()}" if USERNAME_PATTERN.fullmatch(name) else "user:(not a user name)"
        log.warning("failed login for %s from %s", target[5:], where)
        for event in events:
            log.warning("login throttle: %s %s", target, event)
        audit(session, None, "login_failed", target, f"from {where}")
        for event in events:
            audit(session, None, "login_locked", target, event)


def record_login(db: Database, user_id: int) -> None:
    """Remember when the account last logged in (the hosts' user list shows it)."""
    with db.write() as session:
        user = session.get(User, user_id)
        if user is not None:
            user.last_login_at = utcnow()


def check_active(user: User) -> None:
    """Refuse an account that is waiting for approval or disabled (after a correct password)."""
    if user.status == "pending":
        raise Forbidden("account_pending", "your account waits for the challenge hosts' approval")
    if user.status == "disabled":
        raise Forbidden("account_disabled", "this account is disabled; ask the challenge hosts")
