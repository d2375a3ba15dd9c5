"""Scoring workers: claim a job, keep its lease alive, score every split, store the results.

A worker is a plain loop over the job table (no broker). While a job runs, a heartbeat
thread renews its lease; if the worker dies, the lease runs out and any worker's reaper
pass requeues the job (up to ``max_attempts``). Results are keyed by (submission, split,
scorer version), so a job that runs twice still leaves exactly one row per split.

When the queue is empty a worker computes pending significance comparisons
(:mod:`capeval.server.services.significance`), so page views never run a bootstrap.

Run one from the shell with ``python -m capeval.server.worker --database-url URL [--config FILE]``;
``capeval serve`` starts its workers as subprocesses with its resolved settings
(``--settings-json``), so the server and its workers cannot disagree.
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
from capeval.server.services.jobs import ClaimedJob, claim_job, complete_job, fail_job, heartbeat, reap_jobs
from capeval.server.services.significance import compute_pending

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
                if compute_pending(self.db, limit=1):
                    continue
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
            significance = (self.settings.bootstrap_resamples, self.settings.bootstrap_seed)
            complete_job(self.db, job, self.worker_id, results, significance=significance)
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


def _watch_parent(parent_pid: int, worker: Worker) -> None:
    """Stop the worker once its parent is gone (the server was killed without stopping it)."""
    while not worker.stop_event.wait(POLL_SECONDS * 4):
        if os.getppid() != parent_pid:
            log.warning("server process %d is gone; stopping", parent_pid)
            worker.stop_event.set()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of a worker subprocess."""
    parser = argparse.ArgumentParser(prog="python -m capeval.server.worker")
    parser.add_argument("--settings-json", help="the resolved settings as JSON (how `capeval serve` starts workers)")
    parser.add_argument("--database-url", help="SQLAlchemy URL (overrides the config and $CAPEVAL_DATABASE_URL)")
    parser.add_argument("--config", help="config file whose [server] table supplies the settings")
    parser.add_argument("--tokenizer", help="override the tokenizer")
    parser.add_argument("--metrics", help="comma-separated metrics (override)")
    parser.add_argument("--lease-seconds", type=float)
    parser.add_argument("--job-timeout", type=float, help="seconds before a job is given up (override)")
    parser.add_argument("--debug-delay", type=float, help="sleep after claiming (testing aid)")
    parser.add_argument("--once", action="store_true", help="exit when the queue is empty")
    parser.add_argument("--worker-id")
    parser.add_argument("--parent-pid", type=int, help="exit when this process (the server) is gone")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="capeval worker %(process)d: %(levelname)s: %(message)s")
    if args.settings_json:
        if args.config or args.database_url:
            parser.error("--settings-json already holds every setting; do not combine it with --config/--database-url")
        settings = Settings.from_json(args.settings_json)
    else:
        from capeval.server.config import resolve_settings

        overrides = {
            "database_url": args.database_url,
            "tokenizer": args.tokenizer,
            "metrics": tuple(m for m in args.metrics.split(",") if m) if args.metrics else None,
            "lease_seconds": args.lease_seconds,
            "job_timeout_seconds": args.job_timeout,
            "worker_debug_delay": args.debug_delay,
        }
        settings, _ = resolve_settings(args.config, overrides=overrides)
    worker = Worker(Database(settings.database_url), settings, args.worker_id, exit_on_timeout=True)

    # SIGTERM (``capeval serve`` shutting down, systemd, docker stop) and SIGINT: finish the
    # current job, then exit.
    def stop(signum: int, frame: object) -> None:
        worker.stop_event.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.parent_pid:
        threading.Thread(target=_watch_parent, args=(args.parent_pid, worker), daemon=True).start()
    worker.run(once=args.once)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
