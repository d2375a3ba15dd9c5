"""Job queue: a SIGKILLed worker's job is picked up again and scored exactly once; retries are
bounded; host re-run is idempotent per scorer version; cancel frees the quota; references are
parsed once per split."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import select

from capeval.server import worker as worker_module
from capeval.server.models import AuditLog, Job, Result, Submission
from capeval.server.scoring import split_cache
from capeval.server.services import jobs as services

from .support import METRICS, TOKENIZER, make_server, postgres_url, reset_postgres, results_for, split_ids


def _upload(server, token, phase="val", ids=None):
    ids = ids if ids is not None else split_ids()[0]
    r = server.submit(token, results_for(ids), phase=phase)
    assert r.status_code == 202, r.text
    return r.json()["id"]


def _worker_command(server, *args):
    """The command line of a worker process on the server's database, with extra arguments."""
    return [sys.executable, "-m", "capeval.server.worker", "--database-url", server.settings.database_url, *args]


def _job(server, submission_id):
    with server.db.read() as session:
        return session.scalars(select(Job).where(Job.submission_id == submission_id).order_by(Job.id.desc())).first()


def _results(server, submission_id):
    with server.db.read() as session:
        return session.scalars(select(Result).where(Result.submission_id == submission_id)).all()


def test_sigkilled_worker_job_is_requeued_and_scored_once(tmp_path):
    _crash_and_recover(make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", lease_seconds=2.0))


@pytest.mark.postgres
def test_sigkilled_worker_on_postgres():
    url = postgres_url()
    if not url:
        pytest.skip("CAPEVAL_TEST_POSTGRES_URL is not set")
    reset_postgres(url)
    _crash_and_recover(make_server(url, lease_seconds=2.0))


def _crash_and_recover(server):
    server.run_jobs()  # the demo baselines
    sid = _upload(server, server.register("alice"))
    doomed = subprocess.Popen(
        _worker_command(server, "--lease-seconds", "2", "--debug-delay", "60", "--worker-id", "doomed", "--once"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            job = _job(server, sid)
            if job.status == "running" and job.worker_id == "doomed":
                break
            assert time.monotonic() < deadline, "the worker never claimed the job"
            time.sleep(0.1)
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait(timeout=10)
    finally:
        if doomed.poll() is None:
            doomed.kill()
    assert _job(server, sid).status == "running"  # orphaned until its lease runs out
    rescuer = server.worker(worker_id="rescuer")
    deadline = time.monotonic() + 30
    while _job(server, sid).status != "finished":
        assert time.monotonic() < deadline, _job(server, sid).status
        rescuer.run(once=True)
        time.sleep(0.2)
    job = _job(server, sid)
    assert job.attempts == 2 and job.worker_id == "rescuer"
    assert len(_results(server, sid)) == 1
    with server.db.read() as session:
        assert session.get(Submission, sid).status == "finished"
        assert session.scalar(select(AuditLog).where(AuditLog.action == "reap")) is not None


def test_failing_job_retries_are_bounded_and_free(server, monkeypatch):
    server.run_jobs()
    monkeypatch.setattr(services, "RETRY_BACKOFF_SECONDS", 0.0)

    def broken(*args, **kwargs):
        raise RuntimeError("scorer exploded")

    monkeypatch.setattr(worker_module, "score_split", broken)
    token = server.register("alice")
    sid = _upload(server, token)
    server.run_jobs()
    job = _job(server, sid)
    assert job.status == "failed" and job.attempts == server.settings.max_attempts
    assert "scorer exploded" in job.last_error
    view = server.client.get(f"/api/v1/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}).json()
    assert view["status"] == "failed" and "RuntimeError" in view["error"]
    assert "scorer exploded" not in json.dumps(view)  # tracebacks stay with the hosts
    quota = server.client.get("/api/v1/challenges/coco-demo", headers={"Authorization": f"Bearer {token}"})
    assert quota.json()["quota"]["val"]["total"] == 0  # a server-side failure is not charged


def test_rerun_is_idempotent_per_scorer_version(server):
    server.run_jobs()
    sid = _upload(server, server.register("alice"))
    server.run_jobs()
    first = [(r.id, r.scores_json) for r in _results(server, sid)]
    host = {"Authorization": f"Bearer {server.host_token()}"}
    r = server.client.post(f"/api/v1/submissions/{sid}/rerun", headers=host)
    assert r.status_code == 200
    assert server.client.post(f"/api/v1/submissions/{sid}/rerun", headers=host).status_code == 409
    server.run_jobs()
    assert [(r.id, r.scores_json) for r in _results(server, sid)] == first
    assert _job(server, sid).status == "finished"
    audit = server.client.get("/api/v1/audit", headers=host).json()
    assert any(a["action"] == "rerun" and a["actor"] == "host" for a in audit)


def test_host_cancel_frees_quota_and_stops_job(server):
    token = server.register("alice")
    auth = {"Authorization": f"Bearer {token}"}
    sid = _upload(server, token)
    host = {"Authorization": f"Bearer {server.host_token()}"}
    assert server.client.post(f"/api/v1/submissions/{sid}/cancel", headers=auth).status_code == 403
    assert server.client.post(f"/api/v1/submissions/{sid}/cancel", headers=host).status_code == 200
    server.run_jobs()
    assert _job(server, sid).status == "cancelled" and not _results(server, sid)
    quota = server.client.get("/api/v1/challenges/coco-demo", headers=auth).json()["quota"]["val"]
    assert quota["total"] == 0 and quota["in_flight"] == 0


def test_two_workers_never_share_a_job(server):
    token = server.register("alice")
    for _ in range(2):
        _upload(server, token)
    claimed = [services.claim_job(server.db, name, 30) for name in "abcd"]  # 2 baselines + 2 uploads
    assert len({c.job_id for c in claimed}) == 4
    assert services.claim_job(server.db, "e", 30) is None


def test_references_parsed_once_per_split(server):
    split_cache.clear()
    before = split_cache.misses
    token = server.register("alice")
    for _ in range(3):
        _upload(server, token)
        server.run_jobs()
    # The demo challenge has two splits: one preparation each, however many jobs ran.
    assert split_cache.misses - before == 2


def test_worker_cli_scores_with_the_jobs_scorer(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    done = subprocess.run(
        _worker_command(server, "--once"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with server.db.read() as session:
        versions = {r.scorer_version for r in session.scalars(select(Result))}
    assert versions == {f"capeval-{__import__('capeval').__version__}|tok:{TOKENIZER}|{','.join(METRICS)}"}


def test_stuck_job_times_out_and_worker_process_exits(tmp_path):
    from capeval.server.worker import EXIT_TIMEOUT

    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}")
    server.run_jobs()
    sid = _upload(server, server.register("alice"))
    stuck = subprocess.run(
        _worker_command(
            server,
            "--lease-seconds",
            "1.5",
            "--job-timeout",
            "2",
            "--debug-delay",
            "60",
            "--worker-id",
            "stuck",
            "--once",
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stuck.returncode == EXIT_TIMEOUT, stuck.stderr[-2000:]
    job = _job(server, sid)
    assert job.status == "queued" and job.attempts == 1 and "timed out after 2 s" in job.last_error
    deadline = time.monotonic() + 30
    while _job(server, sid).status != "finished":  # the next attempt (after the back-off) succeeds
        assert time.monotonic() < deadline
        server.worker(worker_id="healthy").run(once=True)
        time.sleep(0.3)
    assert len(_results(server, sid)) == 1


def test_the_reaper_logs_what_it_did(server, caplog):
    """A lost lease is logged as a requeue while attempts remain and as a failure after the last."""
    import logging
    from datetime import timedelta

    from capeval.server.models import utcnow

    server.run_jobs()
    sid = _upload(server, server.register("alice"))
    with server.db.write() as session:
        job = session.scalars(select(Job).where(Job.submission_id == sid)).one()
        job.max_attempts = 2
    for attempt in (1, 2):
        claimed = services.claim_job(server.db, f"lost-{attempt}", 30)
        assert claimed is not None and claimed.submission_id == sid
        with server.db.write() as session:
            session.get(Job, claimed.job_id).lease_expires_at = utcnow() - timedelta(seconds=1)
            session.get(Job, claimed.job_id).available_at = utcnow() - timedelta(seconds=1)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="capeval"):
            assert services.reap_jobs(server.db) == 1
        with server.db.write() as session:
            session.get(Job, claimed.job_id).available_at = utcnow() - timedelta(seconds=1)
        text = caplog.text
        if attempt == 1:
            assert "requeue" in text and "failed" not in text, text
        else:
            assert "requeue" not in text and "failed" in text and "2 attempts" in text, text
    assert _job(server, sid).status == "failed"
