"""A host's operations: accounts and teams (disable, move, rename, merge), password-reset links,
challenges created and changed while the server runs, exports of a phase and the roster, forms
that keep their input, the login that comes back to the page asked for."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from datetime import datetime

from fastapi.testclient import TestClient

from .support import HOST_PASSWORD, challenge_definition, challenge_files, csrf_token, results_for, split_ids

#: ISO 8601 with seconds and a zone.
ISO_SECONDS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\+00:00|Z)$")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _audit(server) -> list[dict]:
    return server.client.get("/api/v1/audit", headers=_auth(server.host_token())).json()


def _web_login(client, username: str, password: str = "password-123", next_page: str | None = None):
    data = {"username": username, "password": password, "csrf_token": csrf_token(client)}
    if next_page is not None:
        data["next"] = next_page
    return client.post("/login", data=data, follow_redirects=False)


def test_hosts_list_disable_and_enable_accounts(server):
    host = _auth(server.host_token())
    token = server.register("mallory", team="M")
    users = {u["username"]: u for u in server.client.get("/api/v1/users", headers=host).json()}
    assert users["mallory"]["team"] == "M" and users["mallory"]["status"] == "active"
    assert ISO_SECONDS.match(users["mallory"]["created_at"]) and users["mallory"]["last_login_at"]
    r = server.client.post("/api/v1/users/mallory/status", json={"status": "disabled"}, headers=host)
    assert r.status_code == 200 and r.json()["previous"] == "active"
    assert server.client.get("/api/v1/me", headers=_auth(token)).status_code == 401
    r = server.client.post("/api/v1/tokens", json={"username": "mallory", "password": "password-123"})
    assert r.status_code == 403 and r.json()["error"] == "account_disabled"
    r = server.client.post("/api/v1/users/mallory/status", json={"status": "active"}, headers=host)
    assert r.status_code == 200
    r = server.client.post("/api/v1/tokens", json={"username": "mallory", "password": "password-123"})
    assert r.status_code == 201
    token = r.json()["token"]
    # A host cannot lock the hosts out.
    r = server.client.post("/api/v1/users/host/status", json={"status": "disabled"}, headers=host)
    assert r.status_code == 409
    assert server.client.get("/api/v1/users", headers=_auth(token)).status_code == 403
    actions = [row["action"] for row in _audit(server)]
    assert "disable_user" in actions and "enable_user" in actions


def test_move_rename_and_merge_teams(server):
    host = _auth(server.host_token())
    ann = server.register("ann", team="Alpha")
    server.register("bo", team="Beta")
    sid = server.submit(ann, results_for(split_ids()[0])).json()["id"]
    r = server.client.post("/api/v1/users/bo/team", json={"team": "alpha"}, headers=host)
    assert r.status_code == 200 and r.json()["team"] == "Alpha"
    teams = {t["name"]: t for t in server.client.get("/api/v1/teams", headers=host).json()}
    assert teams["Alpha"]["members"] == ["ann", "bo"] and teams["Beta"]["members"] == []
    r = server.client.post("/api/v1/users/bo/team", json={"team": "Nowhere"}, headers=host)
    assert r.status_code == 404
    assert server.client.post("/api/v1/users/bo/team", json={"team": "Gamma", "create": True}, headers=host).is_success
    gamma = next(t for t in server.client.get("/api/v1/teams", headers=host).json() if t["name"] == "Gamma")
    r = server.client.patch(f"/api/v1/teams/{gamma['id']}", json={"name": "ALPHA"}, headers=host)
    assert r.status_code == 409  # names compare without case
    assert server.client.patch(f"/api/v1/teams/{gamma['id']}", json={"name": "Gamma Lab"}, headers=host).is_success
    alpha = teams["Alpha"]["id"]
    r = server.client.post(f"/api/v1/teams/{alpha}/merge", json={"into": gamma["id"]}, headers=host)
    assert r.status_code == 200 and r.json()["members"] == 1 and r.json()["submissions"] == 1
    view = server.client.get(f"/api/v1/submissions/{sid}", headers=_auth(ann)).json()
    assert view["team"] == "Gamma Lab"
    quota = server.client.get("/api/v1/challenges/coco-demo", headers=_auth(ann)).json()["quota"]["val"]
    assert quota["total"] == 1  # the merged team's limits count the moved submission
    names = {t["name"] for t in server.client.get("/api/v1/teams", headers=host).json()}
    assert "Alpha" not in names and "Gamma Lab" in names
    actions = [row["action"] for row in _audit(server)]
    for action in ("move_user", "rename_team", "merge_teams"):
        assert action in actions


def test_a_hosts_reset_link_sets_a_new_password_once(server):
    host = _auth(server.host_token())
    old = server.register("forgetful")
    r = server.client.post("/api/v1/users/forgetful/reset-link", headers=host)
    assert r.status_code == 200
    url = r.json()["url"]
    token = url.rsplit("/", 1)[1]
    assert ISO_SECONDS.match(r.json()["expires_at"])
    assert server.client.get("/api/v1/me", headers=_auth(token)).status_code == 401  # not a credential
    browser = TestClient(server.app)
    page = browser.get(f"/reset/{token}", headers={"accept": "text/html"})
    assert page.status_code == 200 and "forgetful" in page.text
    form = {
        "new_password": "brand-new-pass",
        "new_password2": "brand-new-pass",
        "csrf_token": csrf_token(browser, f"/reset/{token}"),
    }
    r = browser.post(f"/reset/{token}", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login?done=reset"
    assert server.client.get("/api/v1/me", headers=_auth(old)).status_code == 401  # old tokens revoked
    assert server.client.post("/api/v1/tokens", json={"username": "forgetful", "password": "brand-new-pass"}).is_success
    again = server.client.post("/api/v1/password-reset", json={"token": token, "new_password": "another-pass-1"})
    assert again.status_code == 404
    actions = [row["action"] for row in _audit(server)]
    assert "reset_link" in actions and "password_reset" in actions
    browser.close()


def test_a_challenge_is_created_and_changed_while_the_server_runs(server):
    host = _auth(server.host_token())
    files = [("files", (name, data, "application/json")) for name, data in challenge_files().items()]
    r = server.client.post(
        "/api/v1/challenges", data={"definition": challenge_definition("second")}, files=files, headers=host
    )
    assert r.status_code == 201, r.text
    assert r.json()["phases"][1]["starts_at"] == "2029-12-31T22:00:00+00:00"  # given at +02:00
    assert [c["slug"] for c in server.client.get("/api/v1/challenges").json()] == ["coco-demo", "second"]
    again = server.client.post(
        "/api/v1/challenges", data={"definition": challenge_definition("second")}, files=files, headers=host
    )
    assert again.status_code == 409
    missing = server.client.post(
        "/api/v1/challenges", data={"definition": challenge_definition("third")}, files=files[:1], headers=host
    )
    assert missing.status_code == 400 and "test-refs.json" in missing.json()["detail"]
    participant = server.register("early-bird")
    upload = server.client.post(
        "/api/v1/challenges/second/phases/val/submissions",
        content=json.dumps(results_for(split_ids()[0])),
        headers={**_auth(participant), "content-type": "application/json"},
    )
    assert upload.status_code == 202, upload.text
    server.run_jobs()
    board = server.client.get("/api/v1/challenges/second/leaderboard").json()
    entries = board["splits"][0]["entries"]
    assert len(entries) == 2 and any(e["baseline"] for e in entries)  # the baseline and the upload, scored
    # Title and phases change at once; references only while nobody submitted to them.
    r = server.client.patch("/api/v1/challenges/second", json={"title": "Second challenge, renamed"}, headers=host)
    assert r.status_code == 200 and server.client.get("/api/v1/challenges/second").json()["title"].endswith("renamed")
    phase = {"name": "extra", "splits": ["val", "test"], "ends_at": "2031-01-01T00:00:00Z", "max_total": 2}
    r = server.client.post("/api/v1/challenges/second/phases", json=phase, headers=host)
    assert r.status_code == 201 and r.json()["max_total"] == 2 and r.json()["max_per_day"] is None, r.text
    val_file = challenge_files()["val-refs.json"]
    r = server.client.put(
        "/api/v1/challenges/second/splits/val/references",
        files={"file": ("v.json", val_file, "application/json")},
        headers=host,
    )
    assert r.status_code == 409 and "can no longer change" in r.json()["detail"]
    test_file = challenge_files()["test-refs.json"]
    r = server.client.put(
        "/api/v1/challenges/second/splits/test/references",
        content=test_file,
        headers={**host, "content-type": "application/json"},
    )
    assert r.status_code == 200, r.text  # nobody submitted to a phase scoring the test split yet
    assert server.client.delete("/api/v1/challenges/second/phases/extra", headers=host).status_code == 200
    assert server.client.delete("/api/v1/challenges/second/phases/val", headers=host).status_code == 409
    actions = [row["action"] for row in _audit(server)]
    for action in (
        "install_challenge",
        "install_baseline",
        "edit_challenge",
        "add_phase",
        "delete_phase",
        "replace_references",
    ):
        assert action in actions, action


def test_phase_export_holds_every_submission_scores_and_roster(server):
    host = _auth(server.host_token())
    token = server.register("exporter", team="Exporters")
    items = results_for(split_ids()[0])
    sid = server.submit(token, items, query="?method_name=mine").json()["id"]
    server.run_jobs()
    r = server.client.get("/api/v1/challenges/coco-demo/phases/val/export.zip", headers=host)
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    manifest = json.loads(archive.read("manifest.json"))
    entry = next(s for s in manifest["submissions"] if s["id"] == sid)
    assert entry["team"] == "Exporters" and entry["method_name"] == "mine" and entry["status"] == "finished"
    assert json.loads(archive.read(entry["file"])) == items
    for moment in (
        manifest["exported_at"],
        entry["created_at"],
        entry["finished_at"],
        entry["results"]["val"]["scored_at"],
    ):
        assert ISO_SECONDS.match(moment), moment
    scores = list(csv.DictReader(io.StringIO(archive.read("scores.csv").decode())))
    mine = next(row for row in scores if row["submission_id"] == str(sid))
    assert float(mine["cider-d"]) == entry["results"]["val"]["scores"]["cider-d"]
    per_image = list(csv.DictReader(io.StringIO(archive.read("per-image/val.csv").decode())))
    rows = [row for row in per_image if row["submission_id"] == str(sid)]
    assert (
        len(rows) == len(items)
        and abs(sum(float(r["cider-d"]) for r in rows) / len(rows) - float(mine["cider-d"])) < 1e-9
    )
    roster = list(csv.DictReader(io.StringIO(archive.read("roster.csv").decode())))
    assert {"host", "exporter"} <= {row["username"] for row in roster}
    assert (
        server.client.get("/api/v1/challenges/coco-demo/phases/val/export.zip", headers=_auth(token)).status_code == 403
    )
    assert any(row["action"] == "export_phase" for row in _audit(server))
    # The leaderboard exports carry ISO 8601 times with seconds and zone too.
    board = server.client.get("/c/coco-demo/leaderboard.json?all=1").json()
    assert all(ISO_SECONDS.match(e["created_at"]) for s in board["splits"] for e in s["entries"])
    lines = list(csv.DictReader(io.StringIO(server.client.get("/c/coco-demo/leaderboard.csv?all=1").text)))
    assert lines and all(ISO_SECONDS.match(row["created_at"]) for row in lines)
    datetime.fromisoformat(lines[0]["created_at"])


def test_host_forms_keep_the_input_and_show_the_error_in_place(server):
    browser = TestClient(server.app)
    assert _web_login(browser, "host", HOST_PASSWORD).status_code == 303
    token = csrf_token(browser, "/host")
    form = {
        "csrf_token": token,
        "starts_at": "",
        "ends_at": "next tuesday",
        "max_per_day": "7",
        "max_total": "",
        "max_in_flight": "1",
        "scores_visible": "after_end",
    }
    r = browser.post("/host/phases/coco-demo/val", data=form, headers={"accept": "text/html"})
    assert r.status_code == 400
    assert 'id="error-phase-edit-coco-demo-val"' in r.text and "next tuesday" in r.text and "ISO-8601" in r.text
    row = r.text.split('id="phase-form-coco-demo-val"', 1)[1].split("</tr>", 1)[0]
    assert 'value="7"' in row and 'value="next tuesday"' in row and '"after_end" selected' in row
    assert "allow_dry_run" in row and "checked" not in row.split("allow_dry_run", 1)[1].split(">", 1)[0]
    r = browser.post("/host/registration", data={"csrf_token": token, "mode": "open", "team_size": "many"})
    assert r.status_code == 400 and 'id="error-registration-form"' in r.text and 'value="many"' in r.text
    r = browser.post("/host/users/nobody/disable", data={"csrf_token": token})
    assert r.status_code == 404 and "no user" in r.text
    definition = challenge_definition("bad slug!")
    r = browser.post("/host/challenges", data={"csrf_token": token, "definition": definition})
    assert r.status_code == 400 and 'id="error-new-challenge"' in r.text and "bad slug!" in r.text
    browser.close()


def test_the_login_comes_back_to_the_page_asked_for(server):
    server.register("wanderer")
    browser = TestClient(server.app)
    r = browser.get("/c/coco-demo/submit?x=1", headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login?next=%2Fc%2Fcoco-demo%2Fsubmit%3Fx%3D1"
    r = browser.get("/host", headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login?next=%2Fhost"
    page = browser.get("/login?next=/c/coco-demo/submit", headers={"accept": "text/html"})
    assert 'name="next" value="/c/coco-demo/submit"' in page.text
    r = _web_login(browser, "wanderer", next_page="/c/coco-demo/submit")
    assert r.status_code == 303 and r.headers["location"] == "/c/coco-demo/submit"
    for evil in ("//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)", "/a\r\nb"):
        fresh = TestClient(server.app)
        r = _web_login(fresh, "wanderer", next_page=evil)
        assert r.status_code == 303 and r.headers["location"] == "/", (evil, r.headers["location"])
        fresh.close()
    browser.close()


def test_every_request_is_in_the_access_log(server, caplog, tmp_path):
    """One line per request with the address the server decided, the method, path, status, size and
    time; a reset link's token and control characters in a path never reach the log."""
    import logging

    from capeval.server.app import configure_access_log

    with caplog.at_level(logging.INFO, logger="capeval.access"):
        server.client.get("/c/coco-demo?all=1", headers={"user-agent": "probe/1.0"})
        server.client.get("/reset/cpv_secret-token-value")
        server.client.get("/nothing%0Ahere")
    # (a record reaches the capture once per handler that sees it: count each record once)
    records = {id(r): r for r in caplog.records if r.name == "capeval.access"}
    lines = [r.getMessage() for r in records.values()]
    assert len(lines) == 3
    line = r'^testclient \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\] "GET /c/coco-demo\?all=1" 200 \d+ \d+ms "probe/1.0"$'
    assert re.match(line, lines[0]), lines[0]
    assert "secret-token" not in lines[1] and '"GET /reset/..." 404' in lines[1]
    assert "\n" not in lines[2] and "\\x0a" in lines[2]
    target = tmp_path / "logs" / "access.log"
    configure_access_log(str(target))
    try:
        server.client.get("/health")
    finally:
        configure_access_log("off")
    assert '"GET /health" 200' in target.read_text()


def test_every_score_column_has_its_official_name():
    """Every output of every metric reads by one convention (``Bleu_4``, ``CIDEr``, ``SPICE Attribute F``
    next to ``SPICE Attribute P``): official names where the metric has them, never a raw key."""
    from capeval.registry import get_metric, list_metrics
    from capeval.server.web.templating import metric_label

    labels = {}
    for key in list_metrics():
        metric = get_metric(key, tokenizer="none")
        for output in metric.outputs:
            label = metric_label(output)
            assert label != output, output
            assert label == metric.official_names.get(output, label), output
            labels[output] = label
    assert len(set(labels.values())) == len(labels)
    assert labels["spice-attribute-f"] == "SPICE Attribute F" and labels["spice-attribute-pr"] == "SPICE Attribute P"
    assert labels["spice-pr"] == "SPICE P" and labels["spice"] == "SPICE" and labels["bleu-4"] == "Bleu_4"


def test_my_submissions_shows_each_entrys_state_and_scores(server):
    token = server.register("lister")
    first = server.submit(token, results_for(split_ids()[0]), query="?method_name=first").json()["id"]
    server.run_jobs()
    second = server.submit(token, results_for(split_ids()[0]), query="?method_name=second").json()["id"]
    page = server.client.get("/submissions", headers={**_auth(token), "accept": "text/html"}).text
    row = page.split(f'data-submission="{first}"', 1)[1].split("</tr>", 1)[0]
    assert "status-finished" in row and re.search(r"CIDEr \d\.\d{4}", row) and "Bleu_4" in row
    score = server.client.get(f"/api/v1/submissions/{first}", headers=_auth(token)).json()["results"]["val"]["scores"]
    assert f"{score['cider-d']:.4f}" in row
    row = page.split(f'data-submission="{second}"', 1)[1].split("</tr>", 1)[0]
    assert "status-queued" in row and "being scored" in row
    assert "Times are UTC" in page
    challenge = server.client.get("/c/coco-demo", headers={"accept": "text/html"}).text
    assert "reset at 00:00 UTC" in challenge
