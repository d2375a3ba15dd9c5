"""Real browser (Debian chromium driven by Playwright): register, upload on the page, watch the
submission finish, find it on the leaderboard, sort a column, open the val drill-down.

Skips cleanly when the ``playwright`` package or ``/usr/bin/chromium`` is missing; never
downloads a browser. A screenshot is written to ``artifacts/`` at the repository root.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("fastapi")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)", allow_module_level=True)

from tests.server.support import LiveServer, make_server, results_for, split_ids  # noqa: E402


def _column(page, split: str, column: str) -> list[float]:
    table = page.locator(f'table[data-split="{split}"]')
    index = table.locator("thead th").evaluate_all(
        f"(ths) => ths.findIndex((th) => th.getAttribute('data-column') === '{column}')"
    )
    values = table.locator(f"tbody tr td:nth-child({index + 1})").evaluate_all(
        "(tds) => tds.map((td) => td.getAttribute('data-value'))"
    )
    return [float(v) for v in values]


def test_register_upload_leaderboard_sort_drilldown(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    stop_worker = server.start_worker("browser-test-worker")
    results = tmp_path / "captions_val2014_mine_results.json"
    val_ids = split_ids()[0]
    # Caption every val image with the same sentence: clearly worse than the baseline.
    results.write_text(json.dumps([{"image_id": r["image_id"], "caption": "a picture"} for r in results_for(val_ids)]))
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with LiveServer(server.app) as live, sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.set_default_timeout(30_000)
            page.goto(f"{live.url}/")
            page.click("#nav-register")
            page.fill("#username", "carol")
            page.fill("#password", "carol-password")
            page.fill("#team", "team carol")
            page.click("#register-submit")
            page.wait_for_selector("text=carol")
            page.click("text=Log out")
            page.click("#nav-login")
            page.fill("#username", "carol")
            page.fill("#password", "carol-password")
            page.click("#login-submit")
            page.wait_for_selector("text=team carol")
            page.click("text=COCO captions demo")
            page.click("#submit-link")
            page.select_option("#phase", "val")
            page.set_input_files("#file", str(results))
            page.fill("#method_name", "browser entry")
            page.click("#upload-submit")
            page.wait_for_url("**/submissions/*")
            page.wait_for_selector("#status.status-finished", timeout=60_000)
            assert page.locator("#status").inner_text() == "finished"
            page.goto(f"{live.url}/c/coco-demo")
            row = page.locator('table[data-split="val"] tbody tr', has_text="browser entry")
            assert row.count() == 1
            assert page.locator('table[data-split="val"] tbody tr.baseline .badge', has_text="B").count() == 1
            header = page.locator('table[data-split="val"] th[data-column="cider-d"]')
            header.click()
            descending = _column(page, "val", "cider-d")
            assert descending == sorted(descending, reverse=True) and len(descending) == 2
            header.click()
            ascending = _column(page, "val", "cider-d")
            assert ascending == sorted(ascending) and ascending != descending
            assert header.get_attribute("aria-sort") == "ascending"
            # The weak entry is marked significantly worse than the baseline.
            assert row.locator(".sig.down").count() >= 1
            page.screenshot(path=str(ARTIFACTS / "server-leaderboard.png"), full_page=True)
            row.locator("a.drilldown").click()
            page.wait_for_selector("#histogram")
            assert page.locator("table.images").first.locator("ul.refs li").count() > 0
            assert "a picture" in page.content()
            page.screenshot(path=str(ARTIFACTS / "server-drilldown.png"), full_page=True)
            browser.close()
    finally:
        stop_worker()
        server.client.close()
        server.db.dispose()
    assert (ARTIFACTS / "server-leaderboard.png").stat().st_size > 10_000
