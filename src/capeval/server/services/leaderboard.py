"""Leaderboard assembly, shared by the pages, the API and the exports.

What each viewer sees is decided by :func:`capeval.server.domain.visibility.access`. Significance
markers are read from the comparisons the workers computed (:mod:`.significance`); a view never
runs a bootstrap. CSV exports neutralize cells a spreadsheet would run as a formula.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from capeval.server.db import Database
from capeval.server.domain.states import SubmissionState
from capeval.server.domain.visibility import Access, access
from capeval.server.models import Challenge, Phase, Result, Split, Submission, User, utcnow
from capeval.server.services.challenges import get_challenge
from capeval.server.services.significance import PENDING, read_comparisons, request_comparisons

__all__ = [
    "Leaderboard",
    "LeaderboardRow",
    "SplitBoard",
    "build_leaderboard",
    "csv_cell",
    "display_columns",
    "latest_results",
    "leaderboard_csv",
    "leaderboard_for",
    "leaderboard_json",
    "primary_metric",
]

#: The metric that ranks entries when a split reports it (else the split's first column).
PRIMARY_METRIC = "cider-d"


#: SPICE outputs hidden from the HTML table: precision/recall parts (``spice-pr``, ``spice-object-re``).
_SPICE_DETAIL = re.compile(r"^spice(-[a-z]+)?-(pr|re)$")


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
    #: The comparison with the reference entry waits for a worker.
    significance_pending: bool = False
    #: Place by the primary metric among ranked entries: those everyone sees (baselines, private
    #: and host-hidden entries, and hidden scores are not ranked).
    rank: int | None = None
    #: The team chose this entry to represent it.
    representative: bool = False
    #: A host hid the entry (only hosts see it listed).
    is_hidden: bool = False


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
    #: The metric that ranks the entries (``None`` without scores).
    primary: str | None = None


@dataclass
class Leaderboard:
    """All split tables of a challenge."""

    slug: str
    title: str
    boards: list[SplitBoard]
    bootstrap: dict[str, int]
    #: Every entry (``True``) or one row per team (its representative, else its best entry).
    all_entries: bool = True


def display_columns(columns: list[str]) -> list[str]:
    """Leaderboard columns: every corpus score except SPICE's per-category precision/recall
    (the F-scores are shown; the JSON export keeps everything)."""
    return [c for c in columns if not _SPICE_DETAIL.match(c)]


Entry = tuple[Submission, Access, Result]


def primary_metric(columns: list[str]) -> str | None:
    """The ranking metric of a split with these score columns."""
    if PRIMARY_METRIC in columns:
        return PRIMARY_METRIC
    return columns[0] if columns else None


def _score(entry: Entry, metric: str | None) -> float:
    """The entry's ranking score; ``-inf`` when hidden, missing or NaN (they sort last)."""
    _, acc, result = entry
    if metric is None or not acc.scores:
        return -math.inf
    value = json.loads(result.scores_json).get(metric)
    if not isinstance(value, (int, float)) or math.isnan(value):
        return -math.inf
    return float(value)


def _team_rows(entries: list[Entry], metric: str | None) -> list[Entry]:
    """One entry per team: its newest representative on the split, else its best by ``metric``
    (the newest when scores are hidden from the viewer, so the choice leaks no ranking).
    Baseline entries always keep their own rows."""
    keep: list[Entry] = [e for e in entries if e[0].is_baseline]
    by_team: dict[int, list[Entry]] = {}
    for entry in entries:
        if not entry[0].is_baseline:
            by_team.setdefault(entry[0].team_id, []).append(entry)
    for team_entries in by_team.values():
        chosen = [e for e in team_entries if e[0].is_representative]
        if chosen:
            keep.append(chosen[-1])
        elif all(e[1].scores for e in team_entries):
            keep.append(max(reversed(team_entries), key=lambda e: _score(e, metric)))
        else:
            keep.append(team_entries[-1])
    return keep


def _ranked(entries: list[Entry], metric: str | None) -> tuple[list[Entry], dict[int, int]]:
    """Entries best first (hidden, missing and NaN scores last, then by id) and competition ranks
    (1, 2, 2, 4) of the entries everyone sees with a score: baselines, private entries (listed for
    their team and the hosts) and entries a host hid get no rank, so every viewer sees the same
    rank for an entry."""
    ordered = sorted(entries, key=lambda e: (-_score(e, metric), e[0].id))
    ranks: dict[int, int] = {}
    place = 0
    previous: float | None = None
    shown = 0
    for entry in ordered:
        value = _score(entry, metric)
        submission = entry[0]
        if submission.is_baseline or not submission.is_public or submission.hidden_at is not None:
            continue
        if value == -math.inf:
            continue
        shown += 1
        if value != previous:
            place, previous = shown, value
        ranks[entry[0].id] = place
    return ordered, ranks


def build_leaderboard(
    session: Session,
    challenge: Challenge,
    user: User | None,
    *,
    n_resamples: int,
    seed: int,
    versus: int | None = None,
    all_entries: bool = True,
) -> tuple[Leaderboard, list[tuple[int, int]]]:
    """Assemble every split table of ``challenge`` as ``user`` may see it, ranked by the primary metric.

    Significance is read against the baseline entry, or against submission ``versus`` when that
    entry is visible on the split. Without ``all_entries`` each team has one row (its chosen
    representative, else its best entry). Withdrawn entries are never listed. Returns the board
    and the comparisons not recorded yet.
    """
    now = utcnow()
    phases = {p.id: p for p in challenge.phases}
    finished = session.scalars(
        select(Submission)
        .where(
            Submission.phase_id.in_(list(phases)),
            Submission.status == SubmissionState.FINISHED,
            Submission.withdrawn_at.is_(None),
            *(() if user is not None and user.is_host else (Submission.hidden_at.is_(None),)),
        )
        .options(selectinload(Submission.team))
        .order_by(Submission.id)
    )
    visible = [(s, access(user, s, phases[s.phase_id], now)) for s in finished]
    visible = [(s, a) for s, a in visible if a.listed]
    results = latest_results(session, [s.id for s, _ in visible])
    boards = []
    missing: list[tuple[int, int]] = []
    for split in challenge.splits:
        entries = [(s, a, results[(s.id, split.id)]) for s, a in visible if (s.id, split.id) in results]
        chosen = next((e for e in entries if versus is not None and e[0].id == versus and e[1].scores), None)
        reference = chosen or next((e for e in reversed(entries) if e[0].is_baseline and e[1].scores), None)
        metric = primary_metric(_columns(entries))
        if not all_entries:
            entries = _team_rows(entries, metric)
            if reference is not None and reference not in entries:
                entries.append(reference)
        entries, ranks = _ranked(entries, metric)
        compared: dict[int, Any] = {}
        if reference is not None:
            others = [r.id for s, a, r in entries if a.scores and r is not reference[2]]
            compared = read_comparisons(session, reference[2].id, others, n_resamples, seed)
            missing += [(reference[2].id, rid) for rid in others if rid not in compared]
        board_ = _split_board(split, entries, reference, compared, user, phases)
        board_.primary = metric
        for row in board_.rows:
            row.rank = ranks.get(row.submission_id)
        boards.append(board_)
    board = Leaderboard(
        slug=challenge.slug,
        title=challenge.title,
        boards=boards,
        bootstrap={"n_resamples": n_resamples, "seed": seed},
        all_entries=all_entries,
    )
    return board, missing


def _columns(entries: list[Entry]) -> list[str]:
    columns: list[str] = []
    for _, _, result in entries:
        for name in json.loads(result.scores_json):
            if name not in columns:
                columns.append(name)
    return columns


def _split_board(
    split: Split,
    entries: list[Entry],
    reference: Entry | None,
    compared: dict[int, Any],
    user: User | None,
    phases: dict[int, Phase],
) -> SplitBoard:
    columns = _columns(entries)
    signatures: dict[str, str] = {}
    for _, _, result in entries:
        signatures.update(json.loads(result.signatures_json))
    rows = []
    for submission, acc, result in entries:
        row = LeaderboardRow(
            submission_id=submission.id,
            team=submission.team.name,
            method=submission.method_name or f"submission {submission.id}",
            phase=phases[submission.phase_id].name,
            created_at=submission.created_at.isoformat(timespec="seconds"),
            is_baseline=submission.is_baseline,
            is_public=submission.is_public,
            own=user is not None and user.team_id == submission.team_id,
            scores=json.loads(result.scores_json) if acc.scores else None,
            drilldown=acc.items(split.name),
            representative=submission.is_representative,
            is_hidden=submission.hidden_at is not None,
        )
        if acc.scores and reference is not None and result is not reference[2]:
            value = compared.get(result.id, PENDING)
            row.significance_pending = value == PENDING
            row.significance = {} if value == PENDING else value
        rows.append(row)
    hidden_any = any(not acc.scores for _, acc, _ in entries)
    if hidden_any and not any(r.scores for r in rows):
        signatures = {}
    return SplitBoard(
        split=split.name,
        visibility=split.visibility,
        n_images=split.n_images,
        nrefs=split.nrefs,
        columns=columns,
        shown_columns=display_columns(columns),
        rows=rows,
        signatures=signatures,
        scores_hidden=hidden_any,
        baseline_id=reference[0].id if reference is not None else None,
    )


def leaderboard_for(
    db: Database,
    slug: str,
    user: User | None,
    *,
    n_resamples: int,
    seed: int,
    versus: int | None = None,
    all_entries: bool = True,
) -> Leaderboard:
    """The leaderboard of ``slug`` for ``user``; comparisons it lacks are requested from the workers."""
    with db.read() as session:
        board, missing = build_leaderboard(
            session,
            get_challenge(session, slug),
            user,
            n_resamples=n_resamples,
            seed=seed,
            versus=versus,
            all_entries=all_entries,
        )
    if missing:
        with db.write() as session:
            request_comparisons(session, missing, n_resamples, seed)
    return board


def leaderboard_json(board: Leaderboard) -> dict[str, Any]:
    """JSON export of a leaderboard (only what the viewer may see)."""
    return {
        "challenge": board.slug,
        "title": board.title,
        "significance": {"method": "paired bootstrap vs baseline", "confidence": 0.95, **board.bootstrap},
        "view": "all" if board.all_entries else "teams",
        "splits": [
            {
                "split": b.split,
                "visibility": b.visibility,
                "n_images": b.n_images,
                "nrefs": b.nrefs,
                "signatures": b.signatures,
                "scores_hidden": b.scores_hidden,
                "compared_to": b.baseline_id,
                "ranked_by": b.primary,
                "significance_pending": any(r.significance_pending for r in b.rows),
                "entries": [
                    {
                        "submission_id": r.submission_id,
                        "rank": r.rank,
                        "representative": r.representative,
                        "team": r.team,
                        "method": r.method,
                        "phase": r.phase,
                        "created_at": r.created_at,
                        "baseline": r.is_baseline,
                        "public": r.is_public,
                        "hidden": r.is_hidden,
                        "scores": r.scores,
                        "vs_baseline": r.significance or None,
                    }
                    for r in b.rows
                ],
            }
            for b in board.boards
        ],
    }


#: First characters that make a spreadsheet treat a cell as a formula (OWASP CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as text: strings starting like a formula get a leading ``'``."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def leaderboard_csv(board: Leaderboard) -> str:
    """CSV export: one line per (split, entry); hidden scores are empty cells."""
    columns: list[str] = []
    for b in board.boards:
        columns += [c for c in b.columns if c not in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["split", "rank", "submission_id", "team", "method", "phase", "created_at", "baseline", *columns]
    writer.writerow(header)
    for b in board.boards:
        for r in b.rows:
            scores = r.scores or {}
            writer.writerow(
                [
                    csv_cell(b.split),
                    "" if r.rank is None else r.rank,
                    r.submission_id,
                    csv_cell(r.team),
                    csv_cell(r.method),
                    csv_cell(r.phase),
                    r.created_at,
                    int(r.is_baseline),
                    *(f"{scores[c]:.6f}" if c in scores else "" for c in columns),
                ]
            )
    return out.getvalue()
