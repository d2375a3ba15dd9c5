"""Real browser (Debian chromium + Playwright): a new participant's first day, and pages that fit.

Register, download the phase's image ids from the challenge page, build a results file from them,
upload it (the first upload succeeds), see the entry ranked, upload a second entry, edit an entry's
name and description, choose which one represents the team, withdraw one, change the password. The leaderboard and the
drill-down must fit a 1280x800 window without horizontal page scrolling. Screenshots go to
``artifacts/`` at the repository root.
"""

from __future__ import annotations

import json

import pytest
from tests.browser.test_leaderboard_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, sync_api
from tests.server.support import LiveServer, demo_results, make_server

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 800}


def _page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def _shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"participant-{name}.png"), full_page=True)


def test_participant_flow_and_pages_fit(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    stop_worker = server.start_worker("browser-participant")
    captions = {r["image_id"]: r["caption"] for r in demo_results()}
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with LiveServer(server.app) as live, sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.goto(f"{live.url}/register")
            page.fill("#username", "dana")
            page.fill("#password", "dana-password")
            page.fill("#team", "team dana")
            page.click("#register-submit")
            page.wait_for_selector("text=team dana")
            page.goto(f"{live.url}/c/coco-demo")
            _shot(page, "1-challenge")
            # Learn the ids: the downloadable list of the val phase.
            with page.expect_download() as info:
                page.click("#ids-val")
            ids_file = tmp_path / "ids.txt"
            info.value.save_as(ids_file)
            ids = [int(line) for line in ids_file.read_text().split()]
            assert len(ids) == 30
            good = tmp_path / "good.json"
            good.write_text(json.dumps([{"image_id": i, "caption": captions[i]} for i in ids]))
            weak = tmp_path / "weak.json"
            weak.write_text(json.dumps([{"image_id": i, "caption": "a picture"} for i in ids]))
            entries = {}
            for name, path in (("good entry", good), ("weak entry", weak)):
                page.goto(f"{live.url}/c/coco-demo/submit")
                page.select_option("#phase", "val")
                page.set_input_files("#file", str(path))
                page.fill("#method_name", name)
                page.click("#upload-submit")
                page.wait_for_url("**/submissions/*")
                page.wait_for_selector("#status.status-finished", timeout=60_000)
                entries[name] = int(page.url.rstrip("/").split("/")[-1])
            _shot(page, "2-submission")
            # Edit the entry after the upload: a description, a better name, still public.
            page.goto(f"{live.url}/submissions/{entries['good entry']}")
            page.click("#edit-link")
            page.fill("#method_description", "fakecap captions, unchanged")
            page.fill("#method_name", "good entry (fakecap)")
            _shot(page, "2b-edit")
            page.click("#edit-save")
            page.wait_for_selector("#done")
            assert "fakecap captions, unchanged" in page.locator("dd.description").inner_text()
            assert page.locator("#visibility").inner_text().startswith("public")
            # Ranked, one row per team: the better entry represents the team by default.
            page.goto(f"{live.url}/c/coco-demo")
            table = page.locator('table[data-split="val"]')
            mine = table.locator("tbody tr", has_text="team dana")
            assert mine.count() == 1 and "good entry" in mine.inner_text()
            assert mine.locator("td.rank").inner_text().strip() == "1"
            assert _page_width(page) <= VIEWPORT["width"]
            _shot(page, "3-leaderboard")
            # Choose the weak entry to represent the team.
            page.goto(f"{live.url}/submissions/{entries['weak entry']}")
            page.click("#representative-choose")
            page.wait_for_selector("#done")
            page.goto(f"{live.url}/c/coco-demo")
            mine = page.locator('table[data-split="val"] tbody tr', has_text="team dana")
            assert mine.count() == 1 and "weak entry" in mine.inner_text() and "chosen" in mine.inner_text()
            # Every entry on demand; it still fits.
            page.goto(f"{live.url}/c/coco-demo?all=1")
            assert page.locator('table[data-split="val"] tbody tr', has_text="team dana").count() == 2
            assert _page_width(page) <= VIEWPORT["width"]
            _shot(page, "4-leaderboard-all")
            # Keyboard sorting: focus the CIDEr button and press Enter; missing values stay last.
            button = page.locator('table[data-split="val"] th[data-column="cider-d"] button')
            button.focus()
            page.keyboard.press("Enter")
            assert page.locator('table[data-split="val"] th[data-column="cider-d"]').get_attribute("aria-sort")
            # The drill-down fits too.
            page.goto(f"{live.url}/submissions/{entries['good entry']}/images/val")
            page.wait_for_selector("#all-images")
            assert _page_width(page) <= VIEWPORT["width"]
            _shot(page, "5-drilldown")
            # Withdraw the weak entry (confirmed on its own page).
            page.goto(f"{live.url}/submissions/{entries['weak entry']}")
            page.click("#withdraw-link")
            _shot(page, "6-withdraw-confirm")
            page.click("#withdraw-confirm")
            page.wait_for_selector("#done")
            assert "withdrawn" in page.locator("#visibility").inner_text()
            page.goto(f"{live.url}/c/coco-demo?all=1")
            rows = page.locator('table[data-split="val"] tbody tr', has_text="team dana")
            assert rows.count() == 1 and "good entry" in rows.inner_text()
            _shot(page, "7-after-withdraw")
            # Change the password on the account page (the user name in the header); this browser stays
            # logged in, the old password stops working.
            page.click("#nav-account")
            page.fill("#current_password", "dana-password")
            page.fill("#new_password", "dana-new-password")
            page.fill("#new_password2", "dana-new-password")
            page.click("#password-submit")
            page.wait_for_selector("#done")
            assert "Password changed" in page.locator("#done").inner_text()
            _shot(page, "8-password-changed")
            page.goto(f"{live.url}/submissions")
            assert "dana" in page.locator("header").inner_text()
            old = server.client.post("/api/v1/tokens", json={"username": "dana", "password": "dana-password"})
            assert old.status_code == 401
            browser.close()
    finally:
        stop_worker()
        server.client.close()
        server.db.dispose()
    assert (ARTIFACTS / "participant-3-leaderboard.png").stat().st_size > 10_000
