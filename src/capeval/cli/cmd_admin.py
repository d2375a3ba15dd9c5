"""``capeval admin``: look after an evaluation server's database from the machine it runs on.

Reset a password (a host's lost password included), list and manage accounts and teams, install
the challenges of a config file while the server runs, export a phase or the roster, back up and
restore the database. The database is found as ``capeval serve`` finds it (``--config``,
``--data-dir``, ``--database-url``, ``$CAPEVAL_DATABASE_URL``); changes are audited with the
command line as the actor (see docs/server.md, "Running it for real").
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["register", "run_admin"]


def register(subparsers: Any) -> None:
    """Add the ``admin`` subcommand and its actions."""
    parser = subparsers.add_parser(
        "admin",
        help="look after an evaluation server's database (passwords, accounts, exports, backups)",
        description=(
            "Look after the database of a capeval evaluation server from its machine: reset a password, "
            "manage accounts and teams, install challenges without a restart, export, back up and restore."
        ),
    )
    parser.add_argument("--config", help="the server's TOML/JSON config file (its [server] table names the database)")
    parser.add_argument("--data-dir", help="folder of the default SQLite database (default: ./capeval-server-data)")
    parser.add_argument("--database-url", help="SQLAlchemy URL (default: as capeval serve resolves it)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    reset = actions.add_parser(
        "reset-password",
        help="set a new password (hosts included); every session and token of the account is revoked",
        description=(
            "Set a new password for USERNAME: from $CAPEVAL_NEW_PASSWORD, from standard input with "
            "--password-stdin, or a random one printed once. The account is made active if it was "
            "disabled or pending; its sessions, API tokens and reset links are revoked."
        ),
    )
    reset.add_argument("username")
    reset.add_argument("--password-stdin", action="store_true", help="read the new password from standard input")

    link = actions.add_parser("reset-link", help="print a one-time link where a user sets a new password")
    link.add_argument("username")
    link.add_argument("--base-url", required=True, help="the server's public address, e.g. https://eval.example.org")

    users = actions.add_parser("users", help="list accounts")
    users.add_argument("--status", default="", choices=["", "active", "pending", "disabled"])
    actions.add_parser("teams", help="list teams")
    for name, text in (
        ("approve", "approve a pending account"),
        ("enable", "enable a disabled account"),
        ("disable", "disable an account (its sessions and tokens are revoked)"),
    ):
        sub = actions.add_parser(name, help=text)
        sub.add_argument("username")
    move = actions.add_parser("move", help="move a user to another team (past submissions stay with the old one)")
    move.add_argument("username")
    move.add_argument("team")
    move.add_argument("--create", action="store_true", help="create the team")
    rename = actions.add_parser("rename-team", help="rename a team")
    rename.add_argument("team_id", type=int)
    rename.add_argument("name")
    merge = actions.add_parser("merge-teams", help="merge a team into another (members and submissions move)")
    merge.add_argument("team_id", type=int)
    merge.add_argument("into", type=int)

    install = actions.add_parser(
        "install", help="install the challenges of a config file into the running server's database (no restart)"
    )
    install.add_argument(
        "challenges",
        metavar="CHALLENGE_CONFIG",
        nargs="?",
        help="TOML/JSON file with [[challenge]] entries (default: the --config file)",
    )

    export = actions.add_parser("export", help="write every submission of a phase, its scores and the roster as a zip")
    export.add_argument("slug")
    export.add_argument("phase")
    export.add_argument("-o", "--output", help="zip file (default: SLUG-PHASE-export.zip)")
    roster = actions.add_parser("roster", help="write every account as CSV")
    roster.add_argument("-o", "--output", help="CSV file (default: standard output)")

    backup = actions.add_parser(
        "backup",
        help="back up the database to FILE while the server runs (SQLite: online copy; PostgreSQL: pg_dump)",
    )
    backup.add_argument("file")
    restore = actions.add_parser(
        "restore", help="restore the database from FILE (stop the server and its workers first)"
    )
    restore.add_argument("file")
    restore.add_argument("--yes", action="store_true", help="replace the current database without asking")
    parser.set_defaults(func=run_admin)


def _settings(args: argparse.Namespace) -> Any:
    from capeval.server.config import resolve_settings

    overrides = {"database_url": args.database_url, "data_dir": args.data_dir}
    settings, _ = resolve_settings(args.config, overrides=overrides)
    return settings


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    cells = [[str(row.get(c) if row.get(c) is not None else "") for c in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def _libpq_url(url: str) -> str:
    """``postgresql+psycopg://...`` -> ``postgresql://...`` (what pg_dump and pg_restore read)."""
    scheme, rest = url.split("://", 1)
    return f"postgresql://{rest}" if scheme.startswith("postgresql") else url


def _sqlite_path(url: str) -> Path:
    return Path(url.split("///", 1)[1])


def run_admin(args: argparse.Namespace) -> int:
    """Run one admin action; returns the exit status."""
    try:
        from capeval.server.db import Database, upgrade_schema
        from capeval.server.domain.errors import DomainError
    except ImportError as exc:
        from capeval._install import needs_extra

        print(f"{needs_extra('capeval admin', 'server')} ({exc})", file=sys.stderr)
        return 2
    settings = _settings(args)
    if args.action in ("backup", "restore"):
        return _backup(args, settings.database_url)
    db = Database(settings.database_url)
    try:
        upgrade_schema(db)
        return _act(args, db, settings)
    except DomainError as exc:
        print(f"capeval admin: {exc.message}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"capeval admin: {exc}", file=sys.stderr)
        return 2
    finally:
        db.dispose()


def _act(args: argparse.Namespace, db: Any, settings: Any) -> int:
    from capeval.server.services import users

    action = args.action
    if action == "reset-password":
        password = os.environ.get("CAPEVAL_NEW_PASSWORD") or ""
        if args.password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        generated = not password
        password = password or secrets.token_urlsafe(12)
        revoked = users.set_password(db, None, args.username, password, activate=True)
        print(f"password of {args.username!r} reset; {revoked} session(s)/token(s) revoked")
        if generated:
            print(f"new password: {password}")
    elif action == "reset-link":
        token, expires = users.issue_reset(db, None, args.username)
        print(f"{args.base_url.rstrip('/')}/reset/{token}")
        print(f"valid once, until {expires}", file=sys.stderr)
    elif action == "users":
        print(
            _table(
                users.list_users(db, None, status=args.status),
                ["username", "team", "host", "status", "created_at", "last_login_at", "submissions"],
            )
        )
    elif action == "teams":
        rows = [{**t, "members": ", ".join(t["members"])} for t in users.list_teams(db, None)]
        print(_table(rows, ["id", "name", "members", "submissions", "created_at"]))
    elif action in ("approve", "enable", "disable"):
        previous = users.set_user_status(db, None, args.username, "disabled" if action == "disable" else "active")
        print(f"{args.username}: {previous} -> {'disabled' if action == 'disable' else 'active'}")
    elif action == "move":
        team = users.move_user(db, None, args.username, args.team, create=args.create)
        print(f"{args.username} is now in team {team!r}")
    elif action == "rename-team":
        old = users.rename_team(db, None, args.team_id, args.name)
        print(f"team {args.team_id}: {old!r} -> {args.name.strip()!r}")
    elif action == "merge-teams":
        counts = users.merge_teams(db, None, args.team_id, args.into)
        print(
            f"team {args.team_id} merged into {args.into}: "
            f"{counts['members']} member(s), {counts['submissions']} submission(s)"
        )
    elif action == "install":
        return _install(args, db, settings)
    elif action == "export":
        from capeval.server.services.exports import write_phase_export

        output = Path(args.output or f"{args.slug}-{args.phase}-export.zip")
        with output.open("wb") as handle:
            count = write_phase_export(db, None, args.slug, args.phase, handle)
        print(f"{output}: {count} submission(s)")
    elif action == "roster":
        from capeval.server.services.exports import roster_csv

        text = roster_csv(db, None)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    return 0


def _install(args: argparse.Namespace, db: Any, settings: Any) -> int:
    from capeval.server.config import load_config_file
    from capeval.server.scoring import scorer_version
    from capeval.server.services.baselines import install_baselines
    from capeval.server.services.challenges import install_challenge

    source = args.challenges or args.config
    if not source:
        print("capeval admin: name the challenge config file (or give --config)", file=sys.stderr)
        return 2
    _, challenges = load_config_file(source)
    if not challenges:
        print(f"capeval admin: {source} holds no [[challenge]]", file=sys.stderr)
        return 2
    # Baselines are scored by the running server's workers, with the scorer they use.
    from sqlalchemy import select

    from capeval.server.models import Job

    with db.read() as session:
        version = session.scalar(select(Job.scorer_version).order_by(Job.id.desc()).limit(1))
    version = version or scorer_version(settings.metrics, settings.tokenizer)
    for challenge in challenges:
        install_challenge(db, challenge)
        print(f"challenge {challenge.slug!r} installed")
        for line in install_baselines(db, challenge, settings, version):
            print(line)
    return 0


def _backup(args: argparse.Namespace, url: str) -> int:
    path = Path(args.file)
    if url.startswith("sqlite"):
        import sqlite3

        database = _sqlite_path(url)
        if args.action == "backup":
            # SQLite's online backup: a consistent copy while the server writes (WAL included).
            source = sqlite3.connect(str(database))
            try:
                target = sqlite3.connect(str(path))
                with target:
                    source.backup(target)
                target.close()
            finally:
                source.close()
            print(f"{database} backed up to {path} ({path.stat().st_size:,} bytes)")
            return 0
        if not path.is_file():
            print(f"capeval admin: no backup file {path}", file=sys.stderr)
            return 2
        if database.exists() and not args.yes:
            print(f"capeval admin: {database} exists; add --yes to replace it (stop the server first)", file=sys.stderr)
            return 2
        database.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(path, database)
        print(f"{database} restored from {path}")
        return 0
    tool = "pg_dump" if args.action == "backup" else "pg_restore"
    if shutil.which(tool) is None:
        print(f"capeval admin: {tool} is not installed (Debian: apt-get install postgresql-client)", file=sys.stderr)
        return 2
    if args.action == "backup":
        command = [tool, "--format=custom", f"--file={path}", f"--dbname={_libpq_url(url)}"]
    else:
        if not args.yes:
            print(
                "capeval admin: restoring replaces the database's tables; add --yes (stop the server first)",
                file=sys.stderr,
            )
            return 2
        command = [tool, "--clean", "--if-exists", "--no-owner", f"--dbname={_libpq_url(url)}", str(path)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"capeval admin: {tool} failed: {done.stderr.strip()[-2000:]}", file=sys.stderr)
        return 1
    print(f"{'backed up to' if args.action == 'backup' else 'restored from'} {path}")
    return 0
