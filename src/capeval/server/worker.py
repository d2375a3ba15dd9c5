"""Scoring workers: claim a job, keep its lease alive, score every split, store the results.

A worker is a plain loop over the job table (no broker). While a job runs, a heartbeat
thread renews its lease; if the worker dies, the lease runs out and any worker's reaper
pass requeues the job (up to ``max_attempts``). Results are keyed by (submission, split,
scorer version), so a job that runs twice still leaves exactly one row per split.

Run one from the shell with ``python -m capeval.server.worker --database-url URL``;
``capeval serve`` starts its workers as subprocesses the same way.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import socket
import threading
import time
import traceback
from collections.abc import Sequence

from capeval.server.config import Settings
from capeval.server.db import Database
from capeval.server.models import Result, Submission
from capeval.server.scoring import parse_scorer_version, score_split, split_cache
from capeval.server.services import ClaimedJob, claim_job, complete_job, fail_job, heartbeat, reap_jobs

__all__ = ["Worker", "main"]

log = logging.getLogger("capeval")

#: Seconds between polls of an empty queue.
POLL_SECONDS = 0.5
#: Heartbeats per lease period (renew well before the lease runs out).
HEARTBEATS_PER_LEASE = 3
#: Exit status of a worker process that gave up a job after ``job_timeout_seconds``.
EXIT_TIMEOUT = 3


class Worker:
    """One scoring worker.

    Args:
        db: The database.
        settings: Server settings (metrics, tokenizer, lease, debug delay).
        worker_id: Name recorded on claimed jobs (default: host:pid).
    """

    def __init__(
        self, db: Database, settings: Settings, worker_id: str | None = None, *, exit_on_timeout: bool = False
    ) -> None:
        self.db = db
        self.settings = settings
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
        # A stuck scorer cannot be interrupted from inside the process: a worker process exits
        # (and is restarted by its supervisor) instead of holding the job forever.
        self.exit_on_timeout = exit_on_timeout
        self.stop_event = threading.Event()

    def run(self, *, once: bool = False, max_idle_seconds: float | None = None) -> int:
        """Process jobs until stopped; with ``once`` return after the queue is empty. Returns jobs done."""
        done = 0
        idle_since = time.monotonic()
        while not self.stop_event.is_set():
            reap_jobs(self.db)
            job = claim_job(self.db, self.worker_id, self.settings.lease_seconds)
            if job is None:
                if once or (max_idle_seconds is not None and time.monotonic() - idle_since > max_idle_seconds):
                    break
                self.stop_event.wait(POLL_SECONDS)
                continue
            self.process(job)
            done += 1
            idle_since = time.monotonic()
        return done

    def process(self, job: ClaimedJob) -> None:
        """Run one claimed job with a heartbeat thread; failures become retries."""
        lost = threading.Event()
        finished = threading.Event()
        interval = self.settings.lease_seconds / HEARTBEATS_PER_LEASE

        started = time.monotonic()
        timeout = self.settings.job_timeout_seconds

        def beat() -> None:
            while not finished.wait(interval):
                if time.monotonic() - started > timeout:
                    log.error("job %s: no result after %.0f s; giving it up", job.job_id, timeout)
                    fail_job(
                        self.db,
                        job,
                        self.worker_id,
                        f"timed out after {timeout:.0f} s on worker {self.worker_id}",
                        f"scoring timed out after {timeout:.0f} s",
                    )
                    lost.set()
                    if self.exit_on_timeout:
                        os._exit(EXIT_TIMEOUT)
                    return
                if not heartbeat(self.db, job.job_id, self.worker_id, self.settings.lease_seconds):
                    lost.set()
                    return

        thread = threading.Thread(target=beat, name=f"heartbeat-{job.job_id}", daemon=True)
        thread.start()
        try:
            if self.settings.worker_debug_delay > 0:
                log.info("job %s: debug delay %.1fs", job.job_id, self.settings.worker_debug_delay)
                self.stop_event.wait(self.settings.worker_debug_delay)
            results = self._score(job)
            if lost.is_set():
                log.warning("job %s was cancelled or reaped while running; dropping results", job.job_id)
                return
            complete_job(self.db, job, self.worker_id, results)
        except Exception as exc:  # noqa: BLE001 - any scorer failure is recorded and retried
            log.exception("job %s failed", job.job_id)
            fail_job(
                self.db,
                job,
                self.worker_id,
                traceback.format_exc(),
                f"scoring failed ({type(exc).__name__}); the hosts can see the details and re-run it",
            )
        finally:
            finished.set()
            thread.join()

    def _score(self, job: ClaimedJob) -> list[dict[str, object]]:
        with self.db.read() as session:
            submission = session.get(Submission, job.submission_id)
            if submission is None:
                raise RuntimeError(f"submission {job.submission_id} vanished")
            candidates = {int(k): v for k, v in json.loads(submission.candidates_json).items()}
            done = {
                r.split_id
                for r in session.query(Result).filter(
                    Result.submission_id == job.submission_id, Result.scorer_version == job.scorer_version
                )
            }
            splits = [
                (s.id, s.references_sha256, s.references_json) for s in submission.phase.splits if s.id not in done
            ]
        metrics, tokenizer = parse_scorer_version(job.scorer_version)
        results = []
        for split_id, sha256, payload in splits:
            prepared = split_cache.get(split_id, sha256, payload, metrics, tokenizer)
            row = score_split(
                {i: candidates[i] for i in prepared.ids},
                prepared,
                metrics=metrics,
                tokenizer=tokenizer,
            )
            row["split_id"] = split_id
            results.append(row)
        return results


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of a worker subprocess."""
    parser = argparse.ArgumentParser(prog="python -m capeval.server.worker")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--config", help="config file whose [server] table supplies the settings")
    parser.add_argument("--tokenizer", help="override the tokenizer")
    parser.add_argument("--metrics", help="comma-separated metrics (override)")
    parser.add_argument("--lease-seconds", type=float)
    parser.add_argument("--job-timeout", type=float, help="seconds before a job is given up (override)")
    parser.add_argument("--debug-delay", type=float, default=0.0, help="sleep after claiming (testing aid)")
    parser.add_argument("--once", action="store_true", help="exit when the queue is empty")
    parser.add_argument("--worker-id")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="capeval worker %(process)d: %(levelname)s: %(message)s")
    if args.config:
        from capeval.server.config import load_config_file

        settings, _ = load_config_file(args.config)
        settings.database_url = args.database_url
    else:
        settings = Settings(database_url=args.database_url)
    if args.tokenizer:
        settings.tokenizer = args.tokenizer
    if args.metrics:
        settings.metrics = tuple(m for m in args.metrics.split(",") if m)
    if args.lease_seconds:
        settings.lease_seconds = args.lease_seconds
    if args.job_timeout:
        settings.job_timeout_seconds = args.job_timeout
    settings.worker_debug_delay = args.debug_delay
    worker = Worker(Database(settings.database_url), settings, args.worker_id, exit_on_timeout=True)
    # SIGTERM (``capeval serve`` shutting down): finish the current job, then exit.
    signal.signal(signal.SIGTERM, lambda signum, frame: worker.stop_event.set())
    try:
        worker.run(once=args.once)
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
