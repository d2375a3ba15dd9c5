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
    assert 'id="public" checked' not in r.text  # unticked in the form that failed stays unticked
