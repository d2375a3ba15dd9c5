"""``capeval serve``: run the evaluation server (web app + scoring workers).

On a fresh machine it creates a SQLite database, installs the built-in demo challenge
(public val split, hidden test split, a host account, a baseline entry) and prints the
host's password once. ``--config`` installs the challenges of a TOML/JSON file instead
(see docs/server.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import warnings
from typing import Any

__all__ = ["register", "run_serve"]

log = logging.getLogger("capeval")


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="run the evaluation server (challenges, hidden test references, leaderboard)",
        description=(
            "Run the evaluation server (web app + scoring workers). On a fresh machine it creates a SQLite "
            "database, installs the built-in demo challenge (public val split, hidden test split, a host "
            "account, a baseline entry) and prints the host's password once. --config installs the "
            "challenges of a TOML/JSON file instead (see docs/server.md)."
        ),
    )
    parser.add_argument("--config", help="TOML/JSON file with [server] settings and [[challenge]] entries")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument("--database-url", help="SQLAlchemy URL (default: sqlite in --data-dir)")
    parser.add_argument("--data-dir", help="folder of the default SQLite database (default: ./capeval-server-data)")
    parser.add_argument("--workers", type=int, default=1, help="scoring worker processes (default: 1; 0: none)")
    parser.add_argument("--no-demo", action="store_true", help="do not install the built-in demo challenge")
    parser.add_argument(
        "--demo-host-password",
        default=None,
        help="password of the demo host account when it is created (default: $CAPEVAL_DEMO_HOST_PASSWORD, "
        "else a random one, printed once)",
    )
    parser.add_argument(
        "--add-host",
        metavar="USERNAME",
        action="append",
        default=[],
        help="make USERNAME a host (created with the password in $CAPEVAL_HOST_PASSWORD when new); repeatable",
    )
    parser.add_argument("--tokenizer", help="tokenizer for scoring (default: ptb)")
    parser.add_argument("--metrics", help="comma-separated metrics to score (default: every COCO metric installed)")
    parser.set_defaults(func=run_serve)


def _settings(args: argparse.Namespace) -> tuple[Any, list[Any], Any]:
    """Settings resolved once (defaults < config file < CAPEVAL_* environment < flags)."""
    from capeval.server.config import read_environment, resolve_settings

    environment = read_environment()
    overrides = {
        "database_url": args.database_url,
        "data_dir": args.data_dir,
        "tokenizer": args.tokenizer,
        "metrics": tuple(m.strip() for m in args.metrics.split(",") if m.strip()) if args.metrics else None,
    }
    settings, challenges = resolve_settings(args.config, environment=environment, overrides=overrides)
    return settings, challenges, environment


def run_serve(args: argparse.Namespace) -> int:
    """Migrate, install challenges, start workers and serve until SIGINT or SIGTERM."""
    try:
        import uvicorn

        from capeval.server.app import configure_access_log, create_app, uvicorn_config
        from capeval.server.db import Database, upgrade_schema
        from capeval.server.demo import install_demo
        from capeval.server.scoring import available_metrics, scorer_version
        from capeval.server.services.accounts import ensure_host
        from capeval.server.services.baselines import NO_HOST_HINT, first_host, install_baselines
        from capeval.server.services.challenges import install_challenge
    except ImportError as exc:
        from capeval._install import needs_extra

        print(f"{needs_extra('capeval serve', 'server')} ({exc})", file=sys.stderr)
        return 2
    from capeval.metrics.cider import OneDocumentWarning

    # This process checks each metric on a one-image corpus (available_metrics, also in create_app);
    # CIDEr-D's warning that one image scores 0 is not for the host. The scoring workers keep it.
    warnings.filterwarnings("ignore", category=OneDocumentWarning)
    settings, challenges, environment = _settings(args)
    db = Database(settings.database_url)
    upgrade_schema(db)
    metrics = available_metrics(settings.metrics)
    # Workers score with exactly the metrics found usable here.
    settings.metrics = metrics
    version = scorer_version(metrics, settings.tokenizer)
    for username in args.add_host:
        created = ensure_host(db, username, environment.host_password)
        print(f"host account {username!r} {'created' if created else 'granted host rights'}")
    for challenge in challenges:
        install_challenge(db, challenge)
        print(f"challenge {challenge.slug!r} installed")
    if challenges and first_host(db) is None:
        print(NO_HOST_HINT.format(config=args.config), file=sys.stderr)
    for challenge in challenges:
        try:
            lines = install_baselines(db, challenge, settings, version)
        except ValueError as exc:
            print(f"capeval serve: {exc}", file=sys.stderr)
            return 2
        for line in lines:
            print(line)
    demo_password = args.demo_host_password or environment.demo_host_password
    if not args.no_demo and not challenges:
        info = install_demo(db, scorer_version=version, max_attempts=settings.max_attempts, host_password=demo_password)
        if info.host_password and not demo_password:
            print(f"demo host account: username {info.host_username!r}, password {info.host_password!r}")
    print(f"scoring with: {version}")
    settings_json = settings.to_json()
    commands = [
        [
            sys.executable,
            "-m",
            "capeval.server.worker",
            "--settings-json",
            settings_json,
            "--worker-id",
            f"serve-{os.getpid()}-{index}",
            "--parent-pid",
            str(os.getpid()),
        ]
        for index in range(max(0, args.workers))
    ]
    supervisor = _Supervisor(commands)
    supervisor.start()
    app = create_app(settings, db=db, migrate=False)
    configure_access_log(settings.access_log)
    print(f"capeval server on http://{args.host}:{args.port}/ ({len(commands)} worker(s))", flush=True)
    server = uvicorn.Server(uvicorn_config(app, args.host, args.port))
    # uvicorn turns SIGINT and SIGTERM into a graceful shutdown and then re-raises the signal with
    # the handler found at start; with Python's default SIGTERM action that would end the process
    # before the workers are stopped, so both signals raise _Stopped instead.
    previous = {sig: signal.signal(sig, _raise_stopped) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run()
    except _Stopped:
        pass
    finally:
        supervisor.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


class _Stopped(Exception):
    """SIGINT or SIGTERM arrived."""


def _raise_stopped(signum: int, frame: object) -> None:
    raise _Stopped(signum)


class _Supervisor:
    """Keeps the worker processes running: one that exits (crash, job timeout) is started again."""

    #: Seconds between liveness checks.
    CHECK_SECONDS = 1.0
    #: Seconds a worker gets to finish its job after SIGTERM before it is killed.
    STOP_GRACE_SECONDS = 10.0

    def __init__(self, commands: list[list[str]]) -> None:
        import threading

        self.commands = commands
        self.processes: list[subprocess.Popen[bytes]] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    @staticmethod
    def _spawn(command: list[str]) -> subprocess.Popen[bytes]:
        # Own process group: a Ctrl-C in the terminal reaches the server, which then stops the
        # workers itself (finishing their current job), instead of interrupting them mid-job.
        return subprocess.Popen(command, start_new_session=True)

    def start(self) -> None:
        self.processes = [self._spawn(command) for command in self.commands]
        self.thread.start()

    def _watch(self) -> None:
        while not self.stopping.wait(self.CHECK_SECONDS):
            for index, process in enumerate(self.processes):
                if process.poll() is not None and not self.stopping.is_set():
                    log.warning("worker %d exited with status %s; restarting it", index, process.returncode)
                    self.processes[index] = self._spawn(self.commands[index])

    def stop(self) -> None:
        if self.stopping.is_set():
            return
        self.stopping.set()
        self.thread.join(timeout=5)
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=self.STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
