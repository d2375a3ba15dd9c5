"""``capeval admin`` on a server's database: a lost host password, accounts, challenges installed
while the server runs, exports, backups restored to the same leaderboard (SQLite and PostgreSQL)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import text

from capeval.cli.main import main

from .support import DATA, HOST_PASSWORD, database_url, make_server, reset_postgres, results_for, split_ids


def _admin(server, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["admin", "--database-url", server.settings.database_url, *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _token_status(server, username: str, password: str) -> int:
    return server.client.post("/api/v1/tokens", json={"username": username, "password": password}).status_code


def test_a_lost_host_password_is_reset_on_the_machine(server, capsys, monkeypatch):
    session = server.host_token()
    code, out, _ = _admin(server, capsys, "reset-password", "host")
    assert code == 0 and "revoked" in out
    password = out.split("new password: ", 1)[1].strip()
    assert _token_status(server, "host", HOST_PASSWORD) == 401
    assert _token_status(server, "host", password) == 201
    assert server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {session}"}).status_code == 401
    monkeypatch.setenv("CAPEVAL_NEW_PASSWORD", "chosen-by-the-host")
    code, out, _ = _admin(server, capsys, "reset-password", "HOST")
    assert code == 0 and "new password" not in out
    assert _token_status(server, "host", "chosen-by-the-host") == 201
    monkeypatch.delenv("CAPEVAL_NEW_PASSWORD")
    monkeypatch.setattr("sys.stdin", io.StringIO("from-standard-input\n"))
    assert _admin(server, capsys, "reset-password", "host", "--password-stdin")[0] == 0
    assert _token_status(server, "host", "from-standard-input") == 201
    code, _, err = _admin(server, capsys, "reset-password", "nobody")
    assert code == 1 and "no user" in err
    audit = server.client.get(
        "/api/v1/audit", headers={"Authorization": f"Bearer {server.host_token_with('from-standard-input')}"}
    ).json()
    rows = [r for r in audit if r["action"] == "set_password"]
    assert len(rows) == 3 and all(r["actor"] == "system" and r["target"] == "user:host" for r in rows)


def test_accounts_and_teams_from_the_command_line(server, capsys):
    server.register("cli-user", team="Cli Team")
    code, out, _ = _admin(server, capsys, "users")
    assert code == 0 and "cli-user" in out and "Cli Team" in out
    assert _admin(server, capsys, "disable", "cli-user")[0] == 0
    assert _token_status(server, "cli-user", "password-123") == 403
    assert _admin(server, capsys, "enable", "cli-user")[0] == 0
    assert _admin(server, capsys, "move", "cli-user", "Other Team", "--create")[0] == 0
    code, out, _ = _admin(server, capsys, "teams")
    assert "Other Team" in out and "cli-user" in out
    code, out, _ = _admin(server, capsys, "reset-link", "cli-user", "--base-url", "https://eval.example.org/")
    assert code == 0 and out.startswith("https://eval.example.org/reset/cpv_")
    code, out, _ = _admin(server, capsys, "roster")
    assert out.splitlines()[0].startswith("username,team,host,status")


def test_install_while_the_server_runs_and_export(server, capsys, tmp_path):
    val, test = split_ids()
    config = tmp_path / "more.toml"
    refs = (DATA / "captions_val2014_demo_subset.json").as_posix()
    config.write_text(
        f"""
[[challenge]]
slug = "later"
title = "Added later"
[[challenge.splits]]
name = "val"
references = "{refs}"
image_ids = {json.dumps(val)}
[[challenge.phases]]
name = "val"
splits = ["val"]
"""
    )
    code, out, _ = _admin(server, capsys, "install", str(config))
    assert code == 0 and "challenge 'later' installed" in out
    assert "later" in {c["slug"] for c in server.client.get("/api/v1/challenges").json()}
    token = server.register("exp")
    server.submit(token, results_for(val))
    server.run_jobs()
    target = tmp_path / "val.zip"
    code, out, _ = _admin(server, capsys, "export", "coco-demo", "val", "-o", str(target))
    assert code == 0 and "submission(s)" in out
    names = zipfile.ZipFile(target).namelist()
    assert {"manifest.json", "scores.csv", "roster.csv", "per-image/val.csv"} <= set(names)


def _leaderboard(server) -> dict:
    board = server.client.get("/api/v1/challenges/coco-demo/leaderboard?all=1").json()
    return {s["split"]: [(e["submission_id"], e["team"], e["scores"]) for e in s["entries"]] for s in board["splits"]}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_backup_wipe_restore_gives_the_same_leaderboard(tmp_path, capsys, backend):
    url = database_url(tmp_path, backend)
    server = make_server(url)
    token = server.register("keeper", team="Keepers")
    server.submit(token, results_for(split_ids()[0]), query="?method_name=kept")
    server.run_jobs()
    before = _leaderboard(server)
    assert any(team == "Keepers" for _, team, _ in before["val"])
    backup = tmp_path / ("capeval.dump" if backend == "postgres" else "capeval-backup.db")
    assert main(["admin", "--database-url", url, "backup", str(backup)]) == 0
    server.client.close()
    server.db.dispose()
    if backend == "postgres":
        reset_postgres(url)
    else:
        for path in (tmp_path / "data").iterdir():
            path.unlink()
    assert main(["admin", "--database-url", url, "restore", str(backup), "--yes"]) == 0
    restored = make_server(url)
    assert _leaderboard(restored) == before
    assert _token_status(restored, "keeper", "password-123") == 201
    with restored.db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM upload_file")).scalar() == 1  # the upload, byte for byte
    restored.client.close()
    restored.db.dispose()
    capsys.readouterr()


def test_restore_refuses_to_replace_a_database_without_yes(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'capeval.db'}"
    server = make_server(url)
    backup = tmp_path / "b.db"
    assert main(["admin", "--database-url", url, "backup", str(backup)]) == 0
    assert main(["admin", "--database-url", url, "restore", str(backup)]) == 2
    assert "--yes" in capsys.readouterr().err
    server.client.close()
    server.db.dispose()
    assert Path(backup).stat().st_size > 0
