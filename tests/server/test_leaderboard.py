"""Leaderboard, exports, visibility rules, significance, host actions, health, pages; and the
scores shown by the server equal ``capeval score`` on the same file."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select
from tests.spice.grammar_fixture import default_grammar

from capeval.cli.main import main as cli_main
from capeval.server.models import Phase, utcnow

from .support import METRICS, TOKENIZER, csrf_token, demo_references, results_for, split_ids


def _upload(server, token, phase="val", items=None, query=""):
    items = items if items is not None else results_for(split_ids()[0] if phase == "val" else split_ids()[1])
    return server.submit(token, items, phase=phase, query=query)


def test_server_scores_equal_capeval_score(server, tmp_path, capsys):
    val_ids, _ = split_ids()
    items = [{"image_id": r["image_id"], "caption": r["caption"].upper()} for r in results_for(val_ids)]
    token = server.register("alice")
    sid = _upload(server, token, items=items, query="?method_name=upper").json()["id"]
    server.run_jobs()
    results = tmp_path / "results.json"
    references = tmp_path / "refs.json"
    results.write_text(json.dumps(items))
    refs = demo_references()
    references.write_text(json.dumps({str(i): refs[i] for i in val_ids}))
    argv = ["score", "--results", str(results), "--references", str(references), "--metrics", ",".join(METRICS)]
    assert cli_main([*argv, "--tokenizer", TOKENIZER, "--format", "json", "--quiet"]) == 0
    library = json.loads(capsys.readouterr().out)["capeval"]["scores"]
    auth = {"Authorization": f"Bearer {token}"}
    api = server.client.get(f"/api/v1/submissions/{sid}", headers=auth).json()["results"]["val"]["scores"]
    assert api == library  # bit-identical
    board = server.client.get("/api/v1/challenges/coco-demo/leaderboard").json()
    entry = next(e for s in board["splits"] if s["split"] == "val" for e in s["entries"] if e["submission_id"] == sid)
    assert entry["scores"] == library
    rows = list(csv.DictReader(io.StringIO(server.client.get("/c/coco-demo/leaderboard.csv").text)))
    row = next(r for r in rows if r["submission_id"] == str(sid))
    assert all(abs(float(row[k]) - v) < 5e-7 for k, v in library.items())
    page = server.client.get("/c/coco-demo").text
    assert all(f"{v:.4f}" in page for v in library.values())


def test_leaderboard_significance_badges_and_seed(server):
    token = server.register("alice")
    weak = [{"image_id": r["image_id"], "caption": "a picture"} for r in results_for(split_ids()[0])]
    _upload(server, token, items=weak, query="?method_name=weak")
    server.run_jobs()
    first = server.client.get("/api/v1/challenges/coco-demo/leaderboard").json()
    again = server.client.get("/api/v1/challenges/coco-demo/leaderboard").json()
    assert first == again  # seeded bootstrap: identical on every render
    assert first["significance"]["seed"] == server.settings.bootstrap_seed
    val = next(s for s in first["splits"] if s["split"] == "val")
    baseline = [e for e in val["entries"] if e["baseline"]]
    assert len(baseline) == 1 and baseline[0]["vs_baseline"] is None
    mine = next(e for e in val["entries"] if e["method"] == "weak")
    cider = mine["vs_baseline"]["cider-d"]
    assert cider["high"] < 0 and cider["delta"] < 0 and 0 < cider["p_value"] <= 1
    assert set(val["signatures"]) == set(METRICS) and all("v:" in s for s in val["signatures"].values())
    page = server.client.get("/c/coco-demo").text
    assert 'class="badge" title="baseline entry">B<' in page and "sig down" in page


def test_scores_hidden_until_phase_allows(server):
    with server.db.read() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "test"))
        phase.scores_visible = "after_end"
        phase.ends_at = utcnow() + timedelta(days=1)
    token = server.register("alice")
    sid = _upload(server, token, phase="test").json()["id"]
    server.run_jobs()
    auth = {"Authorization": f"Bearer {token}"}
    view = server.client.get(f"/api/v1/submissions/{sid}", headers=auth).json()
    assert view["status"] == "finished" and view["scores_hidden"] and view["results"]["test"]["scores"] is None
    board = server.client.get("/api/v1/challenges/coco-demo/leaderboard", headers=auth).json()
    test = next(s for s in board["splits"] if s["split"] == "test")
    assert test["scores_hidden"] and all(e["scores"] is None for e in test["entries"])
    assert "hidden until the phase allows" in server.client.get("/c/coco-demo").text
    host = {"Authorization": f"Bearer {server.host_token()}"}
    board = server.client.get("/api/v1/challenges/coco-demo/leaderboard", headers=host).json()
    assert all(e["scores"] for s in board["splits"] for e in s["entries"])
    with server.db.read() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "test"))
        phase.ends_at = utcnow() - timedelta(seconds=1)
    view = server.client.get(f"/api/v1/submissions/{sid}", headers=auth).json()
    assert view["results"]["test"]["scores"]["cider-d"] > 0
    # The phase is closed now: no more submissions.
    r = _upload(server, token, phase="test")
    assert r.status_code == 403 and "closed" in r.json()["detail"]


def test_private_entries_and_drilldown_rights(server):
    alice = server.register("alice")
    bob = server.register("bob")
    sid = _upload(server, alice, query="?public=false&method_name=secret").json()["id"]
    server.run_jobs()
    assert "secret" not in server.client.get("/c/coco-demo", headers={"Authorization": f"Bearer {bob}"}).text
    assert "secret" in server.client.get("/c/coco-demo", headers={"Authorization": f"Bearer {alice}"}).text
    bob_view = server.client.get(f"/api/v1/submissions/{sid}/images/val", headers={"Authorization": f"Bearer {bob}"})
    assert bob_view.status_code == 404
    mine = server.client.get(f"/api/v1/submissions/{sid}/images/val", headers={"Authorization": f"Bearer {alice}"})
    data = mine.json()
    assert mine.status_code == 200 and len(data["images"]) == len(split_ids()[0])
    assert data["worst"][0]["scores"]["cider-d"] <= data["best"][0]["scores"]["cider-d"]
    assert sum(h["count"] for h in data["histogram"]) == len(split_ids()[0])
    page = server.client.get(f"/submissions/{sid}/images/val", headers={"Authorization": f"Bearer {alice}"})
    assert page.status_code == 200 and "Histogram" in page.text


def test_host_baseline_toggle_and_audit(server):
    token = server.register("alice")
    sid = _upload(server, token).json()["id"]
    server.run_jobs()
    auth = {"Authorization": f"Bearer {token}"}
    host = {"Authorization": f"Bearer {server.host_token()}"}
    assert server.client.post(f"/api/v1/submissions/{sid}/baseline", headers=auth).status_code == 403
    assert server.client.get("/api/v1/audit", headers=auth).status_code == 403
    assert server.client.post(f"/api/v1/submissions/{sid}/baseline?value=true", headers=host).status_code == 200
    assert server.client.get(f"/api/v1/submissions/{sid}", headers=auth).json()["baseline"] is True
    actions = [a["action"] for a in server.client.get("/api/v1/audit", headers=host).json()]
    assert "set_baseline" in actions and "install_challenge" in actions
    assert server.client.get("/host", headers=host).status_code == 200
    assert server.client.get("/host", headers=auth).status_code == 403


def test_health_pages_and_accounts(server):
    health = server.client.get("/health").json()
    assert (
        health["status"] == "ok" and health["database"] in ("sqlite", "postgresql") and health["jobs"] == {"queued": 2}
    )
    for url in ("/", "/login", "/register", "/c/coco-demo", "/openapi.json", "/static/app.js"):
        assert server.client.get(url).status_code == 200, url
    assert server.client.get("/c/nope", headers={"accept": "text/html"}).status_code == 404
    r = server.client.post("/api/v1/register", json={"username": "a b", "password": "password-1"})
    assert r.status_code == 400 and "username" in r.json()["detail"]
    r = server.client.post("/api/v1/register", json={"username": "ab", "password": "short"})
    assert r.status_code == 400 and "at least 8" in r.json()["detail"]
    server.register("dave")
    r = server.client.post("/api/v1/register", json={"username": "dave", "password": "password-123"})
    assert r.status_code == 409
    r = server.client.post("/api/v1/tokens", json={"username": "dave", "password": "wrong-password"})
    assert r.status_code == 401
    r = server.client.get("/api/v1/me", headers={"Authorization": "Bearer cpv_not-a-token"})
    assert r.status_code == 401
    # Web login sets an HttpOnly session cookie; logout revokes it.
    login = {"username": "dave", "password": "password-123", "csrf_token": csrf_token(server.client)}
    r = server.client.post("/login", data=login, follow_redirects=False)
    assert r.status_code == 303 and "httponly" in r.headers["set-cookie"].lower()
    assert server.client.get("/api/v1/me").json()["username"] == "dave"
    server.client.post("/logout", data={"csrf_token": csrf_token(server.client, "/")})
    assert server.client.get("/api/v1/me").status_code == 401


def test_expired_token_is_refused(server):
    token = server.register("erin")
    with server.db.read() as session:
        from capeval.server.models import ApiToken

        for row in session.scalars(select(ApiToken)):
            row.expires_at = utcnow() - timedelta(seconds=1)
    assert server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_zip_and_multipart_uploads_are_accepted(server):
    import zipfile

    token = server.register("alice")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("captions_val2014_alice_results.json", json.dumps(results_for(split_ids()[0])))
    auth = {"Authorization": f"Bearer {token}"}
    url = "/api/v1/challenges/coco-demo/phases/val/submissions"
    r = server.client.post(url, content=buf.getvalue(), headers={**auth, "content-type": "application/zip"})
    assert r.status_code == 202, r.text
    r = server.client.post(url, files={"file": ("r.zip", buf.getvalue(), "application/octet-stream")}, headers=auth)
    assert r.status_code == 202, r.text
    r = server.client.post(
        url,
        files={"file": ("r.json", json.dumps(results_for(split_ids()[0])), "application/json")},
        data={"method_name": "form"},
        headers=auth,
    )
    assert r.status_code == 202, r.text
    assert server.run_jobs() == 5


def test_prepared_split_scoring_equals_evaluate_for_every_metric():
    """Every metric this installation can run (METEOR, SPICE, SPIDEr and the learned metrics included
    when present): the worker's prepared split, scored twice, gives bit-identical scores,
    signatures and per-item statistics to a plain ``capeval.engines.evaluate``."""
    from capeval.engines import evaluate
    from capeval.registry import list_metrics
    from capeval.server.scoring import available_metrics, prepare_split, score_split

    metrics = available_metrics(list_metrics())
    val_ids, _ = split_ids()
    ids = val_ids[:12]
    refs = demo_references()
    references = {i: refs[i] for i in ids}
    candidates = {r["image_id"]: r["caption"] for r in results_for(ids)}
    split = prepare_split(references, metrics, TOKENIZER)
    first = score_split(candidates, split, metrics=metrics, tokenizer=TOKENIZER)
    again = score_split(candidates, split, metrics=metrics, tokenizer=TOKENIZER)
    expected = evaluate(
        candidates=[candidates[i] for i in ids],
        references=[references[i] for i in ids],
        ids=ids,
        metrics=metrics,
        tokenizer=TOKENIZER,
    )
    for row in (first, again):
        assert json.loads(row["scores_json"]) == expected.scores()
        assert json.loads(row["signatures_json"]) == expected.signatures()
        items = json.loads(row["items_json"])
        for key, result in expected.results.items():
            assert items["stats"][key] == np.asarray(result.stats, dtype=float).tolist(), key


def test_a_split_is_scored_in_one_library_call_sharing_what_metrics_require(monkeypatch):
    """CIDEr-D, SPICE and SPIDEr (built from both) on one split: one ``evaluate`` call, so CIDEr-D's
    and SPICE's per-item statistics are computed once each, not again for SPIDEr."""
    from capeval.metrics.cider import CIDErD
    from capeval.metrics.spice.metric import SPICE
    from capeval.server.scoring import available_metrics, prepare_split, score_split

    default_grammar()  # SPICE's exact parser: its grammar, or a skip (never a download)
    metrics = available_metrics(("cider-d", "spice", "spider"))
    if "spider" not in metrics:
        pytest.skip("SPICE cannot run here (its parser model is missing)")
    calls: list[str] = []
    for cls in (CIDErD, SPICE):
        original = cls.item_stats

        def counted(self, *args, _original=original, _name=cls.__name__, **kwargs):
            calls.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "item_stats", counted)
    ids = split_ids()[0][:8]
    refs = demo_references()
    split = prepare_split({i: refs[i] for i in ids}, metrics, TOKENIZER)
    candidates = {r["image_id"]: r["caption"] for r in results_for(ids)}
    row = score_split(candidates, split, metrics=metrics, tokenizer=TOKENIZER)
    assert sorted(calls) == ["CIDErD", "SPICE"], calls
    scores = json.loads(row["scores_json"])
    assert {"cider-d", "spice", "spider"} <= set(scores)


def test_significance_against_a_chosen_entry(server):
    token = server.register("alice")
    weak = [{"image_id": r["image_id"], "caption": "a picture"} for r in results_for(split_ids()[0])]
    sid = _upload(server, token, items=weak, query="?method_name=weak").json()["id"]
    server.run_jobs()
    # A page view never runs the bootstrap: it asks the workers, who compute it next.
    board = server.client.get(f"/api/v1/challenges/coco-demo/leaderboard?vs={sid}").json()
    val = next(s for s in board["splits"] if s["split"] == "val")
    assert val["compared_to"] == sid and val["significance_pending"] is True
    assert server.run_jobs() == 0
    board = server.client.get(f"/api/v1/challenges/coco-demo/leaderboard?vs={sid}").json()
    val = next(s for s in board["splits"] if s["split"] == "val")
    assert val["compared_to"] == sid and val["significance_pending"] is False
    base = next(e for e in val["entries"] if e["baseline"])
    assert base["vs_baseline"]["cider-d"]["low"] > 0  # the baseline is better than the weak entry
    assert next(e for e in val["entries"] if e["submission_id"] == sid)["vs_baseline"] is None
    page = server.client.get(f"/c/coco-demo?vs={sid}").text
    assert "sig up" in page and "compare to this" in page


def test_login_throttle_and_security_headers(server):
    server.register("gina")
    for _ in range(10):
        r = server.client.post("/api/v1/tokens", json={"username": "gina", "password": "wrong-password"})
        assert r.status_code == 401
    r = server.client.post("/api/v1/tokens", json={"username": "gina", "password": "password-123"})
    assert r.status_code == 429 and "too many failed logins" in r.json()["detail"]
    login = {"username": "gina", "password": "password-123", "csrf_token": csrf_token(server.client)}
    page = server.client.post("/login", data=login)
    assert page.status_code == 429 and "too many failed logins" in page.text
    headers = server.client.get("/c/coco-demo").headers
    assert (
        headers["x-content-type-options"] == "nosniff"
        and "frame-ancestors 'none'" in headers["content-security-policy"]
    )
