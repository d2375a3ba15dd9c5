"""Every route of the app, checked against the one visibility policy
(:func:`capeval.server.domain.visibility.access`) for an anonymous visitor, the submitting
participant, another team and a host, in every ``scores_visible`` mode."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from sqlalchemy import select
from starlette.routing import Mount

from capeval.server.domain.visibility import SCORES_VISIBLE_MODES, access
from capeval.server.models import Phase, Result, Submission, User, utcnow

from .support import all_routes, make_server, split_ids

MARKER = "quokka"
#: (label, scores_visible, phase ends in the past)
MODES = [
    ("always", "always", False),
    ("after_end-open", "after_end", False),
    ("after_end-ended", "after_end", True),
    ("never", "never", False),
]


def _fill(path: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


@pytest.mark.parametrize(("label", "mode", "ended"), MODES, ids=[m[0] for m in MODES])
def test_every_route_follows_the_policy(tmp_path, label, mode, ended):
    assert {m[1] for m in MODES} == set(SCORES_VISIBLE_MODES)
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    owner = server.register("owner")
    other = server.register("other")
    host = server.host_token()
    ids = split_ids()[0]
    items = [{"image_id": i, "caption": f"a {MARKER} number {i} sits"} for i in ids]
    r = server.submit(owner, items, query="?method_name=policy-probe")
    assert r.status_code == 202, r.text
    sid = r.json()["id"]
    assert server.run_jobs() >= 1
    with server.db.write() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "val"))
        phase.scores_visible = mode
        phase.ends_at = utcnow() + (timedelta(days=-1) if ended else timedelta(days=1))
    with server.db.read() as session:
        result = session.scalar(select(Result).where(Result.submission_id == sid))
        scores = json.loads(result.scores_json)
    needles = [repr(scores["cider-d"]), f"{scores['cider-d']:.6f}"]
    viewers = {"anonymous": None, "owner": owner, "other": other, "host": host}
    values = {
        "slug": "coco-demo",
        "phase": "val",
        "submission_id": str(sid),
        "split": "val",
        "action": "baseline",
        "token_id": "1",
        "username": "owner",
        "team_id": "1",
        "token": "x" * 40,
    }
    routes = [r for r in all_routes(server.app) if not isinstance(r, Mount)]
    checked = 0
    for viewer, token in viewers.items():
        headers = {"authorization": f"Bearer {token}"} if token else {}
        with server.db.read() as session:
            user = None
            if token:
                user = session.scalar(
                    select(User).where(User.username == {"owner": "owner", "other": "other", "host": "host"}[viewer])
                )
            submission = session.get(Submission, sid)
            acc = access(user, submission, submission.phase)
        for route in routes:
            for method in sorted(route.methods or ()):
                if method == "HEAD":
                    continue
                url = _fill(route.path, values)
                if method != "GET":
                    if "host" in route.path or route.path.endswith(("/rerun", "/cancel", "/baseline")):
                        r = server.client.request(method, url, headers=headers, follow_redirects=False)
                        if not acc.host:
                            assert 400 <= r.status_code < 500, (viewer, method, url, r.status_code)
                        checked += 1
                    continue
                r = server.client.get(url, headers=headers, follow_redirects=False)
                body = r.text
                checked += 1
                assert r.status_code < 500, (viewer, url, r.status_code)
                if not acc.scores:
                    assert not any(n in body for n in needles), (label, viewer, url)
                if route.path.endswith("/file"):
                    # The uploaded file is the team's own bytes: details (team and hosts), never others.
                    assert (r.status_code == 200) == acc.details, (label, viewer, url, r.status_code)
                elif not acc.items("val"):
                    assert MARKER not in body, (label, viewer, url)
                if "/images/" in route.path:
                    assert (r.status_code == 200) == acc.items("val"), (label, viewer, url, r.status_code)
                    if r.status_code == 200:
                        assert MARKER in body
                if route.path == "/api/v1/submissions/{submission_id}":
                    assert (r.status_code == 200) == acc.details, (label, viewer, r.status_code)
                    if acc.details:
                        assert (r.json()["results"]["val"]["scores"] is not None) == acc.scores
                        assert ("jobs" in r.json()) == acc.host
                if route.path == "/api/v1/challenges/{slug}/leaderboard":
                    entry = next(e for s in r.json()["splits"] for e in s["entries"] if e["submission_id"] == sid)
                    assert (entry["scores"] is not None) == acc.scores
                    if not acc.scores:
                        assert entry["vs_baseline"] is None
                if route.path == "/c/{slug}/leaderboard.csv" and acc.scores:
                    assert needles[1] in body
    # Policy expectations, stated once more in words:
    assert checked > 60
    server.client.close()
    server.db.dispose()


def test_policy_table():
    class P:
        def __init__(self, mode, ended):
            self.scores_visible = mode
            self.ends_at = utcnow() + timedelta(days=-1 if ended else 1)
            self.splits = [
                type("S", (), {"name": "val", "visibility": "public"})(),
                type("S", (), {"name": "test", "visibility": "hidden"})(),
            ]

    class U:
        def __init__(self, team, host=False):
            self.team_id, self.is_host = team, host

    sub = type("Sub", (), {"team_id": 1, "is_public": True, "is_baseline": False})()
    for _, mode, ended in MODES:
        shown = mode == "always" or (mode == "after_end" and ended)
        for viewer, details in ((None, False), (U(1), True), (U(2), False), (U(3, True), True)):
            acc = access(viewer, sub, P(mode, ended))
            is_host = viewer is not None and viewer.is_host
            assert acc.listed and acc.details == details and acc.host == is_host
            assert acc.scores == (shown or is_host)
            assert acc.item_splits == (frozenset({"val"}) if details and (shown or is_host) else frozenset())
