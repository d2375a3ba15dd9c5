"""Storage: the migrations match the models, SQLite pragmas, and the streaming body limit on a
real socket (the server answers 413 long before a chunked body has been sent in full)."""

from __future__ import annotations

import socket
import time

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from capeval.server.db import Database, upgrade_schema
from capeval.server.models import Base, User

from .support import LiveServer, make_server


def test_migrations_match_models(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    upgrade_schema(db)
    with db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_sqlite_pragmas(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_chunked_body_cut_off_at_the_limit(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", max_upload_bytes=50_000)
    token = server.register("bob")
    chunk = b" " * 16_384
    sent = 0
    answer = b""
    with LiveServer(server.app) as live, socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(
            (
                "POST /api/v1/challenges/coco-demo/phases/val/submissions HTTP/1.1\r\n"
                "Host: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                f"Authorization: Bearer {token}\r\n\r\n"
            ).encode()
        )
        sock.setblocking(False)
        deadline = time.monotonic() + 20
        while sent < 20_000_000 and time.monotonic() < deadline:
            try:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                sent += len(chunk)
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                time.sleep(0.01)
            try:
                answer += sock.recv(65536)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                break
            if b"\r\n\r\n" in answer:
                break
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    # Refused long before the 20 MB body was sent (what was sent beyond the limit sits in socket buffers).
    assert sent < 10_000_000


def test_upgrade_from_first_revision_keeps_data(tmp_path):
    from alembic import command
    from sqlalchemy import text

    from capeval.server.db import _alembic_config

    db = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    config = _alembic_config(db)
    command.upgrade(config, "0001")
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO team (name, created_at) VALUES ('old team', CURRENT_TIMESTAMP)"))
    upgrade_schema(db)
    with db.engine.connect() as conn:
        name, code = conn.execute(text("SELECT name, join_code FROM team")).one()
    assert name == "old team" and len(code) >= 12


def test_joining_a_team_needs_its_code(server):
    alice = server.register("alice", team="red")
    r = server.client.post("/api/v1/register", json={"username": "mole", "password": "password-123", "team": "red"})
    assert r.status_code == 403 and "join code" in r.json()["detail"]
    code = server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {alice}"}).json()["team_join_code"]
    r = server.client.post(
        "/api/v1/register", json={"username": "mole", "password": "password-123", "team": "red", "team_code": "nope"}
    )
    assert r.status_code == 403
    server.register("bob", team="red", team_code=code)


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_upgrade_keys_team_names_and_keeps_teams_that_differ_by_case(tmp_path, backend):
    """Revision 0005 gives each team its comparison key; teams registered before it under names that
    differ only by case both survive (the later one's key carries its id), and new registrations
    reach the first."""
    from alembic import command
    from sqlalchemy import text

    from capeval.server.db import _alembic_config
    from capeval.server.services.accounts import create_user

    from .support import database_url

    db = Database(database_url(tmp_path, backend))
    command.upgrade(_alembic_config(db), "0004")
    with db.engine.begin() as conn:
        for name in ("VisionLab", "visionlab", "Other"):
            conn.execute(
                text("INSERT INTO team (name, join_code, created_at) VALUES (:n, :c, CURRENT_TIMESTAMP)"),
                {"n": name, "c": f"code-{name}"},
            )
    upgrade_schema(db)
    with db.engine.connect() as conn:
        rows = conn.execute(text("SELECT name, name_key FROM team ORDER BY id")).all()
    assert [r[0] for r in rows] == ["VisionLab", "visionlab", "Other"]
    assert rows[0][1] == "visionlab" and rows[1][1].startswith("visionlab\x1f") and rows[2][1] == "other"
    user = create_user(db, "newcomer", "password-123", team_name="VISIONLAB", team_code="code-VisionLab")
    with db.read() as session:
        assert session.get(User, user.id).team.name == "VisionLab"
    db.dispose()
