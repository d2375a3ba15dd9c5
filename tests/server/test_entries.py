"""What a participant needs: the expected image ids, a ranked one-row-per-team leaderboard, choosing
the team's representative entry, withdrawing an entry."""

from __future__ import annotations

import json

from .support import results_for, split_ids

BOARD = "/api/v1/challenges/coco-demo/leaderboard"


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


def _val(board):
    return next(s for s in board["splits"] if s["split"] == "val")


def _upload(server, token, caption=None, method="m"):
    items = results_for(split_ids()[0])
    if caption is not None:
        items = [{"image_id": r["image_id"], "caption": caption} for r in items]
    r = server.submit(token, items, query=f"?method_name={method}")
    assert r.status_code == 202, r.text
    return r.json()["id"]


def test_image_ids_listed_downloadable_and_templated(server):
    val_ids, test_ids = split_ids()
    summary = server.client.get("/api/v1/challenges/coco-demo").json()
    phase = next(p for p in summary["phases"] if p["name"] == "val")
    ids = server.client.get(phase["image_ids_url"]).json()
    assert ids == {"challenge": "coco-demo", "phase": "val", "n_images": len(val_ids), "image_ids": sorted(val_ids)}
    # A hidden split's ids are given too (only its references stay on the server).
    hidden = server.client.get("/api/v1/challenges/coco-demo/splits/test/image_ids").json()
    assert hidden["image_ids"] == sorted(test_ids) and "references" not in json.dumps(hidden)
    txt = server.client.get(phase["image_ids_url"] + "?format=txt")
    assert txt.status_code == 200 and txt.text.split() == [str(i) for i in sorted(val_ids)]
    assert "attachment" in txt.headers["content-disposition"]
    assert server.client.get(phase["image_ids_url"] + "?format=xml").status_code == 400
    assert server.client.get("/api/v1/challenges/coco-demo/splits/nope/image_ids").status_code == 404
    template = server.client.get(phase["template_url"])
    assert template.json() == [{"image_id": i, "caption": ""} for i in sorted(val_ids)]
    page = server.client.get("/c/coco-demo").text
    assert phase["image_ids_url"] in page and phase["template_url"] in page


def test_missing_images_error_points_to_the_ids(server):
    token = server.register("alice")
    r = server.submit(token, results_for(split_ids()[0])[:3])
    assert r.status_code == 422 and r.json()["error"] == "missing_images"
    assert "/api/v1/challenges/coco-demo/phases/val/image_ids" in r.json()["detail"]
    assert "template.json" in r.json()["detail"]


def test_one_ranked_row_per_team_and_all_on_demand(server):
    alice = server.register("alice", team="A")
    bob = server.register("bob", team="B")
    weak = _upload(server, alice, caption="a picture", method="weak")
    strong = _upload(server, alice, method="strong")
    other = _upload(server, bob, caption="a man", method="bob")
    server.run_jobs()
    everything = _val(server.client.get(BOARD).json())
    assert {weak, strong, other} <= {e["submission_id"] for e in everything["entries"]}
    assert everything["ranked_by"] == "cider-d"
    ciders = [e["scores"]["cider-d"] for e in everything["entries"]]
    assert ciders == sorted(ciders, reverse=True)  # best first
    teams = server.client.get(BOARD + "?all=0").json()
    assert teams["view"] == "teams"
    rows = [e for e in _val(teams)["entries"] if not e["baseline"]]
    assert sorted(e["team"] for e in rows) == ["A", "B"]
    a_row = next(e for e in rows if e["team"] == "A")
    assert a_row["submission_id"] == strong  # its best entry by CIDEr-D
    assert sorted(e["rank"] for e in rows) == [1, 2]
    assert all(e["rank"] is None for e in _val(teams)["entries"] if e["baseline"])
    # The page shows one row per team by default, every entry with ?all=1, and a rank column.
    page = server.client.get("/c/coco-demo").text
    assert f'data-submission="{strong}"' in page and f'data-submission="{weak}"' not in page
    assert '<td class="rank' in page and ">#</button>" in page
    assert f'data-submission="{weak}"' in server.client.get("/c/coco-demo?all=1").text
    csv_rows = server.client.get("/c/coco-demo/leaderboard.csv").text.splitlines()
    assert csv_rows[0].startswith("split,rank,submission_id")


def test_team_chooses_its_representative_entry(server):
    alice = server.register("alice", team="A")
    bob = server.register("bob", team="B")
    weak = _upload(server, alice, caption="a picture", method="weak")
    strong = _upload(server, alice, method="strong")
    queued = _upload(server, alice, method="queued")
    server.run_jobs()
    # Bob cannot choose for team A; nobody chooses an unknown entry.
    assert server.client.post(f"/api/v1/submissions/{weak}/representative", headers=_auth(bob)).status_code == 404
    assert server.client.post("/api/v1/submissions/999999/representative", headers=_auth(alice)).status_code == 404
    r = server.client.post(f"/api/v1/submissions/{weak}/representative", headers=_auth(alice))
    assert r.status_code == 200 and r.json() == {
        "submission_id": weak,
        "status": "finished",
        "representative": True,
        "withdrawn": False,
    }
    rows = _val(server.client.get(BOARD + "?all=0").json())["entries"]
    a_row = next(e for e in rows if e["team"] == "A")
    assert a_row["submission_id"] == weak and a_row["representative"]
    # Choosing another entry releases the first choice.
    server.client.post(f"/api/v1/submissions/{strong}/representative", headers=_auth(alice))
    view = server.client.get(f"/api/v1/submissions/{weak}", headers=_auth(alice)).json()
    assert view["representative"] is False
    rows = _val(server.client.get(BOARD + "?all=0").json())["entries"]
    assert next(e for e in rows if e["team"] == "A")["submission_id"] == strong
    # Releasing the choice falls back to the best entry.
    r = server.client.post(f"/api/v1/submissions/{strong}/representative?value=false", headers=_auth(alice))
    assert r.json()["representative"] is False
    host = {"Authorization": f"Bearer {server.host_token()}"}
    actions = [row["action"] for row in server.client.get("/api/v1/audit", headers=host).json()]
    assert "choose_representative" in actions and "unchoose_representative" in actions
    del queued


def test_unfinished_entry_cannot_represent(server):
    alice = server.register("alice")
    sid = _upload(server, alice)
    r = server.client.post(f"/api/v1/submissions/{sid}/representative", headers=_auth(alice))
    assert r.status_code == 409 and r.json()["error"] == "not_finished"


def test_withdraw_own_entry_needs_confirmation(server):
    alice = server.register("alice", team="A")
    bob = server.register("bob", team="B")
    sid = _upload(server, alice, method="mine")
    server.run_jobs()
    url = f"/api/v1/submissions/{sid}/withdraw"
    r = server.client.post(url, headers=_auth(alice), json={})
    assert r.status_code == 400 and r.json()["error"] == "confirm_required"
    assert server.client.post(url, headers=_auth(bob), json={"confirm": True}).status_code == 404
    quota_before = server.client.get("/api/v1/challenges/coco-demo", headers=_auth(alice)).json()["quota"]["val"]
    r = server.client.post(url, headers=_auth(alice), json={"confirm": True})
    assert r.status_code == 200 and r.json()["withdrawn"] and r.json()["status"] == "finished"
    assert sid not in {e["submission_id"] for s in server.client.get(BOARD).json()["splits"] for e in s["entries"]}
    # A finished entry's scores were seen: it still counts against the quota.
    quota = server.client.get("/api/v1/challenges/coco-demo", headers=_auth(alice)).json()["quota"]["val"]
    assert quota["total"] == quota_before["total"]
    assert server.client.post(url, headers=_auth(alice), json={"confirm": True}).status_code == 409
    r = server.client.post(f"/api/v1/submissions/{sid}/representative", headers=_auth(alice))
    assert r.status_code == 409
    host = {"Authorization": f"Bearer {server.host_token()}"}
    audit = server.client.get("/api/v1/audit", headers=host).json()
    assert any(row["action"] == "withdraw" and row["target"] == f"submission:{sid}" for row in audit)


def test_withdraw_unfinished_entry_cancels_its_job(server):
    alice = server.register("alice")
    sid = _upload(server, alice)
    r = server.client.post(f"/api/v1/submissions/{sid}/withdraw", headers=_auth(alice), json={"confirm": True})
    assert r.json()["status"] == "cancelled"
    server.run_jobs()
    view = server.client.get(f"/api/v1/submissions/{sid}", headers=_auth(alice)).json()
    assert view["status"] == "cancelled" and view["results"] == {} and view["withdrawn_at"]


def test_upload_form_keeps_its_state_and_the_quota_after_an_error(server):
    from .support import csrf_token

    server.register("mallory")
    login = {"username": "mallory", "password": "password-123", "csrf_token": csrf_token(server.client)}
    assert server.client.post("/login", data=login, follow_redirects=False).status_code == 303
    token = csrf_token(server.client, "/c/coco-demo/submit")
    form = {"phase": "test", "method_name": "my method", "method_description": "two\nlines", "csrf_token": token}
    short = json.dumps(results_for(split_ids()[1])[:2]).encode()
    r = server.client.post("/c/coco-demo/submit", data=form, files={"file": ("r.json", short, "application/json")})
    assert r.status_code == 422 and "/phases/test/image_ids" in r.text
    assert (
        '<option value="test" selected>' in r.text
        and 'value="my method"' in r.text
        and ">two\nlines</textarea>" in r.text
    )
    assert "Your team's usage" in r.text
    assert 'id="public" value="yes" checked' not in r.text  # unticked in the form that failed stays unticked


def test_team_edits_its_entry_others_are_refused(server):
    alice = server.register("alice", team="A")
    bob = server.register("bob", team="B")
    sid = _upload(server, alice, method="first name")
    server.run_jobs()
    url = f"/api/v1/submissions/{sid}"
    edit = {"method_name": "  better name ", "method_description": "two\nlines", "public": False}
    r = server.client.patch(url, headers=_auth(alice), json=edit)
    assert r.status_code == 200, r.text
    assert set(r.json()["changed"]) == {"method_name", "method_description", "public"}
    view = r.json()["submission"]
    assert (view["method_name"], view["method_description"], view["public"]) == ("better name", "two\nlines", False)
    # Private now: gone from the public leaderboard, still on the team's.
    assert sid not in {e["submission_id"] for s in server.client.get(BOARD).json()["splits"] for e in s["entries"]}
    mine = server.client.get(BOARD, headers=_auth(alice)).json()
    assert sid in {e["submission_id"] for s in mine["splits"] for e in s["entries"]}
    # Only the fields sent change; an unchanged value changes nothing and logs nothing.
    r = server.client.patch(url, headers=_auth(alice), json={"public": True})
    assert r.json()["changed"] == {"public": "false -> true"} and r.json()["submission"]["method_name"] == "better name"
    assert server.client.patch(url, headers=_auth(alice), json={"public": True}).json()["changed"] == {}
    host = _auth(server.host_token())
    rows = [a for a in server.client.get("/api/v1/audit", headers=host).json() if a["action"] == "edit_entry"]
    assert len(rows) == 2 and all(a["target"] == f"submission:{sid}" and a["actor"] == "alice" for a in rows)
    assert '"first name" -> "better name"' in rows[-1]["detail"]
    # Another team, a host (not the owner) and anonymous visitors cannot edit it; nothing is logged.
    assert server.client.patch(url, headers=_auth(bob), json={"public": False}).status_code == 404
    assert server.client.patch(url, headers=host, json={"public": False}).status_code == 404
    assert server.client.patch(url, json={"public": False}).status_code == 401
    assert (
        server.client.patch("/api/v1/submissions/999999", headers=_auth(alice), json={"public": False}).status_code
        == 404
    )
    bad = [
        {},
        {"public": None},
        {"public": "maybe"},
        {"method_name": 3},
        {"method_name": "a\nb"},
        {"method_name": "x" * 201},
        {"method_description": "bell\x07"},
        {"method_description": "x" * 5001},
        {"status": "finished"},
    ]
    for body in bad:
        r = server.client.patch(url, headers=_auth(alice), json=body)
        assert r.status_code == 400, (body, r.status_code, r.text)
        assert r.json()["error"] and r.json()["detail"]
    r = server.client.patch(
        url,
        headers=_auth(alice),
        content=b"[1]",
    )
    assert r.status_code == 400
    rows = [a for a in server.client.get("/api/v1/audit", headers=host).json() if a["action"] == "edit_entry"]
    assert len(rows) == 2
    # A withdrawn entry stays as it was.
    server.client.post(f"/api/v1/submissions/{sid}/withdraw", headers=_auth(alice), json={"confirm": True})
    r = server.client.patch(url, headers=_auth(alice), json={"method_name": "late"})
    assert r.status_code == 409 and r.json()["error"] == "withdrawn"


def test_edit_page_owner_only_with_csrf(server):
    from .support import csrf_token

    alice = server.register("alice", team="A")
    server.register("bob", team="B")
    sid = _upload(server, alice, method="web name")
    browser = server.client
    login = {"username": "bob", "password": "password-123", "csrf_token": csrf_token(browser)}
    assert browser.post("/login", data=login, follow_redirects=False).status_code == 303
    html = {"accept": "text/html"}
    assert browser.get(f"/submissions/{sid}/edit", headers=html).status_code == 404
    token = csrf_token(browser, "/")
    form = {"method_name": "stolen", "csrf_token": token}
    assert browser.post(f"/submissions/{sid}/edit", data=form, headers=html).status_code == 404
    browser.post("/logout", data={"csrf_token": token})
    login = {"username": "alice", "password": "password-123", "csrf_token": csrf_token(browser)}
    assert browser.post("/login", data=login, follow_redirects=False).status_code == 303
    page = browser.get(f"/submissions/{sid}/edit", headers=html)
    assert (
        page.status_code == 200 and 'value="web name"' in page.text and 'id="public" value="yes" checked' in page.text
    )
    # Without the CSRF token: refused, nothing changes.
    r = browser.post(f"/submissions/{sid}/edit", data={"method_name": "forged"}, headers=html)
    assert r.status_code == 403
    token = csrf_token(browser, f"/submissions/{sid}/edit")
    # A bad value: the form comes back with what was typed and the error.
    r = browser.post(
        f"/submissions/{sid}/edit", data={"method_name": "x" * 201, "csrf_token": token, "public": "yes"}, headers=html
    )
    assert r.status_code == 400 and "at most 200" in r.text and 'value="' + "x" * 201 + '"' in r.text
    # The box left unticked makes the entry private.
    form = {"method_name": "edited on the page", "method_description": "desc", "csrf_token": token}
    r = browser.post(f"/submissions/{sid}/edit", data=form, headers=html, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/submissions/{sid}?done=edited"
    view = browser.get(f"/api/v1/submissions/{sid}", headers=_auth(alice)).json()
    assert (view["method_name"], view["method_description"], view["public"]) == ("edited on the page", "desc", False)
    assert "edited on the page" in browser.get(f"/submissions/{sid}?done=edited", headers=html).text
