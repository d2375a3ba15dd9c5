"""Host actions: edit phases and splits, hide/restore entries, cancel only unfinished jobs, API
tokens, registration modes and team size. Each is audited and refused (403) to participants."""

from __future__ import annotations

import json

import pytest

from .support import results_for, split_ids


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


def _audit(server):
    host = _auth(server.host_token())
    return server.client.get("/api/v1/audit", headers=host).json()


def _upload(server, token):
    r = server.submit(token, results_for(split_ids()[0]))
    assert r.status_code == 202, r.text
    return r.json()["id"]


HOST_ACTIONS = [
    ("PATCH", "/api/v1/challenges/coco-demo/phases/val", {"max_total": 1}),
    ("PATCH", "/api/v1/challenges/coco-demo/splits/test", {"visibility": "public"}),
    ("POST", "/api/v1/submissions/{sid}/hide", None),
    ("POST", "/api/v1/submissions/{sid}/hide?value=false", None),
    ("POST", "/api/v1/submissions/{sid}/cancel", None),
    ("PUT", "/api/v1/registration", {"mode": "closed"}),
]


@pytest.mark.parametrize(("method", "path", "body"), HOST_ACTIONS)
def test_host_actions_refused_to_participants(server, method, path, body):
    token = server.register("alice")
    sid = _upload(server, token)
    before = len(_audit(server))
    r = server.client.request(method, path.format(sid=sid), json=body, headers=_auth(token))
    assert r.status_code == 403 and r.json()["error"] == "host_only"
    assert len(_audit(server)) == before  # nothing changed, nothing logged


def test_edit_phase_limits_dates_visibility_audited_and_enforced(server):
    host = _auth(server.host_token())
    token = server.register("alice")
    url = "/api/v1/challenges/coco-demo/phases/val"
    r = server.client.patch(url, json={"max_total": 1, "scores_visible": "after_end"}, headers=host)
    assert r.status_code == 200, r.text
    assert r.json()["phase"]["max_total"] == 1 and r.json()["phase"]["scores_visible"] == "after_end"
    assert set(r.json()["changed"]) == {"max_total", "scores_visible"}
    _upload(server, token)
    second = server.submit(token, results_for(split_ids()[0]))
    assert second.status_code == 429 and second.json()["error"] == "limit_total"
    # Limits back to none; dates validated.
    assert server.client.patch(url, json={"max_total": None}, headers=host).json()["phase"]["max_total"] is None
    bad = server.client.patch(
        url, json={"starts_at": "2030-01-02T00:00:00Z", "ends_at": "2030-01-01T00:00:00Z"}, headers=host
    )
    assert bad.status_code == 400 and bad.json()["error"] == "bad_dates"
    assert server.client.patch(url, json={"max_total": -1}, headers=host).status_code == 400
    assert server.client.patch(url, json={"scores_visible": "sometimes"}, headers=host).status_code == 400
    assert server.client.patch(url, json={"colour": "red"}, headers=host).status_code == 400
    r = server.client.patch(url, json={"ends_at": "2020-01-01T00:00:00Z"}, headers=host)
    assert r.json()["phase"]["ends_at"].startswith("2020-01-01")
    closed = server.submit(token, results_for(split_ids()[0]))
    assert closed.status_code == 403 and closed.json()["error"] == "phase_closed"
    edits = [row for row in _audit(server) if row["action"] == "edit_phase"]
    assert len(edits) == 3 and "max_total: 1 -> null" in edits[1]["detail"]
    # Split visibility.
    split = "/api/v1/challenges/coco-demo/splits/test"
    assert server.client.patch(split, json={"visibility": "public"}, headers=host).json()["changed"] is True
    assert server.client.patch(split, json={"visibility": "secret"}, headers=host).status_code == 400
    summary = server.client.get("/api/v1/challenges/coco-demo").json()
    assert next(s for s in summary["splits"] if s["name"] == "test")["visibility"] == "public"
    assert any(row["action"] == "edit_split" for row in _audit(server))


def test_hide_and_restore_entry(server):
    host = _auth(server.host_token())
    token = server.register("alice")
    sid = _upload(server, token)
    server.run_jobs()

    def listed(headers=None):
        board = server.client.get("/api/v1/challenges/coco-demo/leaderboard", headers=headers or {}).json()
        return sid in {e["submission_id"] for s in board["splits"] for e in s["entries"]}

    assert listed()
    assert server.client.post(f"/api/v1/submissions/{sid}/hide", headers=host).json()["hidden"] is True
    assert not listed() and not listed(_auth(token)) and listed(host)
    assert server.client.post(f"/api/v1/submissions/{sid}/hide?value=false", headers=host).status_code == 200
    assert listed()
    actions = [row["action"] for row in _audit(server)]
    assert "hide" in actions and "restore" in actions


def test_cancel_only_unfinished(server):
    host = _auth(server.host_token())
    token = server.register("alice")
    sid = _upload(server, token)
    server.run_jobs()
    r = server.client.post(f"/api/v1/submissions/{sid}/cancel", headers=host)
    assert r.status_code == 409 and r.json()["error"] == "not_cancellable"
    queued = server.submit(token, results_for(split_ids()[0])).json()["id"]
    assert server.client.post(f"/api/v1/submissions/{queued}/cancel", headers=host).status_code == 200


def test_list_and_revoke_tokens(server):
    alice = server.register("alice")
    bob = server.register("bob")
    host_token = server.host_token()
    mine = server.client.get("/api/v1/tokens", headers=_auth(alice)).json()
    assert len(mine) == 1 and mine[0]["user"] == "alice" and "token" not in mine[0] and mine[0]["active"]
    everyone = server.client.get("/api/v1/tokens", headers=_auth(host_token)).json()
    assert {"alice", "bob", "host"} <= {t["user"] for t in everyone}
    bob_id = next(t["id"] for t in everyone if t["user"] == "bob")
    # Alice cannot revoke Bob's token; the host can.
    assert server.client.delete(f"/api/v1/tokens/{bob_id}", headers=_auth(alice)).status_code == 404
    assert server.client.delete(f"/api/v1/tokens/{bob_id}", headers=_auth(host_token)).status_code == 200
    assert server.client.get("/api/v1/me", headers=_auth(bob)).status_code == 401
    # Alice revokes her own.
    assert server.client.delete(f"/api/v1/tokens/{mine[0]['id']}", headers=_auth(alice)).status_code == 200
    assert server.client.get("/api/v1/me", headers=_auth(alice)).status_code == 401
    revokes = [row for row in _audit(server) if row["action"] == "revoke_token"]
    assert len(revokes) == 2


def test_registration_modes_and_team_size(server):
    host = _auth(server.host_token())
    body = {"username": "erin", "password": "password-123", "team": "E"}
    r = server.client.put("/api/v1/registration", json={"mode": "closed"}, headers=host)
    assert r.status_code == 200 and r.json()["mode"] == "closed"
    refused = server.client.post("/api/v1/register", json=body)
    assert refused.status_code == 403 and refused.json()["error"] == "registration_closed"
    r = server.client.put("/api/v1/registration", json={"mode": "invite", "team_size": 1}, headers=host)
    code = r.json()["invite_code"]
    assert code and r.json()["team_size"] == 1
    assert server.client.post("/api/v1/register", json=body).json()["error"] == "invite_code"
    assert server.client.post("/api/v1/register", json={**body, "invite_code": code}).status_code == 201
    me = server.client.post("/api/v1/tokens", json={"username": "erin", "password": "password-123"}).json()["token"]
    join = server.client.get("/api/v1/me", headers=_auth(me)).json()["team_join_code"]
    second = {"username": "frank", "password": "password-123", "team": "E", "team_code": join, "invite_code": code}
    full = server.client.post("/api/v1/register", json=second)
    assert full.status_code == 403 and full.json()["error"] == "team_full"
    # Participants see the mode, never the code.
    seen = server.client.get("/api/v1/registration", headers=_auth(me)).json()
    assert seen == {"mode": "invite", "team_size": 1}
    server.client.put("/api/v1/registration", json={"mode": "open", "team_size": None}, headers=host)
    assert server.client.post("/api/v1/register", json={**second, "invite_code": None}).status_code == 201
    assert [row["action"] for row in _audit(server)].count("edit_registration") == 3


def test_uploaded_file_is_kept_and_downloadable(server):
    import hashlib

    token = server.register("alice")
    other = server.register("bob")
    host = _auth(server.host_token())
    body = json.dumps(results_for(split_ids()[0]), indent=1).encode()
    r = server.client.post(
        "/api/v1/challenges/coco-demo/phases/val/submissions",
        content=body,
        headers={**_auth(token), "content-type": "application/json"},
    )
    sid = r.json()["id"]
    for headers in (_auth(token), host):
        got = server.client.get(f"/api/v1/submissions/{sid}/file", headers=headers)
        assert got.status_code == 200 and got.content == body
        assert got.headers["x-content-sha256"] == hashlib.sha256(body).hexdigest()
        assert got.headers["content-disposition"].startswith("attachment")
    assert server.client.get(f"/api/v1/submissions/{sid}/file", headers=_auth(other)).status_code == 404
    assert server.client.get(f"/api/v1/submissions/{sid}/file").status_code == 401
    assert any(row["action"] == "download_file" for row in _audit(server))
