"""Leaderboard assembly and visibility rules, shared by the pages, the API and the exports.

Visibility, in one place:

* corpus scores of a phase are shown to everyone when ``scores_visible == "always"``, after
  the phase ends for ``"after_end"``, and to hosts only otherwise (hosts always see them);
* per-image scores and references exist only for ``public`` splits, and only for the
  submitting team and hosts; hidden splits never expose either, to anyone;
* private submissions appear only to their team and to hosts.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from capeval.server.models import Challenge, Phase, Result, Split, Submission, User, utcnow
from capeval.server.scoring import compare_to_baseline

__all__ = [
    "Leaderboard",
    "LeaderboardRow",
    "SignificanceCache",
    "SplitBoard",
    "build_leaderboard",
    "can_see_items",
    "latest_results",
    "leaderboard_csv",
    "leaderboard_json",
    "scores_visible",
]

#: Significance cache size (entries are small dicts); results are immutable, so entries never go stale.
_SIG_CACHE_MAX = 20_000


class SignificanceCache:
    """Paired-bootstrap outcomes keyed by (baseline result, entry result, column, resamples, seed).

    One per application (result ids are only unique within one database).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.data: dict[tuple[int, int, str, int, int], dict[str, float] | None] = {}


#: SPICE outputs hidden from the HTML table: precision/recall parts (``spice-pr``, ``spice-object-re``).
_SPICE_DETAIL = re.compile(r"^spice(-[a-z]+)?-(pr|re)$")


def scores_visible(phase: Phase, user: User | None, now: datetime | None = None) -> bool:
    """Whether ``user`` may see corpus scores of submissions to ``phase``."""
    if user is not None and user.is_host:
        return True
    if phase.scores_visible == "always":
        return True
    if phase.scores_visible == "after_end":
        return phase.ends_at is not None and (now or utcnow()) >= phase.ends_at
    return False


def can_see_items(split: Split, submission: Submission, user: User | None) -> bool:
    """Whether ``user`` may see per-image scores and references of ``submission`` on ``split``."""
    if split.visibility != "public" or user is None:
        return False
    return user.is_host or user.team_id == submission.team_id


def can_see_submission(submission: Submission, user: User | None) -> bool:
    """Public and baseline submissions are listed for everyone; private ones for their team and hosts."""
    if submission.is_public or submission.is_baseline:
        return True
    return user is not None and (user.is_host or user.team_id == submission.team_id)


def latest_results(session: Session, submission_ids: list[int]) -> dict[tuple[int, int], Result]:
    """The newest result per (submission, split)."""
    if not submission_ids:
        return {}
    out: dict[tuple[int, int], Result] = {}
    rows = session.scalars(select(Result).where(Result.submission_id.in_(submission_ids)).order_by(Result.id))
    for row in rows:
        out[(row.submission_id, row.split_id)] = row
    return out


@dataclass
class LeaderboardRow:
    """One entry of a split's table."""

    submission_id: int
    team: str
    method: str
    phase: str
    created_at: str
    is_baseline: bool
    is_public: bool
    own: bool
    scores: dict[str, float] | None
    significance: dict[str, dict[str, float] | None] = field(default_factory=dict)
    drilldown: bool = False


@dataclass
class SplitBoard:
    """A split's table: columns, rows, signatures."""

    split: str
    visibility: str
    n_images: int
    nrefs: str
    columns: list[str]
    shown_columns: list[str]
    rows: list[LeaderboardRow]
    signatures: dict[str, str]
    scores_hidden: bool
    #: The entry significance is computed against (the baseline unless another was chosen).
    baseline_id: int | None


@dataclass
class Leaderboard:
    """All split tables of a challenge."""

    slug: str
    title: str
    boards: list[SplitBoard]
    bootstrap: dict[str, int]


def display_columns(columns: list[str]) -> list[str]:
    """Leaderboard columns: every corpus score except SPICE's per-category precision/recall
    (the F-scores are shown; the JSON export keeps everything)."""
    return [c for c in columns if not _SPICE_DETAIL.match(c)]


def _significance(
    cache: SignificanceCache, base: Result, row: Result, columns: list[str], n_resamples: int, seed: int
) -> dict[str, dict[str, float] | None]:
    out: dict[str, dict[str, float] | None] = {}
    base_items: dict[str, Any] | None = None
    row_items: dict[str, Any] | None = None
    for column in columns:
        key = (base.id, row.id, column, n_resamples, seed)
        with cache.lock:
            if key in cache.data:
                out[column] = cache.data[key]
                continue
        if base_items is None:
            base_items = json.loads(base.items_json)
            row_items = json.loads(row.items_json)
        value = compare_to_baseline(base_items, row_items or {}, column, n_resamples=n_resamples, seed=seed)
        with cache.lock:
            if len(cache.data) > _SIG_CACHE_MAX:
                cache.data.clear()
            cache.data[key] = value
        out[column] = value
    return out


def build_leaderboard(
    session: Session,
    challenge: Challenge,
    user: User | None,
    *,
    n_resamples: int,
    seed: int,
    cache: SignificanceCache | None = None,
    versus: int | None = None,
) -> Leaderboard:
    """Assemble every split table of ``challenge`` as ``user`` may see it.

    Significance is computed against the baseline entry, or against submission ``versus`` when
    that entry is visible on the split.
    """
    now = utcnow()
    phases = {p.id: p for p in challenge.phases}
    submissions = list(
        session.scalars(
            select(Submission)
            .where(Submission.phase_id.in_(list(phases)), Submission.status == "finished")
            .order_by(Submission.id)
        )
    )
    submissions = [s for s in submissions if can_see_submission(s, user)]
    results = latest_results(session, [s.id for s in submissions])
    boards = []
    for split in challenge.splits:
        entries = [(s, results[(s.id, split.id)]) for s in submissions if (s.id, split.id) in results]
        columns: list[str] = []
        signatures: dict[str, str] = {}
        for _, result in entries:
            for name in json.loads(result.scores_json):
                if name not in columns:
                    columns.append(name)
            signatures.update(json.loads(result.signatures_json))
        chosen = next((r for s, r in entries if versus is not None and s.id == versus), None)
        baseline = chosen or next((r for s, r in reversed(entries) if s.is_baseline), None)
        reference_id = next((s.id for s, r in entries if r is baseline), None)
        hidden_any = False
        rows = []
        for submission, result in entries:
            phase = phases[submission.phase_id]
            visible = scores_visible(phase, user, now)
            hidden_any = hidden_any or not visible
            row = LeaderboardRow(
                submission_id=submission.id,
                team=submission.team.name,
                method=submission.method_name or f"submission {submission.id}",
                phase=phase.name,
                created_at=submission.created_at.strftime("%Y-%m-%d %H:%M UTC"),
                is_baseline=submission.is_baseline,
                is_public=submission.is_public,
                own=user is not None and user.team_id == submission.team_id,
                scores=json.loads(result.scores_json) if visible else None,
                drilldown=can_see_items(split, submission, user),
            )
            if visible and cache is not None and baseline is not None and result is not baseline:
                columns_shown = display_columns(columns)
                row.significance = _significance(cache, baseline, result, columns_shown, n_resamples, seed)
            rows.append(row)
        if hidden_any and not any(r.scores for r in rows):
            signatures = {}
        boards.append(
            SplitBoard(
                split=split.name,
                visibility=split.visibility,
                n_images=split.n_images,
                nrefs=split.nrefs,
                columns=columns,
                shown_columns=display_columns(columns),
                rows=rows,
                signatures=signatures,
                scores_hidden=hidden_any,
                baseline_id=reference_id,
            )
        )
    return Leaderboard(
        slug=challenge.slug,
        title=challenge.title,
        boards=boards,
        bootstrap={"n_resamples": n_resamples, "seed": seed},
    )


def leaderboard_json(board: Leaderboard) -> dict[str, Any]:
    """JSON export of a leaderboard (only what the viewer may see)."""
    return {
        "challenge": board.slug,
        "title": board.title,
        "significance": {"method": "paired bootstrap vs baseline", "confidence": 0.95, **board.bootstrap},
        "splits": [
            {
                "split": b.split,
                "visibility": b.visibility,
                "n_images": b.n_images,
                "nrefs": b.nrefs,
                "signatures": b.signatures,
                "scores_hidden": b.scores_hidden,
                "compared_to": b.baseline_id,
                "entries": [
                    {
                        "submission_id": r.submission_id,
                        "team": r.team,
                        "method": r.method,
                        "phase": r.phase,
                        "created_at": r.created_at,
                        "baseline": r.is_baseline,
                        "scores": r.scores,
                        "vs_baseline": r.significance or None,
                    }
                    for r in b.rows
                ],
            }
            for b in board.boards
        ],
    }


def leaderboard_csv(board: Leaderboard) -> str:
    """CSV export: one line per (split, entry); hidden scores are empty cells."""
    columns: list[str] = []
    for b in board.boards:
        columns += [c for c in b.columns if c not in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["split", "submission_id", "team", "method", "phase", "created_at", "baseline", *columns])
    for b in board.boards:
        for r in b.rows:
            scores = r.scores or {}
            writer.writerow(
                [
                    b.split,
                    r.submission_id,
                    r.team,
                    r.method,
                    r.phase,
                    r.created_at,
                    int(r.is_baseline),
                    *(f"{scores[c]:.6f}" if c in scores else "" for c in columns),
                ]
            )
    return out.getvalue()
