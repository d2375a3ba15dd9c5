"""Host actions: edit phases and splits, hide/restore entries, cancel only unfinished jobs, API
tokens, registration modes and team size. Each is audited and refused (403) to participants."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

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
    assert seen == {"mode": "invite", "team_size": 1, "per_address_hour": 10}
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


def test_host_panel_pages_and_filters(server):
    from .support import HOST_PASSWORD, csrf_token

    teams = {"alpha": "Alpha lab", "beta": "BETA lab", "gamma": "gamma lab"}
    tokens = {u: server.register(u, team=t) for u, t in teams.items()}
    mine = {u: [_upload(server, tok) for _ in range(3 if u == "alpha" else 2)] for u, tok in tokens.items()}
    server.run_jobs()
    extra = _upload(server, tokens["gamma"])  # still queued
    host = _auth(server.host_token())
    api = "/api/v1/host/submissions"
    everything = server.client.get(api, headers=host, params={"per_page": 500}).json()
    total = everything["total"]
    baselines = sum(s["baseline"] for s in everything["submissions"])
    assert total == len(everything["submissions"]) == 8 + baselines
    ids = [s["id"] for s in everything["submissions"]]
    assert ids == sorted(ids, reverse=True) and extra == ids[0]
    # Page boundaries: full pages, then the rest, then nothing past the last page.
    pages = -(-total // 5)
    seen = []
    for page in range(1, pages + 1):
        r = server.client.get(api, headers=host, params={"per_page": 5, "page": page}).json()
        assert r["pages"] == pages and r["page"] == page
        assert len(r["submissions"]) == (5 if page < pages else total - 5 * (pages - 1))
        seen += [s["id"] for s in r["submissions"]]
    assert seen == ids
    r = server.client.get(api, headers=host, params={"per_page": 5, "page": pages + 1})
    assert r.status_code == 400 and r.json()["error"] == "bad_page" and f"{pages} page(s)" in r.json()["detail"]
    # Filters: part of a team name in any case, a phase, a status; together.
    names = lambda r: {s["team"] for s in r.json()["submissions"]}  # noqa: E731
    assert names(server.client.get(api, headers=host, params={"team": "ALPHA"})) == {"Alpha lab"}
    assert server.client.get(api, headers=host, params={"team": "Lab"}).json()["total"] == 8
    assert server.client.get(api, headers=host, params={"team": "%"}).json()["total"] == 0  # no wildcards
    r = server.client.get(api, headers=host, params={"status": "queued"}).json()
    assert [s["id"] for s in r["submissions"]] == [extra]
    r = server.client.get(api, headers=host, params={"phase": "coco-demo/test"}).json()
    assert r["total"] < total and all(s["phase"] == "test" for s in r["submissions"])
    r = server.client.get(api, headers=host, params={"phase": "coco-demo/val", "team": "gamma", "status": "finished"})
    assert [s["id"] for s in r.json()["submissions"]] == sorted(mine["gamma"], reverse=True)
    # Bad values: a clear 400 (404 for a phase that does not exist), as JSON and as a page; never a 5xx.
    bad = [
        {"page": "0"},
        {"page": "-1"},
        {"page": "two"},
        {"page": "1e3"},
        {"page": "9" * 30},
        {"page": "٣"},
        {"per_page": "4"},
        {"per_page": "501"},
        {"status": "done"},
        {"phase": "val"},
        {"phase": "a/b/c"},
        {"team": "x" * 201},
        {"team": "a\x00b"},
        [("page", "1"), ("page", "2")],
    ]
    html = {"accept": "text/html"}
    login = {"username": "host", "password": HOST_PASSWORD, "csrf_token": csrf_token(server.client)}
    assert server.client.post("/login", data=login, follow_redirects=False).status_code == 303
    for params in bad:
        r = server.client.get(api, headers=host, params=params)
        assert r.status_code == 400 and r.json()["error"].startswith("bad_"), (params, r.status_code, r.text)
        page = server.client.get("/host", headers=html, params=params)
        assert page.status_code == 400 and "<h1>400</h1>" in page.text, (params, page.status_code)
    r = server.client.get(api, headers=host, params={"phase": "coco-demo/nope"})
    assert r.status_code == 404 and "coco-demo/nope" in r.json()["detail"]
    # The panel: one page of rows, links to the other pages keep the filters.
    page = server.client.get("/host", headers=html, params={"team": "lab", "per_page": 5}).text
    assert page.count('<tr data-submission="') == 5 and "1–5 of 8 matching the filters" in page
    assert 'href="/host?team=lab&amp;per_page=5&amp;page=2#submissions"' in page
    assert 'id="filter-team" value="lab"' in page  # the filter form shows the filter
    last = server.client.get("/host", headers=html, params={"team": "lab", "per_page": 5, "page": 2}).text
    assert last.count('<tr data-submission="') == 3 and "6–8 of 8" in last and "page-next" not in last
    assert 'href="/host?team=lab&amp;per_page=5#submissions"' in last  # back to the first page
    # A host action returns to the page and filters it came from (re-written, never a raw value).
    token = csrf_token(server.client, "/host")
    form = {"csrf_token": token, "filters": "team=lab&per_page=5&page=2&evil=https://x.example"}
    r = server.client.post(f"/host/submissions/{mine['alpha'][0]}/hide", data=form, follow_redirects=False)
    assert r.headers["location"] == "/host?done=hide&team=lab&per_page=5&page=2#submissions"
    # Back from an action that emptied the page the host was on: the last page, not an error.
    after = server.client.get("/host", headers=html, params={"done": "cancel", "team": "lab", "per_page": 5, "page": 9})
    assert after.status_code == 200 and "page 2 of 2" in after.text and "6–8 of 8" in after.text
    assert server.client.get("/host", headers=html, params={"team": "lab", "per_page": 5, "page": 9}).status_code == 400
    form["filters"] = "page=zero"
    r = server.client.post(f"/host/submissions/{mine['alpha'][0]}/restore", data=form, follow_redirects=False)
    assert r.headers["location"] == "/host?done=restore#submissions"
    # Participants get neither the list nor the panel.
    assert server.client.get(api, headers=_auth(tokens["alpha"])).status_code == 403
    with TestClient(server.app) as anonymous:
        assert anonymous.get(api).status_code == 401
        assert anonymous.get("/host", headers=html, follow_redirects=False).status_code in (401, 303)
