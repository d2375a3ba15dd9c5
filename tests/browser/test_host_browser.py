"""Real browser (Debian chromium + Playwright): a host runs the challenge from the host panel.

Edit a phase limit and see it enforced on a participant's upload, hide an entry, filter the
submission list, revoke a participant's API token, close registration, download a participant's
file. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import json

import pytest
from tests.browser.test_leaderboard_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, sync_api
from tests.server.support import HOST_PASSWORD, LiveServer, make_server, results_for, split_ids

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 800}


def _shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"host-{name}.png"), full_page=True)


def test_host_flow(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    stop_worker = server.start_worker("browser-host")
    ARTIFACTS.mkdir(exist_ok=True)
    token = server.register("gus", team="team gus")
    items = results_for(split_ids()[0])
    first = server.submit(token, items, query="?method_name=gus+entry").json()["id"]
    try:
        with LiveServer(server.app) as live, sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.goto(f"{live.url}/login")
            page.fill("#username", "host")
            page.fill("#password", HOST_PASSWORD)
            page.click("#login-submit")
            page.goto(f"{live.url}/host")
            # Edit a limit: one submission in total for the val phase.
            form = page.locator("#phase-form-coco-demo-val")
            form.locator('input[name="max_total"]').fill("1")
            form.locator("button[type=submit]").click()
            page.wait_for_selector("#done")
            assert page.locator("#audit-log tbody tr", has_text="edit_phase").count() == 1
            # The panel fits a 1280 px window too (its wide tables scroll inside their frame).
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
            _shot(page, "1-phase-edited")
            refused = server.submit(token, items)
            assert refused.status_code == 429 and refused.json()["error"] == "limit_total"
            page.goto(f"{live.url}/c/coco-demo")
            assert page.locator(".phases tbody tr", has_text="val").locator("td").nth(4).inner_text() == "1"
            # Hide the entry once scored.
            for _ in range(600):
                status = server.client.get(f"/api/v1/submissions/{first}", headers={"Authorization": f"Bearer {token}"})
                if status.json()["status"] == "finished":
                    break
                page.wait_for_timeout(100)
            page.goto(f"{live.url}/c/coco-demo")
            assert page.locator('table[data-split="val"] tbody tr', has_text="gus entry").count() == 1
            page.goto(f"{live.url}/host")
            page.locator(f'tr[data-submission="{first}"] button.hide').click()
            page.wait_for_selector("#done")
            assert page.locator(f'tr[data-submission="{first}"] .badge', has_text="hidden").count() == 1
            anonymous = server.client.get("/api/v1/challenges/coco-demo/leaderboard").json()
            assert first not in {e["submission_id"] for s in anonymous["splits"] for e in s["entries"]}
            # Filter the submission list by team and status; the page links and actions keep the filter.
            page.fill("#filter-team", "GUS")
            page.select_option("#filter-status", "finished")
            page.click("#filter-apply")
            page.wait_for_selector("#filter-clear")
            assert "team=GUS" in page.url and "status=finished" in page.url
            rows = page.locator("#submission-table tbody tr")
            assert rows.count() == 1 and "team gus" in rows.inner_text()
            assert "1–1 of 1 matching the filters" in page.locator("#page-summary-top").inner_text()
            _shot(page, "1b-filtered")
            page.locator(f'tr[data-submission="{first}"] button.restore').click()
            page.wait_for_selector("#done")
            assert "team=GUS" in page.url and page.locator("#submission-table tbody tr").count() == 1
            page.locator(f'tr[data-submission="{first}"] button.hide').click()
            page.wait_for_selector("#done")
            # Revoke gus's API token (confirmed in a dialog).
            page.on("dialog", lambda dialog: dialog.accept())
            row = page.locator("#token-table tbody tr", has_text="gus")
            row.locator("button.revoke").click()
            page.wait_for_selector("#done")
            assert "revoked" in page.locator("#token-table tbody tr", has_text="gus").inner_text()
            assert server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
            _shot(page, "2-token-revoked")
            # Close registration: a new visitor cannot register.
            page.select_option("#registration-mode", "closed")
            page.click("#registration-save")
            page.wait_for_selector("#done")
            _shot(page, "3-registration-closed")
            visitor = browser.new_context(viewport=VIEWPORT).new_page()
            visitor.goto(f"{live.url}/register")
            visitor.fill("#username", "ivy")
            visitor.fill("#password", "ivy-password")
            visitor.fill("#team", "team ivy")
            visitor.click("#register-submit")
            assert "registration is closed" in visitor.content()
            _shot(visitor, "4-visitor-refused")
            # Download the participant's uploaded file from its submission page.
            page.goto(f"{live.url}/submissions/{first}")
            with page.expect_download() as info:
                page.click("#download-file")
            saved = tmp_path / "downloaded.json"
            info.value.save_as(saved)
            assert json.loads(saved.read_text()) == items
            _shot(page, "5-submission")
            page.goto(f"{live.url}/host")
            audit = json.dumps([r.inner_text() for r in page.locator("#audit-log tbody tr").all()])
            for action in ("edit_phase", "hide", "revoke_token", "edit_registration", "download_file"):
                assert action in audit
            browser.close()
    finally:
        stop_worker()
        server.client.close()
        server.db.dispose()
