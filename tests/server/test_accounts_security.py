"""Login throttling: one counter per normalized username and client address; the same work for
known and unknown users; secure cookies behind HTTPS; CSRF on cookie-authenticated API writes."""

from __future__ import annotations

import statistics
import time

from fastapi.testclient import TestClient

from .support import csrf_token, make_server, results_for, split_ids


def _token(client: TestClient, username: str, password: str) -> int:
    return client.post("/api/v1/tokens", json={"username": username, "password": password}).status_code


def test_lockout_variants_share_one_counter(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    server.register("alice")
    variants = ["alice ", "Alice", " alice", "ALICE", "alice"]
    for i in range(10):
        assert _token(server.client, variants[i % len(variants)], "wrong-password") == 401
    for name in variants:
        assert _token(server.client, name, "password-123") == 429, name
    # Failures from one address do not lock the account for everyone else.
    elsewhere = TestClient(server.app, client=("198.51.100.7", 40000))
    assert _token(elsewhere, "Alice", "password-123") == 201
    # The host cannot be locked out from another address either.
    for _ in range(12):
        _token(server.client, "host", "wrong-password")
    assert _token(elsewhere, "host", "host-password-1") == 201
    elsewhere.close()
    server.client.close()
    server.db.dispose()


def test_wrong_password_costs_the_same_for_unknown_users(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    server.register("bob")

    def timed(name: str) -> float:
        client = TestClient(server.app, client=(f"203.0.113.{len(name)}", 1))
        start = time.perf_counter()
        assert _token(client, name, "wrong-password") == 401
        return time.perf_counter() - start

    known = statistics.median(timed("bob") for _ in range(7))
    unknown = statistics.median(timed("nobody-here") for _ in range(7))
    # Both verify one scrypt hash (tens of ms); before, unknown names answered about 20x faster.
    assert 0.5 < unknown / known < 2.0, (known, unknown)
    server.client.close()
    server.db.dispose()


def test_cookie_authenticated_api_writes_need_the_csrf_header(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    server.register("carol")
    browser = server.client
    r = browser.post(
        "/login", data={"username": "carol", "password": "password-123", "csrf_token": csrf_token(browser)}
    )
    assert r.status_code == 200  # followed the redirect to "/"
    body = __import__("json").dumps(results_for(split_ids()[0]))
    url = "/api/v1/challenges/coco-demo/phases/val/submissions"
    # A no-cors text/plain post from another page carries the cookie but no token.
    r = browser.post(url, content=body, headers={"content-type": "text/plain", "origin": "http://127.0.0.1:9999"})
    assert r.status_code == 403 and r.json()["error"] == "csrf_origin"
    r = browser.post(url, content=body, headers={"content-type": "text/plain"})
    assert r.status_code == 403 and r.json()["error"] == "csrf"
    # With the session's token (as a page script of this site would send it) the upload goes through.
    token = csrf_token(browser, "/")
    r = browser.post(url, content=body, headers={"content-type": "application/json", "x-csrf-token": token})
    assert r.status_code == 202, r.text
    # Bearer tokens carry no ambient credential: no CSRF token needed.
    bearer = server.register("dan")
    r = server.client.post(
        url, content=body, headers={"authorization": f"Bearer {bearer}", "content-type": "application/json"}
    )
    assert r.status_code == 202, r.text
    server.client.close()
    server.db.dispose()


def test_secure_cookie_over_https_or_trusted_proxy(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", trust_proxy=True)
    server.register("erin")
    client = server.client
    token = csrf_token(client)
    r = client.post(
        "/login",
        data={"username": "erin", "password": "password-123", "csrf_token": token},
        headers={"x-forwarded-proto": "https", "origin": "https://testserver"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "secure" in r.headers["set-cookie"].lower()
    plain = make_server(f"sqlite:///{tmp_path / 'db2.sqlite'}")
    plain.register("fay")
    token = csrf_token(plain.client)
    r = plain.client.post(
        "/login",
        data={"username": "fay", "password": "password-123", "csrf_token": token},
        headers={"x-forwarded-proto": "https"},  # not trusted: no proxy configured
        follow_redirects=False,
    )
    assert r.status_code == 303 and "secure" not in r.headers["set-cookie"].lower()
    for s in (server, plain):
        s.client.close()
        s.db.dispose()
