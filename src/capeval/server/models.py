"""The server's data model (SQLAlchemy 2 typed ORM).

challenge -> phase (time window, limits) -> phase_split -> split (a reference set with
its visibility) ; submission (team, phase, file hash, status) -> job (lease, heartbeat,
attempts) and result (one per submission, split and scorer version: corpus scores,
signatures and per-image statistics). Users belong to a team; tokens are stored hashed.

Types are portable (no ARRAY/JSONB) so the same schema runs on SQLite and PostgreSQL.
The schema is created by the Alembic migrations in ``capeval/server/migrations``. The large
text columns (references, candidates, per-image statistics) are deferred: listing pages load
them only when a row's payload is actually used.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from capeval.server.domain.states import JobState, SubmissionState

__all__ = [
    "ApiToken",
    "AuditLog",
    "Base",
    "Challenge",
    "Comparison",
    "Job",
    "Phase",
    "PhaseSplit",
    "Result",
    "SiteSetting",
    "Split",
    "Submission",
    "Team",
    "UploadFile",
    "USER_STATES",
    "User",
    "utcnow",
]

#: Random bytes of a team join code (12 URL-safe characters).
JOIN_CODE_BYTES = 9


def utcnow() -> datetime:
    """Timezone-aware current UTC time."""
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores aware UTC datetimes; SQLite returns naive values, which are re-tagged as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(timezone.utc)
        return value

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


class StateType(TypeDecorator[str]):
    """A state enum stored as its string value (portable: a plain VARCHAR)."""

    impl = String(16)
    cache_ok = True

    def __init__(self, enum: type[SubmissionState] | type[JobState]) -> None:
        super().__init__()
        self.enum = enum

    def process_bind_param(self, value: str | None, dialect: object) -> str | None:
        return None if value is None else self.enum(value).value

    def process_result_value(self, value: str | None, dialect: object) -> str | None:
        return None if value is None else self.enum(value)


class Base(DeclarativeBase):
    """Declarative base of every table."""


def new_join_code() -> str:
    """A random code that lets a new account join an existing team."""
    return secrets.token_urlsafe(JOIN_CODE_BYTES)


class Team(Base):
    """Participants submit for their team; limits are per team. Joining needs the team's join code."""

    __tablename__ = "team"
    __table_args__ = (UniqueConstraint("name_key", name="uq_team_name_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    #: The name as teams compare (:func:`capeval.server.domain.text.team_key`): one team per key.
    name_key: Mapped[str] = mapped_column(String(255))
    join_code: Mapped[str] = mapped_column(String(32), default=new_join_code)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


#: Account states: ``active``; ``pending`` (registered while the hosts approve new accounts);
#: ``disabled`` (by a host). Only active accounts log in or use their sessions and tokens.
USER_STATES = ("active", "pending", "disabled")


class User(Base):
    __tablename__ = "user_account"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    is_host: Mapped[bool] = mapped_column(Boolean, default=False)
    team_id: Mapped[int | None] = mapped_column(ForeignKey("team.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default="active", server_default="active")
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    team: Mapped[Team | None] = relationship(lazy="joined")

    @property
    def active(self) -> bool:
        """Whether the account may log in and use its sessions and tokens."""
        return self.status == "active"


class ApiToken(Base):
    """A bearer token (``kind="api"``) or a web session (``kind="session"``); only the SHA-256 is stored."""

    __tablename__ = "api_token"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16), default="api")
    label: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    user: Mapped[User] = relationship()


class Challenge(Base):
    __tablename__ = "challenge"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    splits: Mapped[list[Split]] = relationship(back_populates="challenge", order_by="Split.id")
    phases: Mapped[list[Phase]] = relationship(back_populates="challenge", order_by="Phase.id")


class Split(Base):
    """A reference set. ``references_json`` maps image id -> reference captions; never sent to participants
    when ``visibility == "hidden"``."""

    __tablename__ = "split"
    __table_args__ = (UniqueConstraint("challenge_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenge.id"))
    name: Mapped[str] = mapped_column(String(80))
    visibility: Mapped[str] = mapped_column(String(16), default="public")
    n_images: Mapped[int] = mapped_column(Integer)
    nrefs: Mapped[str] = mapped_column(String(16))
    references_sha256: Mapped[str] = mapped_column(String(64))
    references_json: Mapped[str] = mapped_column(Text, deferred=True)
    challenge: Mapped[Challenge] = relationship(back_populates="splits")


class Phase(Base):
    __tablename__ = "phase"
    __table_args__ = (UniqueConstraint("challenge_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenge.id"))
    name: Mapped[str] = mapped_column(String(80))
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    max_per_day: Mapped[int | None] = mapped_column(Integer, nullable=True)
    max_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    max_in_flight: Mapped[int | None] = mapped_column(Integer, nullable=True)
    scores_visible: Mapped[str] = mapped_column(String(16), default="always")
    allow_dry_run: Mapped[bool] = mapped_column(Boolean, default=True)
    challenge: Mapped[Challenge] = relationship(back_populates="phases")
    phase_splits: Mapped[list[PhaseSplit]] = relationship(order_by="PhaseSplit.position")

    @property
    def splits(self) -> list[Split]:
        """The splits this phase scores, in configured order."""
        return [ps.split for ps in self.phase_splits]


class PhaseSplit(Base):
    __tablename__ = "phase_split"
    __table_args__ = (UniqueConstraint("phase_id", "split_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phase.id"))
    split_id: Mapped[int] = mapped_column(ForeignKey("split.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    split: Mapped[Split] = relationship()


class Submission(Base):
    __tablename__ = "submission"
    __table_args__ = (Index("ix_submission_quota", "team_id", "phase_id", "created_at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phase.id"))
    team_id: Mapped[int] = mapped_column(ForeignKey("team.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id"))
    file_sha256: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(String(255), default="")
    n_bytes: Mapped[int] = mapped_column(Integer)
    #: Validated candidates, ``{image_id: caption}`` as JSON (the raw upload is not kept).
    candidates_json: Mapped[str] = mapped_column(Text, deferred=True)
    status: Mapped[str] = mapped_column(StateType(SubmissionState), default=SubmissionState.QUEUED)
    error: Mapped[str] = mapped_column(Text, default="")
    method_name: Mapped[str] = mapped_column(String(200), default="")
    method_description: Mapped[str] = mapped_column(Text, default="")
    is_public: Mapped[bool] = mapped_column(Boolean, default=True)
    is_baseline: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The team chose this entry to represent it on the leaderboard (at most one per team and phase).
    is_representative: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Set when the team withdrew the entry: it leaves the leaderboard but still counts against the quota.
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    #: Set when a host hid the entry: it leaves the public leaderboard until restored.
    hidden_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    phase: Mapped[Phase] = relationship()
    team: Mapped[Team] = relationship()
    user: Mapped[User] = relationship()


class Job(Base):
    """One scoring run of a submission. Workers claim queued jobs and hold a lease renewed by heartbeats."""

    __tablename__ = "job"
    __table_args__ = (Index("ix_job_claim", "status", "available_at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submission.id"), index=True)
    scorer_version: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(StateType(JobState), default=JobState.QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    worker_id: Mapped[str] = mapped_column(String(120), default="")
    available_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    submission: Mapped[Submission] = relationship()


class Result(Base):
    """Scores of one submission on one split by one scorer version (unique: scoring is idempotent).

    ``scores_json``: ``{output: value}`` corpus scores; ``signatures_json``: ``{metric: signature}``;
    ``items_json``: ``{"ids": [...], "item_scores": {output: [...]}, "stats": {metric: [[...]]}}``.
    Per-image data of hidden splits is used for significance only and never rendered.
    """

    __tablename__ = "result"
    __table_args__ = (UniqueConstraint("submission_id", "split_id", "scorer_version", name="uq_result_scoring"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submission.id"), index=True)
    split_id: Mapped[int] = mapped_column(ForeignKey("split.id"))
    scorer_version: Mapped[str] = mapped_column(String(200))
    scores_json: Mapped[str] = mapped_column(Text)
    signatures_json: Mapped[str] = mapped_column(Text)
    items_json: Mapped[str] = mapped_column(Text, deferred=True)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    split: Mapped[Split] = relationship()


class AuditLog(Base):
    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("user_account.id"), nullable=True)
    action: Mapped[str] = mapped_column(String(80))
    target: Mapped[str] = mapped_column(String(200), default="")
    detail: Mapped[str] = mapped_column(Text, default="")
    actor: Mapped[User | None] = relationship()


class Comparison(Base):
    """Paired-bootstrap significance of one result against another (the baseline or a chosen entry).

    Page views only read these rows (and ask for missing ones); workers compute them, so a page
    view never runs a bootstrap. ``values_json`` is ``{output: {"delta", "low", "high",
    "p_value"} | null}``, or NULL while the comparison waits for a worker.
    """

    __tablename__ = "comparison"
    __table_args__ = (
        UniqueConstraint("base_result_id", "result_id", "n_resamples", "seed", name="uq_comparison"),
        Index("ix_comparison_pending", "computed_at"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    base_result_id: Mapped[int] = mapped_column(ForeignKey("result.id"))
    result_id: Mapped[int] = mapped_column(ForeignKey("result.id"))
    n_resamples: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    values_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    computed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class SiteSetting(Base):
    """A server-wide setting the hosts change at run time (registration mode, invite code, team size)."""

    __tablename__ = "site_setting"
    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class UploadFile(Base):
    """The file a participant uploaded, byte for byte (its SHA-256 is ``Submission.file_sha256``;
    its size is bounded by the upload limit)."""

    __tablename__ = "upload_file"
    submission_id: Mapped[int] = mapped_column(ForeignKey("submission.id"), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
