"""Happy path: register, upload, score, leaderboard; scores equal the library's."""

from __future__ import annotations

import json

from capeval.server.models import Result
from capeval.server.scoring import score_split

from .support import METRICS, TOKENIZER, demo_references, results_for, split_ids


def test_upload_score_leaderboard(server):
    token = server.register("alice")
    auth = {"Authorization": f"Bearer {token}"}
    val_ids, _ = split_ids()
    r = server.submit(token, results_for(val_ids), query="?method_name=mine")
    assert r.status_code == 202, r.text
    sid = r.json()["id"]
    assert server.run_jobs() == 3  # two baselines + this one
    r = server.client.get(f"/api/v1/submissions/{sid}", headers=auth)
    data = r.json()
    assert data["status"] == "finished", data
    scores = data["results"]["val"]["scores"]
    refs = demo_references()
    cands = {x["image_id"]: x["caption"] for x in results_for(val_ids)}
    expected = json.loads(
        score_split(cands, {i: refs[i] for i in val_ids}, metrics=METRICS, tokenizer=TOKENIZER)["scores_json"]
    )
    assert scores == expected
    page = server.client.get("/c/coco-demo")
    assert page.status_code == 200
    assert "mine" in page.text
    with server.db.read() as s:
        assert s.query(Result).count() == 3
