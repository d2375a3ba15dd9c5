"""Baseline entries named in a challenge config (``baseline = {phase = "results.json"}``).

Each file goes through the same checks as a participant's upload, then becomes a baseline
submission of the first host account, queued for scoring. A phase that already has a baseline
is left alone, so restarting the server never duplicates one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlalchemy import select

from capeval.server.config import ChallengeConfig, Settings
from capeval.server.db import Database
from capeval.server.models import Submission, User
from capeval.server.services.audit import audit
from capeval.server.services.challenges import get_phase, phase_image_ids
from capeval.server.services.intake import parse_upload, validate_results
from capeval.server.services.submissions import create_submission

__all__ = ["NO_HOST_HINT", "first_host", "install_baselines", "queue_baseline"]

#: Printed when a configured challenge has no host account yet.
NO_HOST_HINT = (
    "no host account yet: nobody can run the host panel or own the baselines. Add one with\n"
    "  CAPEVAL_HOST_PASSWORD='a long password' capeval serve --config {config} --add-host NAME\n"
    "(an existing account NAME is granted host rights; its password is kept)"
)


def first_host(db: Database) -> User | None:
    """The oldest host account, if any."""
    with db.read() as session:
        return session.scalar(select(User).where(User.is_host.is_(True)).order_by(User.id))


def install_baselines(db: Database, config: ChallengeConfig, settings: Settings, scorer_version: str) -> list[str]:
    """Queue the configured baseline of every phase that has none; returns a line per phase for the log.

    Raises:
        ValueError: a baseline file that fails the upload checks (naming the file and the problem).
    """
    if not config.baseline:
        return []
    host = first_host(db)
    if host is None:
        return [f"baselines of {config.slug!r} wait for a host account (--add-host)"]
    lines = []
    for phase_name, path in config.baseline.items():
        with db.read() as session:
            phase_id = get_phase(session, config.slug, phase_name).id
            exists = session.scalar(
                select(Submission.id).where(Submission.phase_id == phase_id, Submission.is_baseline.is_(True))
            )
        if exists is not None:
            continue
        try:
            sid, count = queue_baseline(
                db,
                host.id,
                config.slug,
                phase_name,
                Path(path).name,
                Path(path).read_bytes(),
                settings=settings,
                scorer_version=scorer_version,
                where=str(path),
            )
        except ValueError as exc:
            raise ValueError(f"baseline of phase {phase_name!r} ({path}): {exc}") from None
        lines.append(f"baseline of {config.slug}/{phase_name} queued as submission {sid} ({count} images)")
    return lines


def queue_baseline(
    db: Database,
    owner_id: int,
    slug: str,
    phase_name: str,
    filename: str,
    data: bytes,
    *,
    settings: Settings,
    scorer_version: str,
    actor: User | None = None,
    where: str | None = None,
) -> tuple[int, int]:
    """Check a baseline results file as a participant's upload is checked and queue it as a baseline
    entry of ``owner_id`` (audited as ``install_baseline``); returns ``(submission id, images)``.

    Raises:
        ValueError: the file fails the upload checks (a domain error naming the problem).
    """
    with db.read() as session:
        phase = get_phase(session, slug, phase_name)
        phase_id, expected = phase.id, phase_image_ids(phase)
    parsed = parse_upload(
        data,
        content_type="application/zip" if filename.endswith(".zip") else "application/json",
        filename=filename,
        max_members=settings.max_zip_members,
        max_unzipped=settings.max_unzipped_bytes,
    )
    captions = validate_results(
        parsed.document, expected, max_caption_chars=settings.max_caption_chars, where=where or filename
    )
    sid = create_submission(
        db,
        user_id=owner_id,
        phase_id=phase_id,
        captions=captions,
        file_sha256=hashlib.sha256(data).hexdigest(),
        filename=filename,
        n_bytes=len(data),
        scorer_version=scorer_version,
        max_attempts=settings.max_attempts,
        method_name=f"baseline ({filename})",
        is_baseline=True,
        enforce_limits=False,
        raw=data,
    )
    with db.write() as session:
        audit(session, actor, "install_baseline", f"submission:{sid}", f"phase:{slug}/{phase_name} {where or filename}")
    return sid, len(captions)
