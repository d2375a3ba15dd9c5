"""Hosts create and change challenges while the server runs (no restart): a new challenge from a
definition and its reference files, its title and description, phases added or removed, splits
added, a split's references replaced. References are immutable once a submission was made to a
phase that scores the split: results and comparisons refer to them.

A definition is the ``[[challenge]]`` table of a config file (TOML or JSON; ``docs/server.md``),
whose ``references`` (and ``baseline``) entries name files uploaded with it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from sqlalchemy import func, select

from capeval.metrics.base import nrefs_label
from capeval.server.config import ChallengeConfig, PhaseConfig, Settings, SplitConfig, check_name
from capeval.server.db import Database
from capeval.server.domain.errors import Conflict, DomainError, Forbidden, InvalidInput, NotFound
from capeval.server.domain.text import character_problem
from capeval.server.models import Challenge, PhaseSplit, Split, Submission, User
from capeval.server.services.audit import audit
from capeval.server.services.baselines import queue_baseline
from capeval.server.services.challenges import (
    get_challenge,
    get_phase,
    install_challenge,
    load_references,
    new_phase,
    new_split,
    split_payload,
)

__all__ = [
    "DEFINITION_TEMPLATE",
    "add_phase",
    "add_split",
    "create_challenge",
    "delete_phase",
    "edit_challenge",
    "parse_definition",
    "replace_references",
    "split_locked",
]

#: What the panel's "new challenge" form starts from.
DEFINITION_TEMPLATE = """slug = "my-challenge"
title = "My captioning challenge"
description = "Caption the images; test references stay on the server."
# baseline = { val = "baseline-val.json" }   # a results file uploaded with the references

[[splits]]
name = "val"
references = "val.json"        # the name of an uploaded file

[[splits]]
name = "test"
references = "test.json"
visibility = "hidden"

[[phases]]
name = "val"
splits = ["val"]
max_per_day = 20

[[phases]]
name = "test"
splits = ["test"]
starts_at = "2030-01-01T00:00:00Z"
max_per_day = 3
max_total = 30
"""


def _require_host(actor: User | None) -> None:
    if actor is not None and not actor.is_host:
        raise Forbidden("host_only", "only challenge hosts may do this")


def parse_definition(text: str) -> ChallengeConfig:
    """A challenge definition: TOML (or JSON, when it starts with ``{``), either the fields of one
    challenge or a ``[[challenge]]`` list holding one.

    Raises:
        InvalidInput: unreadable, or not a valid challenge (naming the problem).
    """
    stripped = text.strip()
    try:
        if stripped.startswith("{"):
            data = json.loads(stripped)
        else:
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # Python 3.10
                import tomli as tomllib
            data = tomllib.loads(text)
    except ValueError as exc:
        raise InvalidInput("bad_definition", f"the definition cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidInput("bad_definition", "the definition must be a table of challenge fields")
    if "challenge" in data:
        listed = data.pop("challenge")
        if data or not isinstance(listed, list) or len(listed) != 1:
            raise InvalidInput("bad_definition", "give one [[challenge]] table, or its fields at the top level")
        data = listed[0]
    try:
        return ChallengeConfig.from_mapping(data)
    except ValueError as exc:
        raise InvalidInput("bad_definition", str(exc)) from None


def _file(files: Mapping[str, bytes], named: str, what: str) -> tuple[str, bytes]:
    name = PurePosixPath(named.replace("\\", "/")).name
    if name not in files:
        uploaded = ", ".join(sorted(files)) or "none"
        raise InvalidInput(
            "missing_file", f"{what} names the file {name!r}, which was not uploaded (uploaded: {uploaded})"
        )
    return name, files[name]


def create_challenge(
    db: Database,
    actor: User | None,
    config: ChallengeConfig,
    files: Mapping[str, bytes],
    *,
    settings: Settings,
    scorer_version: str,
) -> int:
    """Create a challenge from a definition and the uploaded files its splits (and baselines) name;
    a baseline becomes a baseline entry of the acting host, queued for scoring. Audited as
    ``install_challenge``. Returns the challenge id.

    Raises:
        Conflict: a challenge with this slug exists.
        InvalidInput: a named file missing or unreadable, a baseline failing the upload checks.
    """
    _require_host(actor)
    with db.read() as session:
        if session.scalar(select(Challenge.id).where(Challenge.slug == config.slug)) is not None:
            raise Conflict("challenge_exists", f"a challenge {config.slug!r} exists; choose another slug")
    references = {}
    for split in config.splits:
        name, data = _file(files, split.references, f"split {split.name!r}")
        try:
            references[split.name] = load_references(name, split.image_ids, data=data)
        except ValueError as exc:
            raise InvalidInput("bad_references", f"split {split.name!r}: {exc}") from None
    baselines = {
        phase: _file(files, path, f"the baseline of phase {phase!r}") for phase, path in config.baseline.items()
    }
    challenge_id = install_challenge(db, config, references=references, actor=actor)
    for phase_name, (name, data) in baselines.items():
        _add_baseline(db, actor, config.slug, phase_name, name, data, settings=settings, scorer_version=scorer_version)
    return challenge_id


def _add_baseline(
    db: Database,
    actor: User | None,
    slug: str,
    phase_name: str,
    filename: str,
    data: bytes,
    *,
    settings: Settings,
    scorer_version: str,
) -> int:
    with db.read() as session:
        owner = actor.id if actor is not None else session.scalar(select(User.id).where(User.is_host.is_(True)))
    if owner is None:
        raise InvalidInput("no_host", "a baseline needs a host account to own it")
    try:
        sid, _ = queue_baseline(
            db, owner, slug, phase_name, filename, data, settings=settings, scorer_version=scorer_version, actor=actor
        )
    except ValueError as exc:
        if isinstance(exc, DomainError):
            raise
        raise InvalidInput("bad_baseline", f"the baseline of phase {phase_name!r}: {exc}") from None
    return sid


def edit_challenge(
    db: Database, actor: User | None, slug: str, *, title: str | None = None, description: str | None = None
) -> dict[str, str]:
    """Change a challenge's title or description; returns what changed (audited as ``edit_challenge``)."""
    _require_host(actor)
    changes = {}
    for field, value, multiline, limit in (("title", title, False, 200), ("description", description, True, 10_000)):
        if value is None:
            continue
        problem = character_problem(value, multiline=multiline)
        if problem:
            raise InvalidInput(f"bad_{field}", f"{field} {problem}")
        if len(value) > limit:
            raise InvalidInput(f"bad_{field}", f"{field} has {len(value)} characters; at most {limit}")
        if field == "title" and not value.strip():
            raise InvalidInput("bad_title", "the title is empty")
        changes[field] = value.strip() if field == "title" else value
    with db.write() as session:
        challenge = get_challenge(session, slug)
        changed = {}
        for field, value in changes.items():
            old = getattr(challenge, field)
            if old != value:
                changed[field] = (
                    f"{json.dumps(old[:60], ensure_ascii=False)} -> {json.dumps(value[:60], ensure_ascii=False)}"
                )
                setattr(challenge, field, value)
        if changed:
            audit(
                session,
                actor,
                "edit_challenge",
                f"challenge:{slug}",
                "; ".join(f"{k}: {v}" for k, v in changed.items()),
            )
        return changed


def _phase_submissions(session: Any, phase_ids: list[int]) -> int:
    if not phase_ids:
        return 0
    return int(session.scalar(select(func.count(Submission.id)).where(Submission.phase_id.in_(phase_ids))) or 0)


def split_locked(session: Any, split: Split) -> int:
    """How many submissions were made to phases that score ``split`` (its references are then fixed)."""
    phase_ids = list(session.scalars(select(PhaseSplit.phase_id).where(PhaseSplit.split_id == split.id)))
    return _phase_submissions(session, phase_ids)


def add_phase(db: Database, actor: User | None, slug: str, config: PhaseConfig) -> None:
    """Add a phase scoring existing splits (audited as ``add_phase``)."""
    _require_host(actor)
    with db.write() as session:
        challenge = get_challenge(session, slug)
        if any(p.name == config.name for p in challenge.phases):
            raise Conflict("phase_exists", f"challenge {slug!r} has a phase {config.name!r} already")
        splits = {s.name: s for s in challenge.splits}
        unknown = [name for name in config.splits if name not in splits]
        if unknown:
            raise InvalidInput("unknown_split", f"no split {unknown[0]!r} in challenge {slug!r} (add it first)")
        phase = new_phase(challenge.id, config)
        if phase.starts_at and phase.ends_at and phase.ends_at <= phase.starts_at:
            raise InvalidInput("bad_dates", "ends_at must be after starts_at")
        session.add(phase)
        session.flush()
        for position, name in enumerate(config.splits):
            session.add(PhaseSplit(phase_id=phase.id, split_id=splits[name].id, position=position))
        audit(session, actor, "add_phase", f"phase:{slug}/{config.name}", f"splits: {', '.join(config.splits)}")


def delete_phase(db: Database, actor: User | None, slug: str, phase_name: str) -> None:
    """Remove a phase nobody submitted to (audited as ``delete_phase``)."""
    _require_host(actor)
    with db.write() as session:
        phase = get_phase(session, slug, phase_name)
        count = _phase_submissions(session, [phase.id])
        if count:
            raise Conflict("phase_used", f"phase {phase_name!r} has {count} submission(s); change its dates instead")
        for link in list(phase.phase_splits):
            session.delete(link)
        session.delete(phase)
        audit(session, actor, "delete_phase", f"phase:{slug}/{phase_name}")


def _references(filename: str, data: bytes) -> dict[int, list[str]]:
    try:
        return load_references(filename, data=data)
    except ValueError as exc:
        raise InvalidInput("bad_references", str(exc)) from None


def add_split(
    db: Database, actor: User | None, slug: str, name: str, visibility: str, filename: str, data: bytes
) -> None:
    """Add a split with its references (audited as ``add_split``); phases added later can score it."""
    _require_host(actor)
    try:
        config = SplitConfig(name=name, references=filename, visibility=visibility)
    except ValueError as exc:
        raise InvalidInput("bad_split", str(exc)) from None
    refs = _references(filename, data)
    with db.write() as session:
        challenge = get_challenge(session, slug)
        if any(s.name == config.name for s in challenge.splits):
            raise Conflict("split_exists", f"challenge {slug!r} has a split {config.name!r} already")
        split = new_split(challenge.id, config.name, config.visibility, refs)
        session.add(split)
        audit(
            session,
            actor,
            "add_split",
            f"split:{slug}/{config.name}",
            f"{len(refs)} images, {config.visibility}, sha256 {split.references_sha256[:12]}",
        )


def replace_references(db: Database, actor: User | None, slug: str, split_name: str, filename: str, data: bytes) -> str:
    """Replace a split's references while no submission was made to a phase scoring it; returns the
    new SHA-256 (audited as ``replace_references``, old and new hashes).

    Raises:
        Conflict: a submission exists (references are immutable from then on).
    """
    _require_host(actor)
    check_name("split", split_name)
    refs = _references(filename, data)
    payload, digest = split_payload(refs)
    with db.write() as session:
        challenge = get_challenge(session, slug)
        split = next((s for s in challenge.splits if s.name == split_name), None)
        if split is None:
            raise NotFound("no_split", f"challenge {slug!r} has no split {split_name!r}")
        used = split_locked(session, split)
        if used:
            raise Conflict(
                "references_locked",
                f"split {split_name!r} has {used} submission(s); its references can no longer change "
                "(create a new split or challenge)",
            )
        old = split.references_sha256
        split.references_json, split.references_sha256 = payload, digest
        split.n_images, split.nrefs = len(refs), nrefs_label(list(refs.values()))
        audit(session, actor, "replace_references", f"split:{slug}/{split_name}", f"sha256 {old[:12]} -> {digest[:12]}")
        return digest
