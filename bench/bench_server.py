"""Benchmark: evaluation-server latency with a 200-entry leaderboard under 20 concurrent clients.

Set-up (in a temporary folder, SQLite): the demo challenge from the small test fixture
(tests/data/server: 30 public val + 30 hidden test images), 200 scored val entries of varied
quality plus the baseline, bootstrap significance at the server defaults. Then 20 client threads
on 127.0.0.1 send a bounded number of requests (default 400 per endpoint, at most 120 s each):

* ``page``: ``GET /c/coco-demo`` (the leaderboard page, anonymous);
* ``api``: ``GET /api/v1/challenges/coco-demo/leaderboard``;
* ``page-vs``: ``GET /c/coco-demo?vs=<a random entry>`` (the unauthenticated significance request
  that used to run bootstraps on every view).

Usage::

    python bench/bench_server.py                       # this tree
    python bench/bench_server.py --before /tmp/old     # also a checkout of an earlier commit, side by side

Prints p50/p95 latency (ms) and requests/s per endpoint, for each tree, and the before/after ratio.
Everything listens on loopback only. On a shared machine the absolute figures vary; the ratio is
what to read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "server"
ENDPOINTS = ("page", "api", "page-vs")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _setup(folder: Path, entries: int) -> tuple[object, object, list[int]]:
    from capeval.server.config import Settings
    from capeval.server.db import Database, upgrade_schema
    from capeval.server.demo import install_demo
    from capeval.server.models import Phase, User
    from capeval.server.scoring import scorer_version
    from capeval.server.worker import Worker

    try:
        from capeval.server.services.submissions import create_submission
    except ImportError:  # the layout before the server was split by job
        from capeval.server.services import create_submission
    from sqlalchemy import select

    metrics, tokenizer = ("bleu", "rouge-l", "cider-d"), "ws"
    settings = Settings(database_url=f"sqlite:///{folder / 'bench.db'}", metrics=metrics, tokenizer=tokenizer)
    db = Database(settings.database_url)
    upgrade_schema(db)
    version = scorer_version(metrics, tokenizer)
    install_demo(db, scorer_version=version, max_attempts=3, data_dir=DATA, host_password="bench-host-password")
    results = json.loads((DATA / "captions_val2014_fakecap_results.json").read_text())
    with db.read() as session:
        phase = session.scalar(select(Phase).where(Phase.name == "val"))
        wanted = {int(k) for s in phase.splits for k in json.loads(s.references_json)}
        phase_id = phase.id
        host_id = session.scalar(select(User.id).where(User.username == "host"))
    base = {r["image_id"]: r["caption"] for r in results if r["image_id"] in wanted}
    rng = random.Random(0)
    ids = []
    for k in range(entries):
        captions = {i: (c if rng.random() > k / entries else "a picture of a thing") for i, c in base.items()}
        ids.append(
            create_submission(
                db,
                user_id=host_id,
                phase_id=phase_id,
                captions=captions,
                file_sha256=f"{k:064x}",
                filename=f"entry-{k}.json",
                n_bytes=1,
                scorer_version=version,
                max_attempts=3,
                method_name=f"entry {k}",
                enforce_limits=False,
            )
        )
    worker = Worker(db, settings, worker_id="bench")
    worker.run(once=True)
    return settings, db, ids


def _serve(app: object) -> tuple[object, int, threading.Thread]:
    import socket

    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", backlog=512))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, port, thread


def _load(base: str, paths: list[str], clients: int, requests: int, max_seconds: float) -> dict[str, float]:
    import httpx

    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    counter = iter(range(requests))
    deadline = time.monotonic() + max_seconds

    def run() -> None:
        nonlocal errors
        with httpx.Client(base_url=base, timeout=300) as client:
            while time.monotonic() < deadline:
                with lock:
                    n = next(counter, None)
                if n is None:
                    return
                start = time.perf_counter()
                r = client.get(paths[n % len(paths)])
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    errors += r.status_code != 200

    started = time.perf_counter()
    threads = [threading.Thread(target=run) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "errors": errors,
        "p50_ms": 1000 * _quantile(latencies, 0.5) if latencies else float("nan"),
        "p95_ms": 1000 * _quantile(latencies, 0.95) if latencies else float("nan"),
        "mean_ms": 1000 * statistics.fmean(latencies) if latencies else float("nan"),
        "rps": len(latencies) / wall,
    }


def measure(entries: int, clients: int, requests: int, max_seconds: float) -> dict[str, object]:
    """Set up, serve, load each endpoint; returns the figures."""
    from capeval.server.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        settings, db, ids = _setup(Path(tmp), entries)
        app = create_app(settings, db=db, migrate=False)
        server, port, thread = _serve(app)
        base = f"http://127.0.0.1:{port}"
        import httpx

        # One warm-up view; where significance is computed by the workers, let them catch up
        # (the steady state a running server is in).
        warm_start = time.perf_counter()
        httpx.get(f"{base}/c/coco-demo", timeout=600)
        warm = time.perf_counter() - warm_start
        try:
            from capeval.server.worker import Worker

            Worker(db, settings, worker_id="bench").run(once=True)
        except Exception:  # noqa: BLE001 - older trees have nothing to compute here
            pass
        rng = random.Random(1)
        paths = {
            "page": ["/c/coco-demo"],
            "api": ["/api/v1/challenges/coco-demo/leaderboard"],
            "page-vs": [f"/c/coco-demo?vs={rng.choice(ids)}" for _ in range(requests)],
        }
        out: dict[str, object] = {"entries": entries, "warmup_s": warm}
        for name in ENDPOINTS:
            out[name] = _load(base, paths[name], clients, requests, max_seconds)
        server.should_exit = True
        thread.join(timeout=30)
        db.dispose()
    return out


def _run_tree(src: Path, args: argparse.Namespace) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
    command = [
        sys.executable,
        __file__,
        "--child",
        "--entries",
        str(args.entries),
        "--clients",
        str(args.clients),
        "--requests",
        str(args.requests),
        "--max-seconds",
        str(args.max_seconds),
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="checkout of an earlier commit to measure side by side")
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=400, help="requests per endpoint")
    parser.add_argument("--max-seconds", type=float, default=120.0, help="time cap per endpoint")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.entries, args.clients, args.requests, args.max_seconds)))
        return 0
    trees = {"after": ROOT / "src"}
    if args.before:
        trees = {"before": args.before / "src", **trees}
    figures = {name: _run_tree(src, args) for name, src in trees.items()}
    print(
        f"{args.entries} entries, {args.clients} concurrent loopback clients, <= {args.requests} requests per endpoint"
    )
    for name, fig in figures.items():
        print(f"[{name}] first view (warm-up) {fig['warmup_s']:.2f} s")
        for endpoint in ENDPOINTS:
            e = fig[endpoint]
            print(
                f"[{name}] {endpoint:8s} n={e['requests']:4d} errors={e['errors']:3d} "
                f"p50={e['p50_ms']:8.1f} ms  p95={e['p95_ms']:8.1f} ms  {e['rps']:6.1f} req/s"
            )
    if "before" in figures:
        for endpoint in ENDPOINTS:
            b, a = figures["before"][endpoint], figures["after"][endpoint]
            print(
                f"before/after {endpoint:8s} p50 x{b['p50_ms'] / a['p50_ms']:.2f}  p95 x{b['p95_ms'] / a['p95_ms']:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
