"""Every time a page shows reads like ``24 Nov 2026, 18:40 UTC`` (to the minute): no ISO 8601 string (let alone one
with microseconds) in the text of any page a participant or a host sees, error pages and form
messages included. Machine-readable ISO stays where machines read it: the JSON API, ``data-value``
sort keys, the host's date inputs (to the second, never microseconds), and ``<code>`` examples of
the input format."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from fastapi.testclient import TestClient

from .support import HOST_PASSWORD, csrf_token, results_for, split_ids

ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
MICROSECONDS = re.compile(r"\d{2}:\d{2}:\d{2}\.\d+")
HUMAN = re.compile(r"\b\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC\b")


class _Visible(HTMLParser):
    """The text a reader sees (but ``<code>`` syntax examples), and the values of the visible input fields."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.inputs: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style", "code"):
            self._skip += 1
        if tag == "input" and a.get("type") not in ("hidden",) and "hidden" not in a:
            self.inputs.append(a.get("value") or "")
        for name in ("title", "placeholder", "aria-label"):
            if a.get(name):
                self.text.append(a[name])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def _scan(client: TestClient, url: str, *, method: str = "GET", **kw) -> str:
    r = client.request(method, url, headers={"accept": "text/html"}, **kw)
    assert r.status_code < 500 and "text/html" in r.headers["content-type"], (url, r.status_code)
    parser = _Visible()
    parser.feed(r.text)
    text = " ".join(parser.text)
    assert not ISO.search(text), (url, ISO.search(text).group(0), text[max(0, ISO.search(text).start() - 80) :][:200])
    for value in parser.inputs:
        assert not MICROSECONDS.search(value), (url, value)
    return text


def _login(client: TestClient, username: str, password: str) -> None:
    data = {"username": username, "password": password, "csrf_token": csrf_token(client)}
    assert client.post("/login", data=data, follow_redirects=False).status_code == 303


def test_no_page_shows_a_raw_iso_time(server):
    owner = server.register("olga", team="olga's team")
    host = {"Authorization": f"Bearer {server.host_token()}"}
    items = results_for(split_ids()[0])
    sid = server.submit(owner, items, query="?method_name=first").json()["id"]
    gone = server.submit(owner, items, query="?method_name=second").json()["id"]
    server.run_jobs()
    server.client.post(
        f"/api/v1/submissions/{gone}/withdraw", headers={"Authorization": f"Bearer {owner}"}, json={"confirm": True}
    )
    # Times with seconds and microseconds, as a host may type them.
    r = server.client.patch(
        "/api/v1/challenges/coco-demo/phases/val",
        headers=host,
        json={"ends_at": "2031-07-04T12:30:45.123456Z", "max_per_day": 2},
    )
    assert r.status_code == 200, r.text
    r = server.client.patch(
        "/api/v1/challenges/coco-demo/phases/test", headers=host, json={"starts_at": "2030-02-03T04:05:06.789Z"}
    )
    assert r.status_code == 200, r.text
    participant = TestClient(server.app)
    _login(participant, "olga", "password-123")
    pages = [
        "/",
        "/c/coco-demo",
        "/c/coco-demo?all=1",
        "/submissions",
        f"/submissions/{sid}",
        f"/submissions/{gone}",
        f"/submissions/{sid}/edit",
        f"/submissions/{sid}/withdraw",
        f"/submissions/{sid}/images/val",
        "/c/coco-demo/submit",
        "/account",
    ]
    shown = {url: _scan(participant, url) for url in pages}
    assert HUMAN.search(shown["/c/coco-demo"]) and "4 Jul 2031, 12:30 UTC" in shown["/c/coco-demo"]
    assert HUMAN.search(shown["/submissions"]) and HUMAN.search(shown[f"/submissions/{gone}"])
    # Refusals that name a time: the day's limit, a phase not open yet.
    token = csrf_token(participant, "/c/coco-demo/submit")
    body = {"file": ("r.json", __import__("json").dumps(items).encode(), "application/json")}
    text = _scan(
        participant, "/c/coco-demo/submit", method="POST", data={"phase": "val", "csrf_token": token}, files=body
    )
    assert "resets at" in text and HUMAN.search(text)
    test_items = results_for(split_ids()[1])
    body = {"file": ("r.json", __import__("json").dumps(test_items).encode(), "application/json")}
    text = _scan(
        participant, "/c/coco-demo/submit", method="POST", data={"phase": "test", "csrf_token": token}, files=body
    )
    assert "opens at 3 Feb 2030, 04:05 UTC" in text
    participant.close()
    hosting = TestClient(server.app)
    _login(hosting, "host", HOST_PASSWORD)
    for url in ("/host", f"/submissions/{sid}", "/c/coco-demo?all=1", "/account"):
        text = _scan(hosting, url)
    panel = _scan(hosting, "/host")
    assert HUMAN.search(panel) and "4 Jul 2031, 12:30 UTC" in panel  # the audit log's edit_phase detail
    assert 'value="2031-07-04T12:30:45Z"' in hosting.get("/host", headers={"accept": "text/html"}).text
    hosting.close()
