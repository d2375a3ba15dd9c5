"""200 simultaneous uploads against a limit of N: exactly N accepted, none lost, the rest told why.

Runs against uvicorn on 127.0.0.1, on SQLite and (marker ``postgres``) on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from sqlalchemy import select

from capeval.server.models import Job, Phase, Submission

from .support import LiveServer, results_for, split_ids

N_UPLOADS = 200
LIMIT = 7
LIMIT_KINDS = {"max_per_day": "limit_per_day", "max_total": "limit_total", "max_in_flight": "limit_in_flight"}


def _set_limit(server, kind: str) -> None:
    with server.db.read() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "val"))
        phase.max_per_day = phase.max_total = phase.max_in_flight = None
        setattr(phase, kind, LIMIT)


async def _burst(url: str, tokens: list[str], body: bytes) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=N_UPLOADS, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        start = asyncio.Event()

        async def one(i: int) -> httpx.Response:
            await start.wait()
            return await client.post(
                "/api/v1/challenges/coco-demo/phases/val/submissions",
                content=body,
                headers={"Authorization": f"Bearer {tokens[i % len(tokens)]}", "content-type": "application/json"},
            )

        tasks = [asyncio.create_task(one(i)) for i in range(N_UPLOADS)]
        await asyncio.sleep(0.1)
        start.set()
        return await asyncio.gather(*tasks)


def _check_burst(server, kind: str) -> None:
    _set_limit(server, kind)
    # Four members of one team share its quota.
    tokens = [server.register("crowd0", team="crowd")]
    code = server.client.get("/api/v1/me", headers={"Authorization": f"Bearer {tokens[0]}"}).json()["team_join_code"]
    tokens += [server.register(f"crowd{i}", team="crowd", team_code=code) for i in range(1, 4)]
    body = json.dumps(results_for(split_ids()[0])).encode()
    with LiveServer(server.app) as live:
        responses = asyncio.run(_burst(live.url, tokens, body))
    codes = [r.status_code for r in responses]
    accepted = [r for r in responses if r.status_code == 202]
    refused = [r for r in responses if r.status_code != 202]
    assert len(responses) == N_UPLOADS
    assert len(accepted) == LIMIT, sorted(set(codes))
    assert all(r.status_code == 429 for r in refused), sorted(set(codes))
    assert all(r.json()["error"] == LIMIT_KINDS[kind] and str(LIMIT) in r.json()["detail"] for r in refused)
    ids = {r.json()["id"] for r in accepted}
    with server.db.read() as session:
        stored = set(session.scalars(select(Submission.id).where(Submission.is_baseline.is_(False))))
        jobs = session.scalars(select(Job).where(Job.submission_id.in_(ids))).all()
    assert stored == ids  # none lost, none extra
    assert len(jobs) == LIMIT


@pytest.mark.parametrize("kind", list(LIMIT_KINDS))
def test_parallel_uploads(server, kind):
    # ``server`` runs on SQLite and, with CAPEVAL_TEST_POSTGRES_URL set, on PostgreSQL.
    _check_burst(server, kind)
