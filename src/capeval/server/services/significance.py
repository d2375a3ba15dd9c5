"""Significance markers, computed by the workers and read by page views.

A page view never runs a bootstrap: it reads :class:`~capeval.server.models.Comparison` rows
and, for pairs not there yet, records a request (one bulk insert, idempotent). Workers compute
pending comparisons whenever the job queue is empty, so scoring always goes first.
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from capeval.server.db import Database
from capeval.server.domain.states import SubmissionState
from capeval.server.models import Comparison, Result, Submission, utcnow

__all__ = ["PENDING", "compute_pending", "read_comparisons", "request_comparisons", "requests_for_result"]

log = logging.getLogger("capeval")

#: Marker of a comparison a worker has not computed yet.
PENDING = "pending"
#: Computed comparisons kept in memory (they never change once computed).
_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[int, int, int], dict[int, Any]]] = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()
_CACHE_MAX = 200_000


def request_comparisons(session: Session, pairs: Iterable[tuple[int, int]], n_resamples: int, seed: int) -> None:
    """Ask for the comparisons ``(base result id, result id)`` not recorded yet (duplicates are ignored)."""
    rows = [
        {"base_result_id": b, "result_id": r, "n_resamples": n_resamples, "seed": seed, "requested_at": utcnow()}
        for b, r in dict.fromkeys(pairs)
        if b != r
    ]
    if not rows:
        return
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        session.execute(postgresql.insert(Comparison).values(rows).on_conflict_do_nothing())
    else:
        from sqlalchemy.dialects import sqlite

        session.execute(sqlite.insert(Comparison).values(rows).on_conflict_do_nothing())


def requests_for_result(session: Session, result: Result, n_resamples: int, seed: int) -> None:
    """Request what a newly stored result needs: it against each baseline of its split and, when it
    is itself a baseline's, every other finished entry of the split against it."""
    submission = session.get(Submission, result.submission_id)
    if submission is None:
        return
    others = session.execute(
        select(Result.id, Submission.is_baseline)
        .join(Submission, Submission.id == Result.submission_id)
        .where(
            Result.split_id == result.split_id,
            Result.id != result.id,
            Submission.status == SubmissionState.FINISHED,
        )
    ).all()
    pairs = [(other_id, result.id) for other_id, is_baseline in others if is_baseline]
    if submission.is_baseline:
        pairs += [(result.id, other_id) for other_id, _ in others]
    request_comparisons(session, pairs, n_resamples, seed)


def read_comparisons(
    session: Session, base_result_id: int, result_ids: list[int], n_resamples: int, seed: int
) -> dict[int, Any]:
    """``{result id: {output: interval | None} | PENDING}`` for what is recorded (missing ids are absent).

    Computed comparisons never change, so they are kept in a per-process cache per database engine.
    """
    engine = session.get_bind()
    key = (base_result_id, n_resamples, seed)
    with _CACHE_LOCK:
        cache = _CACHE.setdefault(engine, {})
        known = cache.get(key, {})
        out = {rid: known[rid] for rid in result_ids if rid in known}
    todo = [rid for rid in result_ids if rid not in out]
    if not todo:
        return out
    rows = session.execute(
        select(Comparison.result_id, Comparison.values_json).where(
            Comparison.base_result_id == base_result_id,
            Comparison.result_id.in_(todo),
            Comparison.n_resamples == n_resamples,
            Comparison.seed == seed,
        )
    ).all()
    computed = {rid: json.loads(values) for rid, values in rows if values is not None}
    out.update(computed)
    out.update({rid: PENDING for rid, values in rows if values is None})
    if computed:
        with _CACHE_LOCK:
            if sum(len(v) for v in cache.values()) > _CACHE_MAX:
                cache.clear()
            cache.setdefault(key, {}).update(computed)
    return out


def compute_pending(db: Database, *, limit: int = 1) -> int:
    """Compute up to ``limit`` pending comparisons (oldest first); returns how many were done."""
    from capeval.server.scoring import compare_to_baseline
    from capeval.server.services.leaderboard import display_columns

    with db.read() as session:
        todo = list(
            session.execute(
                select(
                    Comparison.id,
                    Comparison.base_result_id,
                    Comparison.result_id,
                    Comparison.n_resamples,
                    Comparison.seed,
                )
                .where(Comparison.computed_at.is_(None))
                .order_by(Comparison.id)
                .limit(limit)
            ).all()
        )
    for comparison_id, base_id, result_id, n_resamples, seed in todo:
        with db.read() as session:
            base = session.get(Result, base_id)
            row = session.get(Result, result_id)
            if base is None or row is None:
                values: dict[str, Any] = {}
            else:
                base_items, row_items = json.loads(base.items_json), json.loads(row.items_json)
                columns = display_columns(list(json.loads(row.scores_json)))
                values = {
                    c: compare_to_baseline(base_items, row_items, c, n_resamples=n_resamples, seed=seed)
                    for c in columns
                }
        with db.write() as session:
            target = session.get(Comparison, comparison_id)
            if target is not None:
                target.values_json = json.dumps(values)
                target.computed_at = utcnow()
    return len(todo)
