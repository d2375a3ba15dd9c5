"""Hostile input: every request below gets a 4xx with a message, never a 5xx, and no quota is spent.

Runs on SQLite and, with ``CAPEVAL_TEST_POSTGRES_URL`` set, on PostgreSQL (the ``server`` fixture).
The cases cover JSON bodies (numbers past Python's int-digit limit, deep nesting, wrong types,
lone surrogates, NaN), forms, uploads (results files, zips, metadata), headers and paths.
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from sqlalchemy import func, select

from capeval.server.models import Submission

from .support import HOST_PASSWORD, csrf_token, results_for, split_ids

J = "application/json"
UPLOAD = "/api/v1/challenges/coco-demo/phases/val/submissions"
DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_INT = "9" * 5000


def _results(**change):
    items = results_for(split_ids()[0])
    items[3] = {**items[3], **change}
    return items


def _raw(items) -> bytes:
    return json.dumps(items).encode()


def _raw_with(index: int, raw_item: str) -> bytes:
    """A results file whose item ``index`` is replaced by literal JSON text (for numbers json.dumps cannot make)."""
    items = results_for(split_ids()[0])
    parts = [json.dumps(i) for i in items]
    parts[index] = raw_item
    return ("[" + ", ".join(parts) + "]").encode()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _body_cases() -> list[tuple[str, str, str, dict]]:
    """(name, method, url, request kwargs) of JSON bodies sent to the account endpoints."""
    cases = []
    bodies = {
        "huge-int-username": ('{"username": ' + HUGE_INT + ', "password": "password-123"}').encode(),
        "huge-int-team": ('{"username": "u1", "password": "password-123", "team": ' + HUGE_INT + "}").encode(),
        "deep-nesting": DEEP,
        "deep-object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        "team-object": _raw({"username": "u2", "password": "password-123", "team": {"a": 1}}),
        "team-list": _raw({"username": "u3", "password": "password-123", "team": ["x"]}),
        "team-spaces": _raw({"username": "u4", "password": "password-123", "team": "     "}),
        "team-tabs": _raw({"username": "u5", "password": "password-123", "team": "\t \u3000 "}),
        "team-line-separator": _raw({"username": "u6", "password": "password-123", "team": "a\u2028b"}),
        "team-control": _raw({"username": "u7", "password": "password-123", "team": "a\x07b"}),
        "team-too-long": _raw({"username": "u8", "password": "password-123", "team": "t" * 500}),
        "team-code-object": _raw({"username": "u9", "password": "password-123", "team_code": {"x": 1}}),
        "username-int": _raw({"username": 12, "password": "password-123"}),
        "username-bool": _raw({"username": True, "password": "password-123"}),
        "username-null": _raw({"username": None, "password": "password-123"}),
        "username-surrogate": b'{"username": "\\ud800abc", "password": "password-123"}',
        "username-unicode": _raw({"username": "\u0430lice", "password": "password-123"}),
        "username-too-long": _raw({"username": "a" * 300, "password": "password-123"}),
        "username-spaces": _raw({"username": "   ", "password": "password-123"}),
        "password-int": _raw({"username": "u10", "password": 12345678}),
        "password-surrogate": b'{"username": "u11", "password": "\\udfffpassword"}',
        "password-huge": _raw({"username": "u12", "password": "p" * 5000}),
        "password-missing": _raw({"username": "u13"}),
        "empty-object": b"{}",
        "array-body": b"[]",
        "string-body": b'"hello"',
        "number-body": b"12",
        "nan": b'{"username": NaN}',
        "infinity": b'{"username": "u14", "password": Infinity}',
        "huge-float": b'{"username": "u15", "password": 1e999}',
        "not-utf8": b'{"username": "\xff\xfe"}',
        "truncated": b'{"username": "u16", "pass',
        "garbage": b"\x00\x01\x02",
        "big-body": _raw({"username": "u17", "password": "x" * 70_000}),
        "long-string-field": _raw({"username": "u18", "password": "password-123", "team": "x" * 5000}),
    }
    for name, body in bodies.items():
        cases.append(
            (f"register-{name}", "POST", "/api/v1/register", {"content": body, "headers": {"content-type": J}})
        )
    for name in ("huge-int-username", "deep-nesting", "username-int", "password-surrogate", "nan", "array-body"):
        cases.append(
            (f"tokens-{name}", "POST", "/api/v1/tokens", {"content": bodies[name], "headers": {"content-type": J}})
        )
    cases.append(
        ("tokens-label-object", "POST", "/api/v1/tokens", {"json": {"username": "x", "password": "y", "label": {}}})
    )
    return cases


def _upload_cases(auth: dict[str, str]) -> list[tuple[str, str, str, dict]]:
    ids = split_ids()[0]
    files = {
        "huge-image-id": _raw_with(3, '{"image_id": ' + HUGE_INT + ', "caption": "a dog"}'),
        "huge-image-id-negative": _raw_with(3, '{"image_id": -' + HUGE_INT + ', "caption": "a dog"}'),
        "image-id-float": _raw(_results(image_id=1.5)),
        "image-id-string": _raw(_results(image_id="abc")),
        "image-id-bool": _raw(_results(image_id=True)),
        "image-id-exp": _raw_with(3, '{"image_id": 1e400, "caption": "a dog"}'),
        "caption-surrogate": _raw_with(3, '{"image_id": ' + str(ids[3]) + ', "caption": "\\ud800 x"}'),
        "caption-low-surrogate": _raw_with(3, '{"image_id": ' + str(ids[3]) + ', "caption": "x \\udc00"}'),
        "caption-cr": _raw(_results(caption="a dog\rsits")),
        "caption-line-separator": _raw(_results(caption="a dog\u2028sits")),
        "caption-paragraph-separator": _raw(_results(caption="a dog\u2029sits")),
        "caption-bell": _raw(_results(caption="a dog \x07")),
        "caption-c1": _raw(_results(caption="a dog \x85")),
        "caption-object": _raw(_results(caption={"text": "a dog"})),
        "caption-list": _raw(_results(caption=["a dog"])),
        "caption-huge": _raw(_results(caption="dog " * 2000)),
        "caption-empty": _raw(_results(caption="   ")),
        "caption-nan": _raw_with(3, '{"image_id": ' + str(ids[3]) + ', "caption": NaN}'),
        "deep-nesting": DEEP,
        "nested-items": _raw([[[[[[[[[[{"image_id": 1}]]]]]]]]]]),
        "object-not-list": _raw({"image_id": ids[0], "caption": "x"}),
        "empty-list": b"[]",
        "not-utf8": b'[{"image_id": 1, "caption": "\xff"}]',
        "bom-only": b"\xef\xbb\xbf",
        "whitespace": b"   \n ",
        "truncated": _raw(results_for(ids))[:-10],
        "duplicate": _raw([*results_for(ids), results_for(ids)[0]]),
        "missing-image": _raw(results_for(ids)[1:]),
        "unknown-image": _raw([*results_for(ids), {"image_id": 424242, "caption": "x"}]),
    }
    cases = []
    for name, data in files.items():
        for dry in ("false", "true"):
            cases.append(
                (
                    f"upload-{name}-dry{dry}",
                    "POST",
                    f"{UPLOAD}?dry_run={dry}",
                    {"content": data, "headers": {**auth, "content-type": J}},
                )
            )
    good = _raw(results_for(ids))
    zips = {
        "zip-garbage": b"PK\x03\x04garbage",
        "zip-two-json": _zip({"a.json": good, "b.json": good}),
        "zip-traversal": _zip({"../a.json": good}),
        "zip-nested": _zip({"a.zip": _zip({"a.json": good})}),
        "zip-surrogate": _zip({"a.json": _raw_with(3, '{"image_id": ' + str(ids[3]) + ', "caption": "\\ud800"}')}),
        "zip-huge-int": _zip({"a.json": _raw_with(3, '{"image_id": ' + HUGE_INT + ', "caption": "x"}')}),
    }
    for name, data in zips.items():
        cases.append(
            (
                f"upload-{name}",
                "POST",
                UPLOAD,
                {"content": data, "headers": {**auth, "content-type": "application/zip"}},
            )
        )
    queries = {
        "method-name-too-long": "method_name=" + "m" * 300,
        "method-name-newline": "method_name=a%0Ab",
        "method-name-control": "method_name=a%07b",
        "method-description-too-long": "method_description=" + "d" * 6000,
        "public-banana": "public=banana",
        "dry-run-banana": "dry_run=banana",
        "filename-huge": "filename=" + "f" * 2000,
    }
    for name, query in queries.items():
        cases.append(
            (f"upload-{name}", "POST", f"{UPLOAD}?{query}", {"content": good, "headers": {**auth, "content-type": J}})
        )
    others = [
        ("upload-wrong-type", "POST", UPLOAD, {"content": good, "headers": {**auth, "content-type": "text/html"}}),
        (
            "upload-unknown-phase",
            "POST",
            "/api/v1/challenges/coco-demo/phases/nope/submissions",
            {"content": good, "headers": {**auth, "content-type": J}},
        ),
        (
            "upload-unknown-challenge",
            "POST",
            "/api/v1/challenges/" + "x" * 500 + "/phases/val/submissions",
            {"content": good, "headers": {**auth, "content-type": J}},
        ),
        (
            "upload-multipart-no-file",
            "POST",
            UPLOAD,
            {"data": {"method_name": "x"}, "files": {"other": ("a.txt", b"x", "text/plain")}, "headers": auth},
        ),
        (
            "upload-multipart-file-as-text",
            "POST",
            UPLOAD,
            {"files": {"file": ("r.json", good, J), "method_name": ("m.txt", b"x", "text/plain")}, "headers": auth},
        ),
        (
            "upload-multipart-bad-boundary",
            "POST",
            UPLOAD,
            {"content": b"--zzz\r\nbroken", "headers": {**auth, "content-type": "multipart/form-data; boundary=abc"}},
        ),
        (
            "upload-multipart-control-meta",
            "POST",
            UPLOAD,
            {"data": {"method_name": "a\x07b"}, "files": {"file": ("r.json", good, J)}, "headers": auth},
        ),
        ("upload-no-auth", "POST", UPLOAD, {"content": good, "headers": {"content-type": J}}),
        (
            "upload-content-length-huge",
            "POST",
            UPLOAD,
            {"content": good, "headers": {**auth, "content-type": J, "content-length": "9" * 30}},
        ),
        (
            "upload-content-length-negative",
            "POST",
            UPLOAD,
            {"content": good, "headers": {**auth, "content-type": J, "content-length": "-5"}},
        ),
        (
            "upload-content-length-junk",
            "POST",
            UPLOAD,
            {"content": good, "headers": {**auth, "content-type": J, "content-length": "abc"}},
        ),
    ]
    return cases + others


def _header_and_path_cases(auth: dict[str, str]) -> list[tuple[str, str, str, dict]]:
    return [
        ("bearer-huge", "GET", "/api/v1/me", {"headers": {"authorization": "Bearer " + "x" * 5000}}),
        ("bearer-empty", "GET", "/api/v1/me", {"headers": {"authorization": "Bearer "}}),
        ("basic-auth", "GET", "/api/v1/me", {"headers": {"authorization": "Basic dXNlcjpwYXNz"}}),
        ("cookie-garbage", "GET", "/api/v1/me", {"headers": {"cookie": "capeval_session=" + "z" * 3000}}),
        ("submission-id-huge", "GET", "/api/v1/submissions/" + "9" * 40, {"headers": auth}),
        ("submission-id-negative", "GET", "/api/v1/submissions/-1", {"headers": auth}),
        ("submission-id-zero", "GET", "/api/v1/submissions/0", {"headers": auth}),
        ("submission-id-text", "GET", "/api/v1/submissions/abc", {"headers": auth}),
        ("submission-id-int64", "GET", f"/api/v1/submissions/{2**63}", {"headers": auth}),
        ("images-split-long", "GET", "/api/v1/submissions/1/images/" + "s" * 1000, {"headers": auth}),
        ("page-submission-huge", "GET", "/submissions/" + "9" * 40, {"headers": {**auth, "accept": "text/html"}}),
        ("vs-huge", "GET", "/c/coco-demo?vs=" + "9" * 40, {}),
        ("vs-text", "GET", "/c/coco-demo?vs=abc", {}),
        ("vs-negative", "GET", "/api/v1/challenges/coco-demo/leaderboard?vs=-3", {}),
        ("vs-json-export", "GET", "/c/coco-demo/leaderboard.json?vs=" + "1" * 30, {}),
        ("challenge-long", "GET", "/api/v1/challenges/" + "c" * 3000, {}),
        ("challenge-page-long", "GET", "/c/" + "c" * 3000, {"headers": {"accept": "text/html"}}),
        ("baseline-value-banana", "POST", "/api/v1/submissions/1/baseline?value=banana", {"headers": auth}),
        ("rerun-not-host", "POST", "/api/v1/submissions/1/rerun", {"headers": auth}),
        ("audit-not-host", "GET", "/api/v1/audit", {"headers": auth}),
        ("failed-jobs-not-host", "GET", "/api/v1/jobs/failed", {"headers": auth}),
        ("method-not-allowed", "DELETE", "/api/v1/me", {"headers": auth}),
        ("unknown-route", "GET", "/api/v1/" + "n" * 500, {}),
    ]


def _form_cases(client) -> list[tuple[str, str, str, dict]]:
    token = csrf_token(client)
    form = "application/x-www-form-urlencoded"
    return [
        ("login-no-csrf", "POST", "/login", {"data": {"username": "a", "password": "b"}}),
        ("login-bad-csrf", "POST", "/login", {"data": {"username": "a", "password": "b", "csrf_token": "0" * 64}}),
        (
            "login-csrf-object",
            "POST",
            "/login",
            {"files": {"csrf_token": ("t", b"x", "text/plain")}, "data": {"username": "a"}},
        ),
        ("login-json-body", "POST", "/login", {"json": {"username": "a", "password": "b"}}),
        ("login-too-many-fields", "POST", "/login", {"data": {f"f{i}": "x" for i in range(40)}}),
        (
            "login-cross-origin",
            "POST",
            "/login",
            {
                "data": {"username": "a", "password": "b", "csrf_token": token},
                "headers": {"origin": "http://evil.example"},
            },
        ),
        (
            "login-null-origin",
            "POST",
            "/login",
            {"data": {"username": "a", "password": "b", "csrf_token": token}, "headers": {"origin": "null"}},
        ),
        (
            "login-other-port-referer",
            "POST",
            "/login",
            {
                "data": {"username": "a", "password": "b", "csrf_token": token},
                "headers": {"referer": "http://testserver:9999/x"},
            },
        ),
        (
            "login-huge-int-username",
            "POST",
            "/login",
            {
                "content": ("username=" + HUGE_INT + "&password=x&csrf_token=" + token).encode(),
                "headers": {"content-type": form},
            },
        ),
        (
            "login-username-huge",
            "POST",
            "/login",
            {"data": {"username": "u" * 5000, "password": "b", "csrf_token": token}},
        ),
        (
            "register-form-team-spaces",
            "POST",
            "/register",
            {"data": {"username": "formuser", "password": "password-123", "team": "    ", "csrf_token": token}},
        ),
        (
            "register-surrogate-bytes",
            "POST",
            "/register",
            {
                "content": ("username=a%ED%A0%80&password=password-123&csrf_token=" + token).encode(),
                "headers": {"content-type": form},
            },
        ),
        ("register-no-csrf", "POST", "/register", {"data": {"username": "formuser2", "password": "password-123"}}),
        ("logout-no-csrf", "POST", "/logout", {"data": {}}),
        ("submit-page-anonymous-no-csrf", "POST", "/host/submissions/1/rerun", {"data": {}}),
    ]


def _check(response, name: str) -> None:
    assert 400 <= response.status_code < 500, (name, response.status_code, response.text[:300])
    ctype = response.headers.get("content-type", "")
    if ctype.startswith("application/json"):
        detail = response.json().get("detail")
        assert isinstance(detail, str) and detail, (name, response.text[:300])
    else:
        assert 'role="alert"' in response.text or 'class="error"' in response.text, (name, response.text[:300])


def _submissions(server) -> int:
    with server.db.read() as session:
        return session.scalar(select(func.count(Submission.id)))


def test_hostile_requests_get_a_4xx_with_a_message(server):
    token = server.register("mallory")
    auth = {"Authorization": f"Bearer {token}"}
    before = _submissions(server)
    cases = [*_body_cases(), *_upload_cases(auth), *_header_and_path_cases(auth)]
    browser = server.client  # cookies of an anonymous browser for the form cases
    cases += _form_cases(browser)
    assert len(cases) >= 100
    seen = set()
    for name, method, url, kwargs in cases:
        assert name not in seen, name
        seen.add(name)
        response = server.client.request(method, url, **kwargs)
        _check(response, name)
    assert _submissions(server) == before
    quota = server.client.get("/api/v1/challenges/coco-demo", headers=auth).json()["quota"]
    assert quota["val"]["total"] == 0 and quota["val"]["in_flight"] == 0


def test_dry_run_and_real_upload_refuse_a_lone_surrogate_alike(server):
    token = server.register("sam")
    ids = split_ids()[0]
    data = _raw_with(3, '{"image_id": ' + str(ids[3]) + ', "caption": "\\ud800 x"}')
    headers = {"Authorization": f"Bearer {token}", "content-type": J}
    dry = server.client.post(f"{UPLOAD}?dry_run=true", content=data, headers=headers)
    real = server.client.post(UPLOAD, content=data, headers=headers)
    assert dry.status_code == real.status_code == 400
    assert dry.json() == real.json() and "surrogate" in real.json()["detail"]


def test_browsers_get_html_errors_and_api_clients_json(tmp_path):
    from .support import make_server

    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", max_upload_bytes=10_000)
    page = server.client.get("/c/nope", headers={"accept": "text/html"})
    assert (
        page.status_code == 404 and page.headers["content-type"].startswith("text/html") and "no challenge" in page.text
    )
    api = server.client.get("/api/v1/challenges/nope", headers={"accept": "text/html"})
    assert api.status_code == 404 and api.json()["error"] == "no_challenge"
    big = b"x" * 200_000
    page = server.client.post(
        "/c/coco-demo/submit",
        content=big,
        headers={"accept": "text/html", "content-type": "multipart/form-data; boundary=x"},
    )
    assert (
        page.status_code == 413 and page.headers["content-type"].startswith("text/html") and "upload limit" in page.text
    )
    api = server.client.post(UPLOAD, content=big, headers={"content-type": J})
    assert api.status_code == 413 and api.json()["error"] == "too_large"
    server.client.close()
    server.db.dispose()


def test_csv_export_neutralizes_formulas(server):
    token = server.register("excel", team="=cmd|' /C calc'!A0")
    r = server.submit(token, results_for(split_ids()[0]), query="?method_name=%3DHYPERLINK(%22http://x%22)")
    assert r.status_code == 202, r.text
    server.run_jobs()
    text = server.client.get("/c/coco-demo/leaderboard.csv").text
    row = next(line for line in text.splitlines() if "HYPERLINK" in line)
    assert "'=HYPERLINK" in row and "'=cmd" in row
    for line in text.splitlines()[1:]:
        for cell in line.split(","):
            assert not cell.startswith(("=", "+", "@")), line


def test_a_server_failure_is_an_html_page_for_browsers_and_json_for_api_clients(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from capeval.server.web import challenges as pages

    from .support import make_server

    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")

    def broken(db):
        raise RuntimeError("database on fire")

    monkeypatch.setattr(pages, "list_challenges", broken)
    client = TestClient(server.app, raise_server_exceptions=False)
    page = client.get("/", headers={"accept": "text/html"})
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
    assert 'role="alert"' in page.text and "on fire" not in page.text
    api = client.get("/", headers={"accept": "application/json"})
    assert api.status_code == 500 and api.json()["error"] == "internal_error"
    client.close()
    server.db.dispose()


#: Writes that act on no logged-in identity (they take a username and password themselves).
NO_SESSION_WRITES = {("POST", "/api/v1/register"), ("POST", "/api/v1/tokens"), ("POST", "/api/v1/password-reset")}


def test_every_write_route_refuses_a_logged_in_browser_without_the_csrf_token(tmp_path):
    """Each form page and each cookie-authenticated API write, listed from the app's routes (so a new
    route is covered the day it is added), is refused with 403 when the session's token is missing."""
    import re

    from starlette.routing import Mount

    from .support import HOST_PASSWORD, all_routes, make_server

    srv = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    owner = srv.register("owner")
    sid = srv.submit(owner, results_for(split_ids()[0])).json()["id"]
    browser = srv.client
    login = {"username": "host", "password": HOST_PASSWORD, "csrf_token": csrf_token(browser)}
    assert browser.post("/login", data=login, follow_redirects=False).status_code == 303
    values = {
        "slug": "coco-demo",
        "phase": "val",
        "split": "val",
        "submission_id": str(sid),
        "token_id": "1",
        "team_id": "1",
        "username": "owner",
        "token": "x" * 40,
    }
    values["action"] = "hide"
    checked = 0
    for route in all_routes(srv.app):
        if isinstance(route, Mount):
            continue
        for method in sorted((route.methods or set()) - {"GET", "HEAD"}):
            if (method, route.path) in NO_SESSION_WRITES:
                continue
            url = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], route.path)
            if route.path.startswith("/api/"):
                r = browser.request(method, url, json={}, headers={"content-type": J})
            else:
                r = browser.request(method, url, data={"x": "1"}, follow_redirects=False)
            assert r.status_code == 403, (method, url, r.status_code, r.text[:200])
            assert "csrf" in r.text.lower() or "CSRF" in r.text, (method, url, r.text[:200])
            checked += 1
    assert checked >= 20
    srv.client.close()
    srv.db.dispose()


#: Forwarding headers a client can make up, one class each (and all at once).
SPOOFED_HEADERS = [
    {"x-forwarded-for": "203.0.113.9"},
    {"x-forwarded-for": "198.51.100.1, 203.0.113.10"},
    {"forwarded": "for=203.0.113.11;proto=https"},
    {"x-real-ip": "203.0.113.12"},
    {"x-forwarded-host": "evil.example", "x-forwarded-proto": "https"},
    {
        "x-forwarded-for": "203.0.113.13",
        "forwarded": "for=203.0.113.13",
        "x-real-ip": "203.0.113.13",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil.example",
    },
]


def test_made_up_forwarding_headers_never_lift_a_login_lockout(server):
    """Served as ``capeval serve`` serves it (uvicorn on 127.0.0.1, ``trust_proxy`` off): after the
    lockout, guesses carrying made-up forwarding headers are refused like the others, and so is the
    right password (uvicorn's own proxy handling would otherwise take the client address from them)."""
    import httpx

    from .support import LiveServer

    server.register("alice")
    right = {"username": "alice", "password": "password-123"}
    wrong = {"username": "alice", "password": "wrong-password"}
    with LiveServer(server.app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        for _ in range(10):
            assert http.post("/api/v1/tokens", json=wrong).status_code == 401
        assert http.post("/api/v1/tokens", json=wrong).status_code == 429
        for headers in SPOOFED_HEADERS:
            for _ in range(3):
                r = http.post("/api/v1/tokens", json=wrong, headers=headers)
                assert r.status_code == 429, (headers, r.status_code, r.text)
            r = http.post("/api/v1/tokens", json=right, headers=headers)
            assert r.status_code == 429, (headers, r.status_code, r.text)
        # Fresh made-up addresses on every guess do not help either.
        for i in range(12):
            r = http.post("/api/v1/tokens", json=wrong, headers={"x-forwarded-for": f"192.0.2.{i + 1}"})
            assert r.status_code == 429, (i, r.text)


def _web_login(client, username: str, password: str = "password-123") -> None:
    r = client.post(
        "/login",
        data={"username": username, "password": password, "csrf_token": csrf_token(client)},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text


def _entries(board: dict, split: str = "val") -> dict[int, dict]:
    return {e["submission_id"]: e for s in board["splits"] if s["split"] == split for e in s["entries"]}


def test_privacy_an_unticked_public_box_a_hidden_entry_and_the_hosts_ranks(server):
    """The web upload form without "Show on the public leaderboard" makes a private entry (a browser
    sends nothing for an unticked box); a hidden entry says so on its team's page; the host's
    leaderboard marks hidden entries and leaves them out of the ranks everyone else sees."""
    from fastapi.testclient import TestClient

    server.register("quiet", team="quiet team")
    browser = TestClient(server.app)
    _web_login(browser, "quiet")
    form = {"phase": "val", "method_name": "unlisted entry", "csrf_token": csrf_token(browser, "/c/coco-demo/submit")}
    good = _raw(results_for(split_ids()[0]))
    r = browser.post("/c/coco-demo/submit", data=form, files={"file": ("r.json", good, J)}, follow_redirects=False)
    assert r.status_code == 303, r.text
    private_id = int(r.headers["location"].rsplit("/", 1)[1])
    assert browser.get(f"/api/v1/submissions/{private_id}").json()["public"] is False
    loud = server.register("loud", team="loud team")
    hidden_id = server.submit(loud, results_for(split_ids()[0]), query="?method_name=hidden+entry").json()["id"]
    shown_id = server.submit(loud, _results(caption="a cat"), query="?method_name=shown+entry").json()["id"]
    server.run_jobs()
    anonymous = _entries(server.client.get("/api/v1/challenges/coco-demo/leaderboard").json())
    assert private_id not in anonymous and hidden_id in anonymous
    host = {"Authorization": f"Bearer {server.host_token()}"}
    assert server.client.post(f"/api/v1/submissions/{hidden_id}/hide", headers=host).status_code == 200
    page = server.client.get(f"/submissions/{hidden_id}", headers={"Authorization": f"Bearer {loud}"})
    assert "listed on the leaderboard" not in page.text and "hidden by the challenge hosts" in page.text
    anonymous = _entries(server.client.get("/api/v1/challenges/coco-demo/leaderboard").json())
    assert hidden_id not in anonymous and anonymous[shown_id]["rank"] == 1
    board_url = "/api/v1/challenges/coco-demo/leaderboard"
    mine = _entries(server.client.get(board_url, headers={"Authorization": f"Bearer {loud}"}).json())
    assert hidden_id not in mine
    hosts = _entries(server.client.get("/api/v1/challenges/coco-demo/leaderboard", headers=host).json())
    assert hosts[hidden_id]["hidden"] is True and hosts[hidden_id]["rank"] is None
    assert hosts[private_id]["public"] is False and hosts[private_id]["rank"] is None
    # The ranks a host sees are the ranks everyone sees.
    assert {k: v["rank"] for k, v in hosts.items() if k in anonymous} == {k: v["rank"] for k, v in anonymous.items()}
    html = server.client.get("/c/coco-demo?all=1", headers=host).text
    row = html.split(f'data-submission="{hidden_id}"', 1)[1].split("</tr>", 1)[0]
    assert "badge hidden" in row and 'class="rank sticky-1 num" data-value=""' in row
    browser.close()


def _quota(server, auth: dict[str, str]) -> dict:
    return server.client.get("/api/v1/challenges/coco-demo", headers=auth).json()["quota"]["val"]


def test_multipart_uploads_honour_the_query_parameters(server):
    """``curl -F file=@val.json '...?dry_run=true&method_name=x'``: the query counts as the form fields
    do; a value given in both places must agree."""
    token = server.register("multi")
    auth = {"Authorization": f"Bearer {token}"}
    good = _raw(results_for(split_ids()[0]))
    files = {"file": ("val.json", good, "application/octet-stream")}
    r = server.client.post(f"{UPLOAD}?dry_run=true", files=files, headers=auth)
    assert r.status_code == 200 and r.json()["dry_run"] is True, r.text
    assert _submissions(server) == 2 and _quota(server, auth)["total"] == 0  # the two baselines only
    r = server.client.post(f"{UPLOAD}?method_name=from+the+query&public=false", files=files, headers=auth)
    assert r.status_code == 202, r.text
    view = server.client.get(f"/api/v1/submissions/{r.json()['id']}", headers=auth).json()
    assert view["method_name"] == "from the query" and view["public"] is False
    r = server.client.post(f"{UPLOAD}?method_name=a", files=files, data={"method_name": "b"}, headers=auth)
    assert r.status_code == 400 and "method_name" in r.json()["detail"], r.text
    r = server.client.post(f"{UPLOAD}?dry_run=true", files=files, data={"dry_run": "false"}, headers=auth)
    assert r.status_code == 400 and "dry_run" in r.json()["detail"], r.text
    r = server.client.post(f"{UPLOAD}?dry_run=banana", files=files, headers=auth)
    assert r.status_code == 400 and "dry_run" in r.json()["detail"], r.text
    assert _quota(server, auth)["total"] == 1


def test_a_malformed_upload_gets_its_own_error_when_the_limits_are_reached(server):
    """Validation comes before the limits: with every limit of the phase reached, each malformed
    upload (raw body or multipart, real or dry run) still gets the error that names its problem."""
    token = server.register("busy")
    auth = {"Authorization": f"Bearer {token}"}
    good = results_for(split_ids()[0])
    for _ in range(3):  # the demo's val phase allows 3 in flight
        assert server.submit(token, good).status_code == 202
    assert server.submit(token, good).json()["error"] == "limit_in_flight"
    malformed = {
        "bad-json": (b"[{not json", J, 400),
        "not-a-list": (_raw({"image_id": 1}), J, 422),
        "missing-image": (_raw(good[1:]), J, 422),
        "empty-caption": (_raw(_results(caption=" ")), J, 422),
        "bad-zip": (b"PK\x03\x04garbage", "application/zip", 400),
        "wrong-type": (_raw(good), "text/html", 415),
    }
    for name, (data, ctype, status) in malformed.items():
        for query in ("", "?dry_run=true"):
            r = server.client.post(f"{UPLOAD}{query}", content=data, headers={**auth, "content-type": ctype})
            assert r.status_code == status, (name, query, r.status_code, r.text)
            filename = "r.html" if ctype == "text/html" else ("r.zip" if "zip" in ctype else "r.json")
            r = server.client.post(f"{UPLOAD}{query}", files={"file": (filename, data, ctype)}, headers=auth)
            assert r.status_code == status, (name, query, "multipart", r.status_code, r.text)
    assert _quota(server, auth)["in_flight"] == 3


def _register(server, username: str, **fields):
    return server.client.post("/api/v1/register", json={"username": username, "password": "password-123", **fields})


def _team_of(server, username: str) -> str:
    token = server.client.post("/api/v1/tokens", json={"username": username, "password": "password-123"}).json()
    return server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token['token']}"}).json()["team"]


def test_team_names_and_join_codes(server):
    """A join code without a team name joins the team of that code; a wrong code is an error, never a
    new team; team names are one name whatever their case, width or spacing."""
    owner = server.register("vi", team="VisionLab")
    code = server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {owner}"}).json()["team_join_code"]
    r = _register(server, "ana", team_code=code)
    assert r.status_code == 201, r.text
    assert _team_of(server, "ana") == "VisionLab"
    r = _register(server, "ben", team_code="not-the-code")
    assert r.status_code == 403 and "join code" in r.json()["detail"], r.text
    r = _register(server, "ben", team="NoSuchTeam", team_code=code)
    assert r.status_code == 403 and "NoSuchTeam" in r.json()["detail"], r.text
    r = _register(server, "ben", team="", team_code="")
    assert r.status_code == 201 and _team_of(server, "ben") == "ben"
    for variant in ("visionlab", "VISIONLAB", " Vision\u3000Lab ".replace("\u3000", ""), "\uff36isionLab"):
        r = _register(server, "cat", team=variant)
        assert r.status_code == 403 and "join code" in r.json()["detail"], (variant, r.text)
    r = _register(server, "cat", team="visionlab", team_code=code)
    assert r.status_code == 201 and _team_of(server, "cat") == "VisionLab"
    r = _register(server, "dot", team="Vision  Lab")
    assert r.status_code == 201 and _team_of(server, "dot") == "Vision Lab"
    r = _register(server, "eve", team="vision lab")
    assert r.status_code == 403, r.text
    nobody = [u for u in ("ben-typo",) if _register(server, u, team_code=" ").status_code == 201]
    assert nobody == ["ben-typo"]  # a blank code is no code


#: One character of each class that reorders or hides text, with a plain name of its class.
INVISIBLE = {
    "rlo": "\u202e",
    "lre": "\u202a",
    "rli": "\u2067",
    "pdi": "\u2069",
    "lrm": "\u200e",
    "alm": "\u061c",
    "zwsp": "\u200b",
    "word-joiner": "\u2060",
    "bom": "\ufeff",
    "soft-hyphen": "\u00ad",
    "tag": "\U000e0041",
    "line-separator": "\u2028",
    "paragraph-separator": "\u2029",
    "nel": "\x85",
    "bell": "\x07",
    "escape": "\x1b",
    "del": "\x7f",
}
#: Allowed in one-line text only as what they are (line breaks and tabs are refused there).
LINE_BREAKS = {"newline": "\n", "cr": "\r", "tab": "\t"}


def test_every_typed_string_refuses_bidi_format_and_control_characters(server):
    """Team names, user names, method names, descriptions and token labels, through every way in (API
    JSON, query string, multipart form, web forms, the edit endpoint): each class of invisible or
    reordering character is refused with a 4xx naming the code point; line breaks and tabs are
    refused in one-line fields and kept in descriptions; the zero-width joiners scripts need pass."""
    from fastapi.testclient import TestClient

    token = server.register("typist", team="typists")
    auth = {"Authorization": f"Bearer {token}"}
    good = _raw(results_for(split_ids()[0]))
    sid = server.submit(token, results_for(split_ids()[0]), query="?method_name=plain").json()["id"]
    browser = TestClient(server.app)
    _web_login(browser, "typist")
    submit_csrf = csrf_token(browser, "/c/coco-demo/submit")
    visitor = TestClient(server.app)
    register_csrf = csrf_token(visitor, "/register")
    before = _submissions(server)
    one_line = {**INVISIBLE, **LINE_BREAKS}
    for label, ch in one_line.items():
        text = f"a{ch}b"
        code = f"U+{ord(ch):04X}"
        checks = {
            "register-team": _register(server, f"u-{label}", team=text),
            "register-username": _register(server, f"u{ch}x"),
            "query-method": server.client.post(
                UPLOAD, params={"method_name": text}, content=good, headers={**auth, "content-type": J}
            ),
            "multipart-method": server.client.post(
                UPLOAD, data={"method_name": text}, files={"file": ("r.json", good, J)}, headers=auth
            ),
            "edit-method": server.client.patch(f"/api/v1/submissions/{sid}", json={"method_name": text}, headers=auth),
            "token-label": server.client.post(
                "/api/v1/tokens", json={"username": "typist", "password": "password-123", "label": text}
            ),
            "web-method": browser.post(
                "/c/coco-demo/submit",
                data={"phase": "val", "method_name": text, "csrf_token": submit_csrf},
                files={"file": ("r.json", good, J)},
            ),
        }
        for way, r in checks.items():
            assert 400 <= r.status_code < 500, (label, way, r.status_code, r.text[:200])
            if way != "register-username":  # user names are ASCII letters, digits and . _ -
                assert code in r.text, (label, way, r.text[:300])
    for label, ch in INVISIBLE.items():
        r = server.client.patch(f"/api/v1/submissions/{sid}", json={"method_description": f"x{ch}y"}, headers=auth)
        assert r.status_code == 400 and f"U+{ord(ch):04X}" in r.text, (label, r.text)
    r = server.client.patch(
        f"/api/v1/submissions/{sid}", json={"method_description": "two\nlines\tand a tab\r\n"}, headers=auth
    )
    assert r.status_code == 200, r.text
    for name in ("team \u200d joiner", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"):
        assert _register(server, f"zw{len(name)}", team=name).status_code == 201, name
    r = visitor.post(
        "/register",
        data={"username": "formuser", "password": "password-123", "team": "x\u202ey", "csrf_token": register_csrf},
    )
    assert r.status_code == 400 and "U+202E" in r.text
    assert _submissions(server) == before


def test_captions_are_one_line_by_one_rule(server):
    """Line breaks, tabs, controls and bidirectional or invisible formatting characters are refused
    in captions alike (real upload and dry run), each named by its code point and image id."""
    token = server.register("captioner")
    headers = {"Authorization": f"Bearer {token}", "content-type": J}
    image_id = results_for(split_ids()[0])[3]["image_id"]  # the item _results changes
    before = _submissions(server)
    for label, ch in {**INVISIBLE, **LINE_BREAKS}.items():
        data = _raw(_results(caption=f"a dog{ch} sits"))
        for query in ("", "?dry_run=true"):
            r = server.client.post(f"{UPLOAD}{query}", content=data, headers=headers)
            assert r.status_code == 422, (label, query, r.status_code, r.text)
            detail = r.json()["detail"]
            assert f"U+{ord(ch):04X}" in detail and f"image id {image_id}" in detail and "one line" in detail, detail
    assert _submissions(server) == before
    ok = _results(caption="a caf\u00e9 \u200dwith a joiner")
    assert server.client.post(f"{UPLOAD}?dry_run=true", content=_raw(ok), headers=headers).status_code == 200


def test_the_413_message_quotes_the_configured_limit(tmp_path):
    from .support import make_server

    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", max_upload_bytes=20_971_520)
    token = server.register("big")
    auth = {"Authorization": f"Bearer {token}"}
    for headers in ({"content-type": J}, {"content-type": J, "accept": "text/html"}):
        r = server.client.post(UPLOAD, content=b" " * 21_100_000, headers={**auth, **headers})
        assert r.status_code == 413 and "20,971,520" in r.text and "21,037,056" not in r.text, r.text[:300]
    r = server.client.post(UPLOAD, files={"file": ("r.json", b" " * 20_975_000, J)}, headers=auth)
    assert r.status_code == 413 and "20,971,520" in r.text, r.text[:300]
    server.client.close()
    server.db.dispose()


def test_withdrawing_another_teams_entry_is_a_404_with_or_without_confirm(server):
    owner = server.register("owner")
    other = {"Authorization": f"Bearer {server.register('other')}"}
    sid = server.submit(owner, results_for(split_ids()[0])).json()["id"]
    for body in ({}, {"confirm": False}, {"confirm": True}):
        r = server.client.post(f"/api/v1/submissions/{sid}/withdraw", json=body, headers=other)
        assert r.status_code == 404, (body, r.status_code, r.text)


def test_head_is_answered_where_get_is(server):
    for path in ("/", "/health", "/c/coco-demo", "/api/v1/challenges", "/static/style.css", "/login"):
        get = server.client.get(path)
        head = server.client.head(path)
        assert head.status_code == get.status_code == 200, (path, head.status_code)
        assert head.content == b"" and head.headers.get("content-type") == get.headers.get("content-type"), path
    assert server.client.head("/c/nope").status_code == 404
    assert server.client.head("/api/v1/me").status_code == 401


def test_image_ids_of_a_phase_stay_closed_until_it_opens(server):
    """Before a phase opens, its image ids (list, template, split list) are for hosts only: ids of a
    hidden test split tell participants which images to study."""
    from datetime import timedelta

    from capeval.server.models import Phase, utcnow

    with server.db.write() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "test"))
        phase.starts_at = utcnow() + timedelta(days=3)
    participant = {"Authorization": f"Bearer {server.register('early')}"}
    host = {"Authorization": f"Bearer {server.host_token()}"}
    urls = [
        "/api/v1/challenges/coco-demo/phases/test/image_ids",
        "/api/v1/challenges/coco-demo/phases/test/image_ids?format=txt",
        "/api/v1/challenges/coco-demo/phases/test/template.json",
        "/api/v1/challenges/coco-demo/splits/test/image_ids",
    ]
    for url in urls:
        for who in ({}, participant):
            r = server.client.get(url, headers=who)
            assert r.status_code == 403 and "opens" in r.json()["detail"], (url, r.status_code, r.text[:200])
        assert server.client.get(url, headers=host).status_code == 200, url
    assert server.client.get("/api/v1/challenges/coco-demo/phases/val/image_ids").status_code == 200
    page = server.client.get("/c/coco-demo", headers={"accept": "text/html"}).text
    assert "/phases/test/image_ids" not in page and "/phases/val/image_ids" in page


def _client_at(server, address: str):
    from fastapi.testclient import TestClient

    return TestClient(server.app, client=(address, 40000))


def _token_status(client, username: str, password: str) -> int:
    return client.post("/api/v1/tokens", json={"username": username, "password": password}).status_code


def _audit_actions(server) -> list[dict]:
    return server.client.get("/api/v1/audit", headers={"Authorization": f"Bearer {server.host_token()}"}).json()


def test_a_shared_address_keeps_working_while_someone_on_it_guesses(server, caplog):
    """100 failed logins on made-up names from one address (a lab network) do not refuse any other
    account's right password from that address: accounts that logged in from it before are not even
    slowed, new ones wait their turn. Each failure and each slow-down is in the audit and server logs."""
    import logging

    from capeval.server.services.throttle import LoginThrottle

    server.app.state.ctx.throttle = LoginThrottle(slow_step=0.01, slow_max=0.02)
    server.register("alice")
    server.register("bob")
    lab = _client_at(server, "10.20.30.40")
    assert _token_status(lab, "alice", "password-123") == 201  # alice has used the lab before
    with caplog.at_level(logging.WARNING, logger="capeval"):
        for i in range(100):
            assert _token_status(lab, f"made-up-{i}", "guess-password") == 401, i
    assert _token_status(lab, "host", HOST_PASSWORD) == 201
    assert _token_status(lab, "alice", "password-123") == 201
    assert _token_status(lab, "bob", "password-123") == 201
    assert "failed login for made-up-7 from 10.20.30.40" in caplog.text
    assert "slowed" in caplog.text
    rows = _audit_actions(server)
    failed = [r for r in rows if r["action"] == "login_failed"]
    assert len(failed) == 100 and failed[0]["detail"] == "from 10.20.30.40"
    assert any(r["action"] == "login_locked" and "slowed" in r["detail"] for r in rows)
    lab.close()


def test_guessing_one_account_is_refused_per_address_and_across_addresses(server):
    """Ten failures from one address lock that account for that address; fifty from anywhere lock it
    for every address it never logged in from, while the addresses it used keep working."""
    server.register("victim")
    home = _client_at(server, "192.0.2.10")
    assert _token_status(home, "victim", "password-123") == 201
    attacker = _client_at(server, "198.51.100.200")
    for _ in range(10):
        assert _token_status(attacker, "victim", "wrong-password") == 401
    assert _token_status(attacker, "victim", "password-123") == 429
    for i in range(40):  # a botnet: one guess per address
        bot = _client_at(server, f"203.0.113.{i + 1}")
        assert _token_status(bot, "Victim", "wrong-password") == 401, i
        bot.close()
    stranger = _client_at(server, "203.0.113.250")
    assert _token_status(stranger, "victim", "password-123") == 429
    assert _token_status(home, "victim", "password-123") == 201
    rows = _audit_actions(server)
    locks = [r["detail"] for r in rows if r["action"] == "login_locked" and r["target"] == "user:victim"]
    assert any("198.51.100.200" in d for d in locks) and any("new addresses" in d for d in locks)
    for client in (home, attacker, stranger):
        client.close()


def test_slowed_guesses_wait_their_turn():
    """Past the per-address budget, attempts on names the address never logged into are spaced out
    (queued, one per step) and a full queue is refused; known names pass at once."""
    from capeval.server.domain.errors import TooManyAttempts
    from capeval.server.services.throttle import LoginThrottle

    throttle = LoginThrottle(slow_after=20, slow_step=1.0, max_wait_seconds=5.0)
    throttle.succeeded("alice", "10.0.0.1")
    for i in range(20):
        assert throttle.admit(f"name-{i}", "10.0.0.1").delay == 0
        throttle.failed(f"name-{i}", "10.0.0.1")
    delays = [throttle.admit(f"other-{i}", "10.0.0.1").delay for i in range(5)]
    assert all(0.9 < b - a < 1.1 for a, b in zip([0.0, *delays], delays, strict=False)), delays
    with pytest.raises(TooManyAttempts):
        throttle.admit("one-more", "10.0.0.1")
    assert throttle.admit("alice", "10.0.0.1").delay == 0
    assert throttle.admit("anyone", "10.0.0.2").delay == 0


def test_registrations_are_limited_per_address_and_can_need_approval(server):
    """One address registers at most the hosts' hourly limit of accounts (a team per account would
    otherwise multiply the per-team limits); in approval mode new accounts wait for a host."""
    host = {"Authorization": f"Bearer {server.host_token()}"}
    r = server.client.put("/api/v1/registration", json={"per_address_hour": 3}, headers=host)
    assert r.status_code == 200 and r.json()["per_address_hour"] == 3
    cafe = _client_at(server, "198.51.100.77")
    body = {"password": "password-123"}
    for i in range(3):
        assert cafe.post("/api/v1/register", json={**body, "username": f"sock-{i}"}).status_code == 201
    r = cafe.post("/api/v1/register", json={**body, "username": "sock-3"})
    assert r.status_code == 429 and "last hour" in r.json()["detail"], r.text
    spoofed = cafe.post("/api/v1/register", json={**body, "username": "sock-4"}, headers={"x-forwarded-for": "1.1.1.1"})
    assert spoofed.status_code == 429
    elsewhere = _client_at(server, "198.51.100.78")
    assert elsewhere.post("/api/v1/register", json={**body, "username": "honest"}).status_code == 201
    registered = [r for r in _audit_actions(server) if r["action"] == "register"]
    assert any("198.51.100.77" in r["detail"] and r["target"] == "user:sock-0" for r in registered)
    # Approval: the account exists but cannot log in until a host approves it.
    server.client.put("/api/v1/registration", json={"mode": "approval"}, headers=host)
    r = elsewhere.post("/api/v1/register", json={**body, "username": "newbie"})
    assert r.status_code == 201 and r.json()["status"] == "pending"
    r = elsewhere.post("/api/v1/tokens", json={"username": "newbie", "password": "password-123"})
    assert r.status_code == 403 and r.json()["error"] == "account_pending"
    pending = server.client.get("/api/v1/users?status=pending", headers=host).json()
    assert [u["username"] for u in pending] == ["newbie"]
    r = server.client.post("/api/v1/users/newbie/status", json={"status": "active"}, headers=host)
    assert r.status_code == 200 and r.json()["previous"] == "pending"
    assert _token_status(elsewhere, "newbie", "password-123") == 201
    assert any(r["action"] == "approve_user" for r in _audit_actions(server))
    # The web form says the account waits, and logs nobody in.
    form = {"username": "webbie", "password": "password-123", "csrf_token": csrf_token(elsewhere, "/register")}
    page = elsewhere.post("/register", data=form, follow_redirects=False)
    assert (
        page.status_code == 201
        and "approve new accounts" in page.text
        and "capeval_session" not in page.headers.get("set-cookie", "")
    )
    cafe.close()
    elsewhere.close()
