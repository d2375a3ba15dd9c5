"""Real browser (Debian chromium + Playwright): a host's week.

Monday the host has lost the password and resets it on the machine (``capeval admin
reset-password``); a participant uploads from the web form with "Show on the public leaderboard"
unticked (a browser sends nothing for the box: the entry must be private). The host creates a
second challenge from the panel, without restarting, and a participant's entry on it is scored;
moves a participant to another team; exports a phase. Friday: back up the database, wipe it,
restore it, and the leaderboard reads the same. Refused host forms keep what was typed. Screenshots
go to ``artifacts/host-week-*.png``.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest
from tests.browser.test_leaderboard_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, sync_api
from tests.server.support import (
    LiveServer,
    challenge_definition,
    challenge_files,
    make_server,
    results_for,
    split_ids,
)

from capeval.cli.main import main

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 800}
NEW_PASSWORD = "a-new-host-password"


def _shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"host-week-{name}.png"), full_page=True)


def _files(folder) -> list[str]:
    paths = []
    for name, data in challenge_files().items():
        (folder / name).write_bytes(data)
        paths.append(str(folder / name))
    return paths


def _board_rows(page, split: str = "val") -> list[str]:
    page.wait_for_selector(f'table[data-split="{split}"]')
    return [" ".join(r.inner_text().split()) for r in page.locator(f'table[data-split="{split}"] tbody tr').all()]


def _rows_when_scored(page, url: str, count: int, text: str) -> list[str]:
    """Reload ``url`` until its val board has ``count`` rows, one of them with ``text``; the page does
    not refresh itself, and until the worker has scored an entry the board has no table at all."""
    page.goto(url)
    for _ in range(600):
        if page.locator('table[data-split="val"]').count():
            rows = _board_rows(page)
            if len(rows) == count and text in " ".join(rows):
                return rows
        page.wait_for_timeout(200)
        page.reload()
    raise AssertionError(f"{url}: no {count} scored rows with {text!r} after two minutes")


def _login(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-submit")


def test_a_hosts_week(tmp_path, monkeypatch):
    data = tmp_path / "server-data"
    url = f"sqlite:///{data / 'capeval.db'}"
    server = make_server(url)
    stop_worker = server.start_worker("browser-week")
    ARTIFACTS.mkdir(exist_ok=True)
    pat = server.register("pat", team="Pat Lab")
    server.submit(pat, results_for(split_ids()[0]), query="?method_name=pat+api+entry")
    files = _files(tmp_path)
    restored_rows: list[str] = []
    try:
        with LiveServer(server.app) as live, sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            page = context.new_page()
            page.set_default_timeout(30_000)
            # Monday: the host lost the password; it is reset on the machine.
            monkeypatch.setenv("CAPEVAL_NEW_PASSWORD", NEW_PASSWORD)
            assert main(["admin", "--database-url", url, "reset-password", "host"]) == 0
            _login(page, live.url, "host", "host-password-1")
            assert "wrong username or password" in page.locator("[role=alert]").inner_text()
            # The login comes back to the page asked for.
            page.goto(f"{live.url}/host/people")
            assert "/login?next=" in page.url
            page.fill("#username", "host")
            page.fill("#password", NEW_PASSWORD)
            page.click("#login-submit")
            page.wait_for_url("**/host/people")
            _shot(page, "1-people-after-reset")
            # A participant's web upload with the public box unticked is private.
            pat_page = browser.new_context(viewport=VIEWPORT).new_page()
            _login(pat_page, live.url, "pat", "password-123")
            pat_page.goto(f"{live.url}/c/coco-demo/submit")
            pat_page.select_option("#phase", "val")
            upload = tmp_path / "web.json"
            upload.write_text(json.dumps(results_for(split_ids()[0])))
            pat_page.set_input_files("#file", str(upload))
            pat_page.fill("#method_name", "pat private web entry")
            pat_page.uncheck("#public")
            pat_page.click("#upload-submit")
            pat_page.wait_for_url("**/submissions/*")
            assert pat_page.locator("#visibility").inner_text().startswith("private")
            pat_page.wait_for_selector("#status.status-finished", timeout=60_000)
            anonymous = server.client.get("/api/v1/challenges/coco-demo/leaderboard?all=1").json()
            methods = {e["method"] for s in anonymous["splits"] for e in s["entries"]}
            assert "pat private web entry" not in methods and "pat api entry" in methods
            pat_page.goto(f"{live.url}/submissions")
            states = pat_page.locator("#my-submissions tbody td.state").all_inner_texts()
            assert states == ["finished", "finished"], states
            assert "CIDEr" in pat_page.locator("#my-submissions tbody td.scores").first.inner_text()
            _shot(pat_page, "1b-my-submissions")
            # A method name stored before the text rule, with a right-to-left override in it, stays
            # inside its own cell (the page isolates it); new ones are refused.
            from sqlalchemy import select

            from capeval.server.models import Submission

            with server.db.write() as session:
                row = session.scalar(select(Submission).where(Submission.method_name == "pat api entry"))
                row.method_name = "pat api entry \u202eyrtne"
            # Move the participant to a new team.
            row = page.locator('#user-table tr[data-user="pat"]')
            row.locator('input[name="team"]').fill("Moved Team")
            row.locator('input[name="create"]').check()
            row.locator("button.move").click()
            page.wait_for_selector("#done")
            assert "Moved Team" in page.locator('#user-table tr[data-user="pat"]').inner_text()
            _shot(page, "2-participant-moved")
            # A refused form keeps what was typed and says why, next to the form.
            page.goto(f"{live.url}/host")
            form = page.locator("#phase-form-coco-demo-val")
            form.locator('input[name="ends_at"]').fill("2030-06-30 23:59")
            form.locator('input[name="max_per_day"]').fill("9")
            form.locator("button[type=submit]").click()
            page.wait_for_selector("#error-phase-edit-coco-demo-val")
            assert "zone" in page.locator("#error-phase-edit-coco-demo-val").inner_text()
            kept = page.locator("#phase-form-coco-demo-val")
            assert kept.locator('input[name="ends_at"]').input_value() == "2030-06-30 23:59"
            assert kept.locator('input[name="max_per_day"]').input_value() == "9"
            _shot(page, "3-form-error-in-place")
            # A second challenge from the panel, live at once.
            page.goto(f"{live.url}/host/challenges")
            page.fill("#definition", challenge_definition("flickr-style"))
            page.set_input_files("#challenge-files", files)
            page.click("#create-challenge")
            page.wait_for_selector("#done")
            assert "flickr-style" in page.locator("#done").inner_text()
            _shot(page, "4-challenge-created")
            r = server.client.post(
                "/api/v1/challenges/flickr-style/phases/val/submissions?method_name=first+on+the+new+challenge",
                content=json.dumps(results_for(split_ids()[0])),
                headers={"Authorization": f"Bearer {pat}", "content-type": "application/json"},
            )
            assert r.status_code == 202, r.text
            rows = _rows_when_scored(page, f"{live.url}/c/flickr-style", 2, "first on the new challenge")
            assert len(rows) == 2 and any("B" in r and "baseline" in r for r in rows), rows
            pat_page.goto(f"{live.url}/c/flickr-style")  # a participant: test ids wait for the phase
            assert "published when the phase opens" in pat_page.locator(".phases").inner_text()
            assert pat_page.locator("#ids-val").count() == 1 and pat_page.locator("#ids-test").count() == 0
            _shot(page, "5-second-challenge-leaderboard")
            # Export a phase from the panel.
            page.goto(f"{live.url}/host")
            with page.expect_download() as info:
                page.click("#export-coco-demo-val")
            saved = tmp_path / "export.zip"
            info.value.save_as(saved)
            archive = zipfile.ZipFile(io.BytesIO(saved.read_bytes()))
            manifest = json.loads(archive.read("manifest.json"))
            exported = {s["method_name"] for s in manifest["submissions"]}
            assert exported >= {"pat api entry \u202eyrtne", "pat private web entry"}
            assert "roster.csv" in archive.namelist()
            # Friday: the leaderboard as everyone and as the host see it, then a backup.
            page.goto(f"{live.url}/c/coco-demo?all=1")
            host_rows = _board_rows(page)
            visitor = browser.new_context(viewport=VIEWPORT).new_page()
            visitor.goto(f"{live.url}/c/coco-demo?all=1")
            public_rows = _board_rows(visitor)
            legacy = visitor.locator('table[data-split="val"] tbody tr', has_text="Pat Lab")
            assert legacy.locator("bdi.method").count() == 1 and legacy.locator("bdi.team").inner_text() == "Pat Lab"
            _shot(visitor, "6-leaderboard-before-backup")
            before = server.client.get("/api/v1/challenges/coco-demo/leaderboard?all=1").json()
            backup = tmp_path / "friday.backup"
            assert main(["admin", "--database-url", url, "backup", str(backup)]) == 0
            browser.close()
    finally:
        stop_worker()
        server.client.close()
        server.db.dispose()
    # The disk is wiped; the backup is restored; the server starts again.
    shutil.rmtree(data)
    assert main(["admin", "--database-url", url, "restore", str(backup), "--yes"]) == 0
    again = make_server(url)
    try:
        with LiveServer(again.app) as live, sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            visitor = browser.new_context(viewport=VIEWPORT).new_page()
            visitor.goto(f"{live.url}/c/coco-demo?all=1")
            restored_rows = _board_rows(visitor)
            _shot(visitor, "7-leaderboard-after-restore")
            host = browser.new_context(viewport=VIEWPORT).new_page()
            _login(host, live.url, "host", NEW_PASSWORD)
            host.goto(f"{live.url}/c/coco-demo?all=1")
            assert _board_rows(host) == host_rows
            host.goto(f"{live.url}/host#audit")
            audit = host.locator("#audit-log").inner_text()
            for action in ("set_password", "move_user", "install_challenge", "export_phase"):
                assert action in audit, action
            _shot(host, "8-audit-after-restore")
            browser.close()
        assert again.client.get("/api/v1/challenges/coco-demo/leaderboard?all=1").json() == before
        assert "flickr-style" in {c["slug"] for c in again.client.get("/api/v1/challenges").json()}
    finally:
        again.client.close()
        again.db.dispose()
    assert restored_rows == public_rows
