"""Exports for hosts: every submission of a phase as one zip, and the roster.

A phase export holds ``manifest.json`` (the challenge, phase and splits with their reference hashes,
and every submission with its team, method, state, times and corpus scores), each uploaded file
byte for byte under ``submissions/``, ``scores.csv`` (one row per submission and split),
``per-image/<split>.csv`` (one row per submission and image, every per-image score column) and
``roster.csv``. Times are ISO 8601 with seconds and zone (``2026-11-24T18:40:12+00:00``).
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from typing import IO, Any

from sqlalchemy import select

from capeval._version import __version__
from capeval.server.db import Database
from capeval.server.domain.errors import Forbidden
from capeval.server.models import Submission, UploadFile, User, utcnow
from capeval.server.services.audit import audit
from capeval.server.services.challenges import get_phase
from capeval.server.services.leaderboard import csv_cell, latest_results
from capeval.server.services.users import list_users

__all__ = ["EXPORT_README", "iso", "phase_export", "roster_csv", "write_phase_export"]

EXPORT_README = """Export of a capeval evaluation server phase.

manifest.json      the challenge, the phase and its splits (reference SHA-256), every submission:
                   team, user, method, flags, status, times, file name and SHA-256, corpus scores
submissions/       each uploaded file, byte for byte (or its validated captions when the upload
                   was stored before uploads were kept: file_kept false in the manifest)
scores.csv         corpus scores, one row per submission and split
per-image/*.csv    per-image scores, one row per submission and image, per split
roster.csv         every account: user name, team, host, status, created, last login

Times are ISO 8601 with seconds and zone. Column names are capeval's metric output names.
"""


def iso(moment: Any) -> str:
    """``2026-11-24T18:40:12+00:00`` (empty for ``None``)."""
    return moment.isoformat(timespec="seconds") if moment is not None else ""


def _require_host(actor: User | None) -> None:
    if actor is not None and not actor.is_host:
        raise Forbidden("host_only", "only challenge hosts may do this")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:120]


def _csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([csv_cell(cell) for cell in row])
    return out.getvalue()


def roster_csv(db: Database, actor: User | None) -> str:
    """Every account as CSV: ``username, team, host, status, created_at, last_login_at, submissions``."""
    _require_host(actor)
    rows: list[list[Any]] = [["username", "team", "host", "status", "created_at", "last_login_at", "submissions"]]
    for user in list_users(db, actor):
        rows.append(
            [
                user["username"],
                user["team"] or "",
                int(user["host"]),
                user["status"],
                user["created_at"] or "",
                user["last_login_at"] or "",
                user["submissions"],
            ]
        )
    return _csv(rows)


def write_phase_export(db: Database, actor: User | None, slug: str, phase_name: str, target: IO[bytes]) -> int:
    """Write the export zip of a phase to ``target``; returns the number of submissions. Audited as
    ``export_phase`` (``actor`` ``None``: the command line)."""
    _require_host(actor)
    roster = roster_csv(db, actor)
    with db.read() as session:
        phase = get_phase(session, slug, phase_name)
        challenge = phase.challenge
        splits = phase.splits
        submissions = list(
            session.scalars(select(Submission).where(Submission.phase_id == phase.id).order_by(Submission.id))
        )
        results = latest_results(session, [s.id for s in submissions])
        manifest: dict[str, Any] = {
            "format": "capeval-phase-export-1",
            "capeval": __version__,
            "exported_at": iso(utcnow()),
            "exported_by": actor.username if actor is not None else "command line",
            "challenge": {"slug": challenge.slug, "title": challenge.title, "description": challenge.description},
            "phase": {
                "name": phase.name,
                "starts_at": iso(phase.starts_at) or None,
                "ends_at": iso(phase.ends_at) or None,
                "max_per_day": phase.max_per_day,
                "max_total": phase.max_total,
                "max_in_flight": phase.max_in_flight,
                "scores_visible": phase.scores_visible,
            },
            "splits": [
                {
                    "name": s.name,
                    "visibility": s.visibility,
                    "n_images": s.n_images,
                    "nrefs": s.nrefs,
                    "references_sha256": s.references_sha256,
                }
                for s in splits
            ],
            "submissions": [],
        }
        score_rows: list[list[Any]] = []
        outputs: list[str] = []
        per_image: dict[str, list[tuple[int, dict[str, Any]]]] = {s.name: [] for s in splits}
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("README.txt", EXPORT_README)
            for submission in submissions:
                upload = session.get(UploadFile, submission.id)
                if upload is not None:
                    path = f"submissions/{submission.id}-{_safe(submission.filename or 'results.json')}"
                    archive.writestr(path, upload.data)
                else:
                    path = f"submissions/{submission.id}-captions.json"
                    captions = json.loads(submission.candidates_json)
                    listed = [{"image_id": int(k), "caption": v} for k, v in captions.items()]
                    archive.writestr(path, json.dumps(listed, ensure_ascii=False))
                entry: dict[str, Any] = {
                    "id": submission.id,
                    "team": submission.team.name,
                    "user": submission.user.username,
                    "method_name": submission.method_name,
                    "method_description": submission.method_description,
                    "public": submission.is_public,
                    "baseline": submission.is_baseline,
                    "representative": submission.is_representative,
                    "hidden_at": iso(submission.hidden_at) or None,
                    "withdrawn_at": iso(submission.withdrawn_at) or None,
                    "status": str(submission.status),
                    "created_at": iso(submission.created_at),
                    "finished_at": iso(submission.finished_at) or None,
                    "file": path,
                    "file_kept": upload is not None,
                    "filename": submission.filename,
                    "file_sha256": submission.file_sha256,
                    "n_bytes": submission.n_bytes,
                    "results": {},
                }
                for split in splits:
                    result = results.get((submission.id, split.id))
                    if result is None:
                        continue
                    scores = json.loads(result.scores_json)
                    outputs += [name for name in scores if name not in outputs]
                    entry["results"][split.name] = {
                        "scores": scores,
                        "signatures": json.loads(result.signatures_json),
                        "scorer_version": result.scorer_version,
                        "scored_at": iso(result.created_at),
                    }
                    score_rows.append([submission.id, submission.team.name, submission.method_name, split.name, scores])
                    per_image[split.name].append((submission.id, json.loads(result.items_json)))
                manifest["submissions"].append(entry)
            header = ["submission_id", "team", "method", "split", *outputs]
            rows: list[list[Any]] = [header]
            for sid, team, method, split_name, scores in score_rows:
                rows.append([sid, team, method, split_name, *(_number(scores.get(o)) for o in outputs)])
            archive.writestr("scores.csv", _csv(rows))
            for split_name, entries in per_image.items():
                columns: list[str] = []
                for _, items in entries:
                    columns += [c for c in items.get("item_scores", {}) if c not in columns]
                table: list[list[Any]] = [["submission_id", "image_id", *columns]]
                for sid, items in entries:
                    values = items.get("item_scores", {})
                    for index, image_id in enumerate(items.get("ids", [])):
                        table.append([sid, image_id, *(_number(_at(values.get(c), index)) for c in columns)])
                archive.writestr(f"per-image/{_safe(split_name)}.csv", _csv(table))
            archive.writestr("roster.csv", roster)
            archive.writestr("manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False))
    with db.write() as session:
        audit(session, actor, "export_phase", f"phase:{slug}/{phase_name}", f"{len(submissions)} submission(s)")
    return len(submissions)


def _at(values: Any, index: int) -> Any:
    return values[index] if isinstance(values, list) and index < len(values) else None


def _number(value: Any) -> str:
    if isinstance(value, (int, float)) and value == value:
        return repr(float(value))
    return ""


def phase_export(db: Database, actor: User | None, slug: str, phase_name: str) -> bytes:
    """The export zip of a phase, in memory (tests, small phases)."""
    buffer = io.BytesIO()
    write_phase_export(db, actor, slug, phase_name, buffer)
    return buffer.getvalue()
