"""Login throttling: one counter per normalized username and client address; the same work for
known and unknown users; secure cookies behind HTTPS; CSRF on cookie-authenticated API writes."""

from __future__ import annotations

import time

import pytest
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

    # Interleaved, and the fastest of each: a busy machine slows single requests, never speeds them up.
    pairs = [(timed("bob"), timed("nobody-here")) for _ in range(7)]
    known = min(k for k, _ in pairs)
    unknown = min(u for _, u in pairs)
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
    # The proxy runs on this machine (the default trusted_proxies).
    client = TestClient(server.app, client=("127.0.0.1", 40000))
    token = csrf_token(client)
    r = client.post(
        "/login",
        data={"username": "erin", "password": "password-123", "csrf_token": token},
        headers={"x-forwarded-proto": "https", "origin": "https://testserver"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "secure" in r.headers["set-cookie"].lower()
    # The same headers from a peer that is not a configured proxy are not believed.
    stranger = TestClient(server.app, client=("198.51.100.7", 40000))
    token = csrf_token(stranger)
    r = stranger.post(
        "/login",
        data={"username": "erin", "password": "password-123", "csrf_token": token},
        headers={"x-forwarded-proto": "https"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "secure" not in r.headers["set-cookie"].lower()
    client.close()
    stranger.close()
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


def _web_login(client: TestClient, username: str, password: str) -> None:
    r = client.post(
        "/login",
        data={"username": username, "password": password, "csrf_token": csrf_token(client)},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text


def test_password_change_needs_the_current_password_and_ends_other_sessions(server):
    api = server.register("erin")
    spare = server.client.post("/api/v1/tokens", json={"username": "erin", "password": "password-123"}).json()["token"]
    bearer = {"Authorization": f"Bearer {api}"}
    # Two browsers logged in; the first changes the password on the account page.
    laptop = server.client
    phone = TestClient(server.app)
    _web_login(laptop, "erin", "password-123")
    _web_login(phone, "erin", "password-123")
    html = {"accept": "text/html"}
    assert phone.get("/account", headers=html).status_code == 200
    page = laptop.get("/account", headers=html)
    assert page.status_code == 200 and 'id="password-form"' in page.text
    form = {"current_password": "password-123", "new_password": "new-secret-1", "new_password2": "new-secret-1"}
    # Without the form's CSRF token: refused, nothing changes.
    assert laptop.post("/account/password", data=form, headers=html).status_code == 403
    token = csrf_token(laptop, "/account")
    wrong = {**form, "current_password": "not-it-at-all", "csrf_token": token}
    r = laptop.post("/account/password", data=wrong, headers=html)
    assert r.status_code == 403 and "current password is wrong" in r.text and "not-it-at-all" not in r.text
    mismatch = {**form, "new_password2": "new-secret-2", "csrf_token": token}
    r = laptop.post("/account/password", data=mismatch, headers=html)
    assert r.status_code == 400 and "differ" in r.text and "new-secret-1" not in r.text
    short = {**form, "new_password": "short", "new_password2": "short", "csrf_token": token}
    assert laptop.post("/account/password", data=short, headers=html).status_code == 400
    assert _token(server.client, "erin", "password-123") == 201  # still the old password
    r = laptop.post("/account/password", data={**form, "csrf_token": token}, headers=html, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account?done=password:1:0"
    # This browser stays logged in; the other one is logged out; API tokens keep working.
    assert "1 other session was logged out" in laptop.get("/account?done=password:1:0", headers=html).text
    assert phone.get("/account", headers=html, follow_redirects=False).status_code == 303
    assert server.client.get("/api/v1/me", headers=bearer).status_code == 200
    assert _token(server.client, "erin", "password-123") == 401
    assert _token(server.client, "erin", "new-secret-1") == 201
    # The API: the current password is needed; with revoke_api_tokens every other token ends too.
    body = {"current_password": "wrong-password", "new_password": "third-secret"}
    r = server.client.post("/api/v1/password", headers=bearer, json=body)
    assert r.status_code == 403 and r.json()["error"] == "wrong_password"
    same = {"current_password": "new-secret-1", "new_password": "new-secret-1"}
    assert server.client.post("/api/v1/password", headers=bearer, json=same).json()["error"] == "same_password"
    for bad in ({}, {"current_password": "new-secret-1"}, {**same, "new_password": 12345678}, {**same, "x": 1}):
        assert server.client.post("/api/v1/password", headers=bearer, json=bad).status_code == 400, bad
    with TestClient(server.app) as anonymous:
        assert anonymous.post("/api/v1/password", json={**same, "new_password": "x" * 12}).status_code == 401
    body = {"current_password": "new-secret-1", "new_password": "third-secret", "revoke_api_tokens": True}
    r = server.client.post("/api/v1/password", headers=bearer, json=body)
    # spare, and the two tokens the login checks above created
    assert r.status_code == 200 and r.json() == {"changed": True, "sessions_revoked": 1, "api_tokens_revoked": 3}
    assert server.client.get("/api/v1/me", headers=bearer).status_code == 200  # the token in use is kept
    assert server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {spare}"}).status_code == 401
    assert laptop.get("/account", headers=html, follow_redirects=False).status_code == 303
    host = {"Authorization": f"Bearer {server.host_token()}"}
    rows = [a for a in server.client.get("/api/v1/audit", headers=host).json() if a["action"] == "change_password"]
    assert len(rows) == 2 and rows[0]["detail"] == "1 other session(s) ended, 3 API token(s) revoked"
    phone.close()


def test_password_change_by_cookie_needs_the_csrf_header_and_is_throttled(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    server.register("finn")
    browser = server.client
    _web_login(browser, "finn", "password-123")
    body = {"current_password": "password-123", "new_password": "changed-pass"}
    r = browser.post("/api/v1/password", json=body)
    assert r.status_code == 403 and r.json()["error"] == "csrf"
    token = csrf_token(browser, "/account")
    # Guessing the current password from a stolen session is as slow as guessing at the login form.
    wrong = {"current_password": "guess-guess", "new_password": "changed-pass"}
    codes = [
        browser.post("/api/v1/password", json=wrong, headers={"x-csrf-token": token}).status_code for _ in range(11)
    ]
    assert codes[:10] == [403] * 10 and codes[10] == 429
    server.client.close()
    server.db.dispose()


def test_register_and_login_forms_keep_what_was_typed_except_passwords(server):
    browser = server.client
    html = {"accept": "text/html"}
    token = csrf_token(browser, "/register")
    typed = {
        "username": 'zoe"><script>x</script>',
        "password": "short",
        "team": "Zoe's team",
        "team_code": "",
        "invite_code": "inv-123",
        "csrf_token": token,
    }
    r = browser.post("/register", data=typed, headers=html)
    assert r.status_code == 400 and "username must be" in r.text
    assert 'value="zoe&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in r.text and "<script>x" not in r.text
    assert 'id="team" value="Zoe&#39;s team"' in r.text and 'id="invite_code" value="inv-123"' in r.text
    r = browser.post("/register", data={**typed, "username": "zoe"}, headers=html)
    assert r.status_code == 400 and "at least 8" in r.text and 'id="username" required' in r.text
    assert (
        'value="zoe"' in r.text and 'value="short"' not in r.text and 'id="password" type="password" required' in r.text
    )
    server.register("yan")
    r = browser.post("/register", data={**typed, "username": "YAN", "password": "long-enough-1"}, headers=html)
    assert r.status_code == 409 and 'value="YAN"' in r.text and "long-enough-1" not in r.text
    r = browser.post("/login", data={"username": "yan", "password": "wrong-one-1", "csrf_token": token}, headers=html)
    assert r.status_code == 401 and 'id="username" required autocomplete="username" value="yan"' in r.text
    assert "wrong-one-1" not in r.text


def test_account_page_lists_and_revokes_own_api_tokens(server):
    mine = server.register("gwen")
    other = server.register("hugo")
    browser = server.client
    _web_login(browser, "gwen", "password-123")
    html = {"accept": "text/html"}
    ids = {
        t["user"]: t["id"] for t in browser.get("/api/v1/tokens", headers={"Authorization": f"Bearer {mine}"}).json()
    }
    hugo_id = browser.get("/api/v1/tokens", headers={"Authorization": f"Bearer {other}"}).json()[0]["id"]
    page = browser.get("/account", headers=html).text
    assert f'data-token="{ids["gwen"]}"' in page and f'data-token="{hugo_id}"' not in page
    token = csrf_token(browser, "/account")
    # Someone else's token: 404, and it keeps working.
    r = browser.post(f"/account/tokens/{hugo_id}/revoke", data={"csrf_token": token}, headers=html)
    assert r.status_code == 404
    assert browser.get("/api/v1/me", headers={"Authorization": f"Bearer {other}"}).status_code == 200
    r = browser.post(f"/account/tokens/{ids['gwen']}/revoke", data={"csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account?done=revoked#tokens"
    with TestClient(server.app) as script:
        assert script.get("/api/v1/me", headers={"Authorization": f"Bearer {mine}"}).status_code == 401
    page = browser.get("/account?done=revoked", headers=html).text
    assert "Token revoked." in page and "revoked</td>" in page
    host = {"Authorization": f"Bearer {server.host_token()}"}
    audit = server.client.get("/api/v1/audit", headers=host).json()
    assert any(a["action"] == "revoke_token" and a["actor"] == "gwen" for a in audit)


def test_the_client_address_behind_a_trusted_proxy(tmp_path):
    """``X-Forwarded-For`` is read right to left, skipping the configured proxies; entries a client
    wrote to the left of the proxy's own are never the address. Without ``trust_proxy`` the peer
    is the address whatever the headers say."""
    from starlette.requests import Request

    from capeval.server.api.proxy import UNTRUSTED_FORWARDED, client_address, throttle_keys
    from capeval.server.config import Settings

    def request(peer: str, headers: dict[str, str]) -> Request:
        raw = [(k.encode(), v.encode()) for k, v in headers.items()]
        scope = {"type": "http", "method": "GET", "path": "/", "headers": raw, "client": (peer, 1), "query_string": b""}
        return Request(scope)

    proxied = Settings(trust_proxy=True, trusted_proxies=("127.0.0.1", "10.0.0.0/8"))
    plain = Settings()
    xff = {"x-forwarded-for": "6.6.6.6, 203.0.113.5, 10.1.2.3"}
    assert client_address(request("127.0.0.1", xff), proxied) == "203.0.113.5"
    assert client_address(request("198.51.100.1", xff), proxied) == "198.51.100.1"  # not a proxy
    assert client_address(request("127.0.0.1", {"x-forwarded-for": "[2001:db8::1]:443"}), proxied) == "2001:db8::1"
    assert client_address(request("127.0.0.1", {"x-forwarded-for": "junk, 10.0.0.9"}), proxied) == "127.0.0.1"
    assert client_address(request("::ffff:127.0.0.1", xff), proxied) == "203.0.113.5"
    assert client_address(request("127.0.0.1", xff), plain) == "127.0.0.1"
    assert throttle_keys(request("127.0.0.1", xff), plain) == ("127.0.0.1", UNTRUSTED_FORWARDED)
    assert throttle_keys(request("127.0.0.1", {"x-real-ip": "1.2.3.4"}), plain) == ("127.0.0.1", UNTRUSTED_FORWARDED)
    assert throttle_keys(request("127.0.0.1", {}), plain) == ("127.0.0.1",)
    assert throttle_keys(request("127.0.0.1", xff), proxied) == ("203.0.113.5",)
    with pytest.raises(ValueError, match="trusted_proxies"):
        Settings(trusted_proxies=("not-an-address",))
