"""Real browser (Debian chromium + Playwright), two loopback origins: a page on the same host but
another port (same site) and a page on another host name (cross site) try to act for a logged-in
host: auto-posted forms (mark a baseline, log the victim in as the attacker) and a no-cors
``text/plain`` upload. All are refused; the victim's normal session keeps working.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from tests.browser.test_leaderboard_browser import CHROMIUM, CHROMIUM_ARGS, sync_api  # skips without chromium

pytestmark = pytest.mark.browser

from sqlalchemy import func, select  # noqa: E402
from tests.server.support import HOST_PASSWORD, LiveServer, make_server, results_for, split_ids  # noqa: E402

from capeval.server.models import Submission  # noqa: E402


def _attacker_pages(target: str) -> dict[str, str]:
    upload = json.dumps(results_for(split_ids()[0]))
    return {
        "/baseline": f"""<html><body>
            <form id=f method=post action="{target}/host/submissions/1/unbaseline">
            <input name=csrf_token value=guess></form>
            <script>document.getElementById('f').submit()</script></body></html>""",
        "/login": f"""<html><body><form id=f method=post action="{target}/login">
            <input name=username value=mallory><input name=password value=mallory-password>
            </form><script>document.getElementById('f').submit()</script></body></html>""",
        "/upload": f"""<html><body><script>
            fetch("{target}/api/v1/challenges/coco-demo/phases/val/submissions",
                  {{method: "POST", mode: "no-cors", credentials: "include",
                    headers: {{"content-type": "text/plain"}}, body: {json.dumps(upload)}}})
              .then(() => {{ document.title = "sent"; }}, () => {{ document.title = "sent"; }});
            </script></body></html>""",
    }


class _Attacker:
    """A tiny web server for the attacker's pages on 127.0.0.1 (another port)."""

    def __init__(self, pages: dict[str, str]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = pages.get(self.path, "").encode()
                self.send_response(200 if body else 404)
                self.send_header("content-type", "text/html")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()


def _state(server) -> tuple[bool, int]:
    with server.db.read() as session:
        return session.get(Submission, 1).is_baseline, session.scalar(select(func.count(Submission.id)))


def test_forged_requests_refused_and_normal_session_works(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    server.register("mallory", password="mallory-password")
    try:
        with LiveServer(server.app) as live, sync_api.sync_playwright() as p:
            attacker = _Attacker(_attacker_pages(live.url))
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.set_default_timeout(30_000)
            page.goto(f"{live.url}/login")
            page.fill("#username", "host")
            page.fill("#password", HOST_PASSWORD)
            page.click("#login-submit")
            page.wait_for_selector("text=Host")
            before = _state(server)
            assert before[0] is True
            for origin in (f"http://127.0.0.1:{attacker.port}", f"http://localhost:{attacker.port}"):
                for name in ("/baseline", "/login"):
                    page.goto(origin + name)
                    page.wait_for_load_state("load")
                    text = page.content()
                    refused = ("cross-origin request refused", "did not come from this site", "log in or send")
                    assert any(r in text for r in refused), (origin, name, text[-600:])
                page.goto(origin + "/upload")
                page.wait_for_function("document.title === 'sent'")
                assert _state(server) == before, origin
            # The victim is still logged in as the host (login CSRF failed) and can act normally.
            page.goto(f"{live.url}/api/v1/me")
            assert json.loads(page.inner_text("body"))["username"] == "host"
            page.goto(f"{live.url}/host")
            page.locator('form[action="/host/submissions/1/unbaseline"] button').click()
            page.wait_for_url(f"{live.url}/host?done=unbaseline#submissions")
            assert _state(server)[0] is False
            browser.close()
            attacker.close()
    finally:
        server.client.close()
        server.db.dispose()
