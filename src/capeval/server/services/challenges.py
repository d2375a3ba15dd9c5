"""Challenge set-up (from a config) and the read side of challenges, phases and splits."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from capeval.metrics.base import nrefs_label
from capeval.server.config import ChallengeConfig, PhaseConfig, parse_utc
from capeval.server.db import Database
from capeval.server.domain.errors import Forbidden, NotFound
from capeval.server.domain.times import human_time
from capeval.server.models import Challenge, Phase, PhaseSplit, Split, utcnow
from capeval.server.services.audit import audit

__all__ = [
    "PhaseIds",
    "challenge_summary",
    "get_challenge",
    "get_phase",
    "install_challenge",
    "list_challenges",
    "load_references",
    "new_phase",
    "new_split",
    "expected_ids",
    "ids_url",
    "phase_image_ids",
    "phase_opened",
    "split_payload",
    "template_url",
]

#: Longest slug or phase name looked up (longer ones cannot exist).
NAME_MAX = 80


def load_references(
    path: str | Path, image_ids: Sequence[int] | None = None, *, data: bytes | None = None
) -> dict[int, list[str]]:
    """Read a reference file with the library's reader (:func:`capeval.io.parse_references`), keeping
    the images of a split; ``data`` gives the file's bytes (an upload; ``path`` then names it).

    Raises:
        ValueError: naming the file and the problem (integer ids are required: the server's
            results files use COCO's integer ``image_id``).
    """
    from capeval.io import parse_references, read_references

    raw = read_references(path) if data is None else parse_references(data, name=str(path))
    refs: dict[int, list[str]] = {}
    for key, captions in raw.items():
        if isinstance(key, bool) or not isinstance(key, int):
            raise ValueError(f"{path}: image id {key!r} is not an integer; the server needs COCO integer ids")
        refs[key] = list(captions)
    if image_ids is not None:
        missing = [i for i in image_ids if i not in refs]
        if missing:
            raise ValueError(f"{path}: split image ids not in the file, e.g. {missing[:5]}")
        refs = {i: refs[i] for i in image_ids}
    if not refs:
        raise ValueError(f"{path}: no image has reference captions")
    empty = [i for i, r in refs.items() if not r]
    if empty:
        raise ValueError(f"{path}: images without reference captions, e.g. {empty[:5]}")
    return refs


def split_payload(refs: Mapping[int, list[str]]) -> tuple[str, str]:
    """A split's stored references (JSON, ids sorted) and their SHA-256."""
    payload = json.dumps({str(k): v for k, v in sorted(refs.items())}, ensure_ascii=False)
    return payload, hashlib.sha256(payload.encode("utf-8")).hexdigest()


def new_split(challenge_id: int, name: str, visibility: str, refs: Mapping[int, list[str]]) -> Split:
    """A split row holding ``refs`` (not yet added to a session)."""
    payload, digest = split_payload(refs)
    return Split(
        challenge_id=challenge_id,
        name=name,
        visibility=visibility,
        n_images=len(refs),
        nrefs=nrefs_label(list(refs.values())),
        references_sha256=digest,
        references_json=payload,
    )


def new_phase(challenge_id: int, config: PhaseConfig) -> Phase:
    """A phase row from its configuration (not yet added to a session; its splits are linked apart)."""
    return Phase(
        challenge_id=challenge_id,
        name=config.name,
        starts_at=parse_utc(config.starts_at) if config.starts_at else None,
        ends_at=parse_utc(config.ends_at) if config.ends_at else None,
        max_per_day=config.max_per_day,
        max_total=config.max_total,
        max_in_flight=config.max_in_flight,
        scores_visible=config.scores_visible,
        allow_dry_run=config.allow_dry_run,
    )


def install_challenge(
    db: Database,
    config: ChallengeConfig,
    references: Mapping[str, Mapping[int, list[str]]] | None = None,
    *,
    actor: Any | None = None,
) -> int:
    """Create a challenge from its config unless one with the same slug exists; returns its id.

    Args:
        db: The database.
        config: The challenge description.
        references: Optional ``{split name: {image_id: [captions]}}`` overriding the files.
        actor: The host who created it (``None``: a config file at start-up, the command line).
    """
    with db.write() as session:
        existing = session.scalar(select(Challenge).where(Challenge.slug == config.slug))
        if existing is not None:
            return existing.id
        challenge = Challenge(slug=config.slug, title=config.title, description=config.description)
        session.add(challenge)
        session.flush()
        split_ids: dict[str, int] = {}
        for sc in config.splits:
            refs = (references or {}).get(sc.name) or load_references(sc.references, sc.image_ids)
            split = new_split(challenge.id, sc.name, sc.visibility, refs)
            session.add(split)
            session.flush()
            split_ids[sc.name] = split.id
        for pc in config.phases:
            phase = new_phase(challenge.id, pc)
            session.add(phase)
            session.flush()
            for position, name in enumerate(pc.splits):
                session.add(PhaseSplit(phase_id=phase.id, split_id=split_ids[name], position=position))
        audit(session, actor, "install_challenge", f"challenge:{config.slug}")
        return challenge.id


def phase_image_ids(phase: Phase) -> set[int]:
    """Image ids a results file for this phase must cover (union of its splits)."""
    ids: set[int] = set()
    for split in phase.splits:
        ids.update(int(k) for k in json.loads(split.references_json))
    return ids


def ids_url(slug: str, phase: str) -> str:
    """Where participants download the image ids a results file for ``phase`` must cover."""
    return f"/api/v1/challenges/{slug}/phases/{phase}/image_ids"


def template_url(slug: str, phase: str) -> str:
    """Where participants download a results file skeleton for ``phase``."""
    return f"/api/v1/challenges/{slug}/phases/{phase}/template.json"


def phase_opened(phase: Phase, viewer: Any | None, now: datetime | None = None) -> bool:
    """Whether ``viewer`` may know the phase's image ids: hosts always, everyone once it has opened."""
    if viewer is not None and getattr(viewer, "is_host", False):
        return True
    return phase.starts_at is None or (now or utcnow()) >= phase.starts_at


def expected_ids(
    session: Session, slug: str, phase: str | None = None, split: str | None = None, viewer: Any | None = None
) -> list[int]:
    """Sorted image ids of a phase (the union of its splits) or of one split. Participants need them
    to caption the images, once the phase has opened: before that they are for hosts only (the ids
    of a hidden test split would tell which images to study). A split's ids are published with the
    first of its phases to open.

    Raises:
        NotFound: no such challenge, phase or split.
        Forbidden: the phase (every phase of the split) has not opened yet.
    """
    if phase is not None:
        row = get_phase(session, slug, phase)
        if not phase_opened(row, viewer):
            opens = human_time(row.starts_at) if row.starts_at else "later"
            raise Forbidden("phase_not_open", f"phase {phase!r} opens at {opens}; its image ids are published then")
        return sorted(phase_image_ids(row))
    challenge = get_challenge(session, slug)
    for split_row in challenge.splits:
        if split_row.name == split:
            phases = [p for p in challenge.phases if split_row in p.splits]
            if not any(phase_opened(p, viewer) for p in phases):
                starts = [p.starts_at for p in phases if p.starts_at is not None]
                opens = f"opens at {human_time(min(starts))}" if starts else "is in no phase"
                raise Forbidden("phase_not_open", f"split {split!r} {opens}; its image ids are published then")
            return sorted(int(k) for k in json.loads(split_row.references_json))
    raise NotFound("no_split", f"challenge {slug!r} has no split {str(split)[:NAME_MAX]!r}")


class PhaseIds:
    """Expected image ids per phase, parsed once (reference payloads can be large)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[tuple[int, tuple[str, ...]], frozenset[int]] = {}

    def get(self, phase: Phase) -> frozenset[int]:
        key = (phase.id, tuple(s.references_sha256 for s in phase.splits))
        with self._lock:
            if key not in self._data:
                self._data[key] = frozenset(phase_image_ids(phase))
            return self._data[key]


def get_challenge(session: Session, slug: str) -> Challenge:
    """The challenge ``slug``, or :class:`NotFound`."""
    challenge = None
    if len(slug) <= NAME_MAX:
        challenge = session.scalar(select(Challenge).where(Challenge.slug == slug))
    if challenge is None:
        raise NotFound("no_challenge", f"no challenge {slug[:NAME_MAX]!r}")
    return challenge


def get_phase(session: Session, slug: str, phase_name: str) -> Phase:
    """Phase ``phase_name`` of challenge ``slug``, or :class:`NotFound`."""
    challenge = get_challenge(session, slug)
    for phase in challenge.phases:
        if phase.name == phase_name:
            return phase
    raise NotFound("no_phase", f"challenge {slug!r} has no phase {phase_name[:NAME_MAX]!r}")


def challenge_summary(challenge: Challenge, viewer: Any | None = None) -> dict[str, Any]:
    """What ``viewer`` may know about a challenge (never references; the image-id links of a phase
    only once it has opened, see :func:`phase_opened`)."""
    now = utcnow()
    return {
        "slug": challenge.slug,
        "title": challenge.title,
        "description": challenge.description,
        "splits": [
            {"name": s.name, "visibility": s.visibility, "n_images": s.n_images, "nrefs": s.nrefs}
            for s in challenge.splits
        ],
        "phases": [
            {
                "name": p.name,
                "splits": [s.name for s in p.splits],
                "image_ids_url": ids_url(challenge.slug, p.name) if phase_opened(p, viewer, now) else None,
                "template_url": template_url(challenge.slug, p.name) if phase_opened(p, viewer, now) else None,
                "starts_at": p.starts_at.isoformat() if p.starts_at else None,
                "ends_at": p.ends_at.isoformat() if p.ends_at else None,
                "max_per_day": p.max_per_day,
                "max_total": p.max_total,
                "max_in_flight": p.max_in_flight,
                "scores_visible": p.scores_visible,
                "allow_dry_run": p.allow_dry_run,
            }
            for p in challenge.phases
        ],
    }


def list_challenges(db: Database, viewer: Any | None = None) -> list[dict[str, Any]]:
    """Summaries of every challenge, as ``viewer`` may see them."""
    with db.read() as session:
        return [challenge_summary(c, viewer) for c in session.scalars(select(Challenge).order_by(Challenge.id))]
