"""Hidden references: walk every route as a participant and check that no test reference text
and no per-image test score ever appears in a response (pages, API, OpenAPI, exports, errors)."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest
from sqlalchemy import select
from starlette.routing import Mount

from capeval.server.models import Phase, Result, Split

from .support import all_routes, demo_references, make_server, results_for, split_ids


def _secrets(server, val_ids, test_ids):
    refs = demo_references()
    public_text = {c for i in val_ids for c in refs[i]} | {r["caption"] for r in results_for(val_ids + test_ids)}
    captions = {c for i in test_ids for c in refs[i] if len(c.strip()) >= 20 and c not in public_text}
    with server.db.read() as session:
        test_split = session.scalar(select(Split).where(Split.name == "test"))
        public_values = set()  # values that may legitimately appear (val per-image, corpus scores)
        per_image = set()
        for row in session.scalars(select(Result)):
            public_values.update(json.loads(row.scores_json).values())
            items = json.loads(row.items_json)
            for values in items["item_scores"].values():
                (per_image if row.split_id == test_split.id else public_values).update(values)
    per_image -= public_values
    assert len(captions) > 50 and sum(len(repr(v)) >= 10 for v in per_image) > 20
    needles = set()
    for text in captions:
        needles |= {text, html.escape(text), json.dumps(text)[1:-1]}
    for value in per_image:
        if len(repr(value)) >= 10:  # full-precision floats; short ones like 0.3 are not distinctive
            needles.add(repr(value))
    return needles


def _fill(path, values):
    names = re.findall(r"{(\w+)(?::\w+)?}", path)
    if not names:
        return [path]
    out = []
    for combo in itertools.product(*(values.get(n, ["x"]) for n in names)):
        filled = path
        for name, value in zip(names, combo, strict=True):
            filled = re.sub(r"{" + name + r"(?::\w+)?}", str(value), filled)
        out.append(filled)
    return out


@pytest.mark.parametrize("visibility", ["always", "after_end"])
def test_no_test_reference_or_per_image_test_score_leaks(tmp_path, visibility):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with server.db.read() as session:
        session.scalar(select(Phase).where(Phase.name == "test")).scores_visible = visibility
    val_ids, test_ids = split_ids()
    token = server.register("eve")
    other = server.register("other")
    auth = {"Authorization": f"Bearer {token}"}
    sids = {}
    for phase, ids, tok in (("val", val_ids, token), ("test", test_ids, token), ("test", test_ids, other)):
        r = server.submit(tok, results_for(ids), phase=phase, query="?public=false")
        assert r.status_code == 202, r.text
        sids[(phase, tok)] = r.json()["id"]
    server.run_jobs()
    needles = _secrets(server, val_ids, test_ids)
    submission_ids = [*sids.values(), 1, 2, 999_999]  # 1, 2: the host's baselines
    values = {
        "slug": ["coco-demo", "nope"],
        "phase": ["val", "test"],
        "submission_id": submission_ids,
        "split": ["val", "test"],
        "action": ["rerun", "cancel", "baseline"],
        "token_id": ["999999"],  # not the caller's own token: revoking it would end the walk
    }
    openapi = server.client.get("/openapi.json", headers=auth).json()
    walked_templates = set()
    responses = []
    for route in all_routes(server.app):
        if isinstance(route, Mount):
            for name in ("app.js", "style.css", "missing.css"):
                responses.append(server.client.get(f"{route.path}/{name}"))
            continue
        walked_templates.add(route.path)
        for method in sorted(route.methods or []):
            if method == "HEAD":
                continue
            for url in _fill(route.path, values):
                for accept in ("application/json", "text/html"):
                    headers = {**auth, "accept": accept}
                    if method == "GET":
                        responses.append(server.client.get(url, headers=headers))
                    else:
                        if url.endswith("/logout"):
                            continue
                        body = json.dumps(results_for(test_ids)) if "phases/test" in url else "{}"
                        responses.append(
                            server.client.request(
                                method, url, content=body, headers={**headers, "content-type": "application/json"}
                            )
                        )
    for url in (
        "/nope",
        "/c/nope",
        "/api/v1/nope",
        "/submissions/abc",
        f"/submissions/{sids[('test', token)]}/images/test",
    ):
        for accept in ("application/json", "text/html"):
            responses.append(server.client.get(url, headers={**auth, "accept": accept}))
    assert set(openapi["paths"]) <= walked_templates
    assert len(responses) > 200
    statuses = {r.status_code for r in responses}
    assert 200 in statuses and 403 in statuses and 404 in statuses
    for r in responses:
        body = r.text
        for needle in needles:
            assert needle not in body, (r.request.method, str(r.request.url), needle)
    # The participant does see their own val drill-down with its references.
    r = server.client.get(f"/api/v1/submissions/{sids[('val', token)]}/images/val", headers=auth)
    assert r.status_code == 200 and r.json()["images"][0]["references"]
    # ... and corpus test scores only when the phase allows.
    view = server.client.get(f"/api/v1/submissions/{sids[('test', token)]}", headers=auth).json()
    assert (view["results"]["test"]["scores"] is None) == (visibility == "after_end")
