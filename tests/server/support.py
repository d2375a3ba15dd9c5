"""Helpers and fixtures for the server tests: an app on a temporary database with the demo challenge
installed from the small fixture in tests/data/server (60 images: 30 public val, 30 hidden test).

Imported by ``conftest.py`` only when the server extra is installed."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from capeval.server.app import create_app
from capeval.server.config import Settings
from capeval.server.db import Database, upgrade_schema
from capeval.server.demo import install_demo
from capeval.server.scoring import scorer_version
from capeval.server.worker import Worker

DATA = Path(__file__).resolve().parents[1] / "data" / "server"
HOST_PASSWORD = "host-password-1"
METRICS = ("bleu", "rouge-l", "cider-d")
TOKENIZER = "ptb" if importlib.util.find_spec("capeval.tokenizers.ptb") else "ws"


def demo_results() -> list[dict[str, Any]]:
    """The fakecap results of the 60 fixture images."""
    return json.loads((DATA / "captions_val2014_fakecap_results.json").read_text())


def demo_references() -> dict[int, list[str]]:
    data = json.loads((DATA / "captions_val2014_demo_subset.json").read_text())
    refs: dict[int, list[str]] = {int(i["id"]): [] for i in data["images"]}
    for ann in data["annotations"]:
        refs[int(ann["image_id"])].append(ann["caption"])
    return refs


def split_ids() -> tuple[list[int], list[int]]:
    ids = sorted(demo_references())
    return ids[0::2], ids[1::2]


def results_for(ids: list[int]) -> list[dict[str, Any]]:
    wanted = set(ids)
    return [r for r in demo_results() if r["image_id"] in wanted]


def reset_postgres(url: str) -> None:
    db = Database(url)
    with db.engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    db.dispose()


@dataclass
class Server:
    app: Any
    db: Database
    settings: Settings
    client: TestClient

    def worker(self, **kw: Any) -> Worker:
        return Worker(self.db, self.settings, **kw)

    def start_worker(self, worker_id: str) -> Callable[[], None]:
        """Run a worker in a background thread; returns the function that stops it and waits."""
        worker = self.worker(worker_id=worker_id)
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()

        def stop() -> None:
            worker.stop_event.set()
            thread.join(timeout=30)

        return stop

    def run_jobs(self) -> int:
        return self.worker(worker_id="test-worker").run(once=True)

    def register(
        self, username: str, team: str | None = None, password: str = "password-123", team_code: str | None = None
    ) -> str:
        body = {"username": username, "password": password, "team": team, "team_code": team_code}
        r = self.client.post("/api/v1/register", json=body)
        assert r.status_code == 201, r.text
        r = self.client.post("/api/v1/tokens", json={"username": username, "password": password})
        assert r.status_code == 201, r.text
        return r.json()["token"]

    def submit(self, token: str, items: list[dict[str, Any]], *, phase: str = "val", query: str = "") -> Any:
        """POST a results list as json to a phase of the demo challenge; returns the response."""
        return self.client.post(
            f"/api/v1/challenges/coco-demo/phases/{phase}/submissions{query}",
            content=json.dumps(items),
            headers={"Authorization": f"Bearer {token}", "content-type": "application/json"},
        )

    def host_token(self) -> str:
        return self.host_token_with(HOST_PASSWORD)

    def host_token_with(self, password: str) -> str:
        r = self.client.post("/api/v1/tokens", json={"username": "host", "password": password})
        assert r.status_code == 201, r.text
        return r.json()["token"]


def make_server(database_url: str, **overrides: Any) -> Server:
    settings = Settings(
        database_url=database_url, metrics=METRICS, tokenizer=TOKENIZER, bootstrap_resamples=200, **overrides
    )
    db = Database(database_url)
    upgrade_schema(db)
    install_demo(
        db,
        scorer_version=scorer_version(METRICS, TOKENIZER),
        max_attempts=settings.max_attempts,
        data_dir=DATA,
        host_password=HOST_PASSWORD,
    )
    app = create_app(settings, db=db, migrate=False)
    return Server(app, db, settings, TestClient(app))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """The app on SQLite, and on PostgreSQL when ``CAPEVAL_TEST_POSTGRES_URL`` is set."""
    if request.param == "postgres":
        url = postgres_url()
        if not url:
            pytest.skip("CAPEVAL_TEST_POSTGRES_URL is not set")
        pytest.importorskip("psycopg")
        reset_postgres(url)
    else:
        url = f"sqlite:///{tmp_path / 'capeval.db'}"
    srv = make_server(url)
    yield srv
    srv.client.close()
    srv.db.dispose()


def all_routes(app: Any) -> list[Any]:
    """Every route and mount of the app, with routers included by ``include_router`` flattened."""
    out = []
    for route in app.routes:
        original = getattr(route, "original_router", None)
        if original is not None:
            out += all_routes(original)
        else:
            out.append(route)
    return out


CSRF_FIELD = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')


def csrf_token(client: Any, page: str = "/login") -> str:
    """The CSRF token of the client's browser session, read from a page's form."""
    match = CSRF_FIELD.search(client.get(page, headers={"accept": "text/html"}).text)
    assert match, f"no CSRF token on {page}"
    return match.group(1)


def postgres_url() -> str | None:
    return os.environ.get("CAPEVAL_TEST_POSTGRES_URL") or None


class LiveServer:
    """The app served by uvicorn on 127.0.0.1 in a background thread, configured as ``capeval serve``
    configures it (:func:`capeval.server.app.uvicorn_config`)."""

    def __init__(self, app: Any) -> None:
        import socket
        import threading

        import uvicorn

        from capeval.server.app import uvicorn_config

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn_config(app, "127.0.0.1", self.port, backlog=512)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        import time

        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


#: A second challenge's definition (the panel's and the API's format): a public val split and a
#: hidden test split made of the fixture's images, a baseline on val, a test phase opening in 2030.
SECOND_CHALLENGE = """slug = "{slug}"
title = "A second challenge"
description = "Created while the server ran."
{baseline}

[[splits]]
name = "val"
references = "val-refs.json"

[[splits]]
name = "test"
references = "test-refs.json"
visibility = "hidden"

[[phases]]
name = "val"
splits = ["val"]
max_per_day = 10

[[phases]]
name = "test"
splits = ["test"]
starts_at = "2030-01-01T00:00:00+02:00"
max_per_day = 2
"""


def challenge_definition(slug: str, *, baseline: bool = True) -> str:
    """:data:`SECOND_CHALLENGE` under ``slug`` (its files: :func:`challenge_files`)."""
    return SECOND_CHALLENGE.format(slug=slug, baseline='baseline = { val = "base-val.json" }' if baseline else "")


def challenge_files() -> dict[str, bytes]:
    """The files :func:`challenge_definition` names: the two splits' references and the val baseline."""
    refs = demo_references()
    val, test = split_ids()
    return {
        "val-refs.json": json.dumps({str(i): refs[i] for i in val}).encode(),
        "test-refs.json": json.dumps({str(i): refs[i] for i in test}).encode(),
        "base-val.json": json.dumps(results_for(val)).encode(),
    }


def database_url(tmp_path: Path, backend: str) -> str:
    """A fresh database of ``backend`` (``sqlite`` in ``tmp_path``, or the emptied PostgreSQL test
    database; skips without ``CAPEVAL_TEST_POSTGRES_URL``)."""
    if backend == "postgres":
        url = postgres_url()
        if not url:
            pytest.skip("CAPEVAL_TEST_POSTGRES_URL is not set")
        reset_postgres(url)
        return url
    return f"sqlite:///{tmp_path / 'data' / 'capeval.db'}"
