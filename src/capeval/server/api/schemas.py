"""Request and response models of the JSON API (they generate the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AcceptedUpload",
    "AuditRow",
    "BaselineResult",
    "ChallengeEdit",
    "ChallengeSummary",
    "DryRunResult",
    "EntryEdit",
    "EntryResult",
    "FailedJob",
    "Health",
    "HostActionResult",
    "Me",
    "MergeRequest",
    "MoveRequest",
    "PasswordChange",
    "PasswordChanged",
    "PasswordReset",
    "PhaseDefinition",
    "PhaseEdit",
    "RegisterRequest",
    "RegisterResponse",
    "RegistrationEdit",
    "RerunResult",
    "SplitEdit",
    "StatusChange",
    "TeamRename",
    "TokenRequest",
    "TokenResponse",
    "WithdrawRequest",
]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class RegisterRequest(_Strict):
    """``POST /api/v1/register``: a new team name creates the team; an existing one needs its join code."""

    username: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    team: str | None = Field(default=None, max_length=200)
    team_code: str | None = Field(default=None, max_length=100)
    invite_code: str | None = Field(default=None, max_length=100)


class RegisterResponse(BaseModel):
    username: str
    team_id: int | None
    #: ``active``, or ``pending`` while the hosts approve new accounts.
    status: str = "active"


class TokenRequest(_Strict):
    """``POST /api/v1/tokens``."""

    username: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    label: str = Field(default="", max_length=120)


class PasswordChange(_Strict):
    """``POST /api/v1/password``: needs the current password; ends the account's other web sessions."""

    model_config = ConfigDict(strict=True, extra="forbid")
    current_password: str = Field(max_length=1024)
    new_password: str = Field(max_length=1024)
    revoke_api_tokens: bool = False


class PasswordChanged(BaseModel):
    changed: bool
    sessions_revoked: int
    api_tokens_revoked: int


class TokenResponse(BaseModel):
    token: str
    expires_at: str


class Me(BaseModel):
    username: str
    team: str | None
    team_join_code: str | None
    host: bool


class SplitSummary(BaseModel):
    name: str
    visibility: str
    n_images: int
    nrefs: str


class PhaseSummary(BaseModel):
    name: str
    splits: list[str]
    starts_at: str | None
    ends_at: str | None
    max_per_day: int | None
    max_total: int | None
    max_in_flight: int | None
    scores_visible: str
    allow_dry_run: bool
    #: The image ids a results file for this phase must cover (JSON; ``?format=txt``: one per line).
    image_ids_url: str | None = None
    #: A results file skeleton with every expected image id and an empty caption.
    template_url: str | None = None


class ChallengeSummary(BaseModel):
    slug: str
    title: str
    description: str
    splits: list[SplitSummary]
    phases: list[PhaseSummary]
    #: The caller's team quota per phase (authenticated callers only).
    quota: dict[str, dict[str, Any]] | None = None


class AcceptedUpload(BaseModel):
    id: int
    status: str
    url: str


class DryRunResult(BaseModel):
    valid: bool
    dry_run: bool
    n_images: int
    detail: str


class WithdrawRequest(_Strict):
    """``POST /api/v1/submissions/{id}/withdraw``: withdrawing cannot be undone, so it must be confirmed."""

    confirm: bool = False


class EntryEdit(_Strict):
    """``PATCH /api/v1/submissions/{id}``: the team edits its entry; only the fields sent change."""

    model_config = ConfigDict(strict=True, extra="forbid")
    method_name: str | None = Field(default=None, max_length=1000)
    method_description: str | None = Field(default=None, max_length=10_000)
    public: bool | None = None


class EntryResult(BaseModel):
    submission_id: int
    status: str
    representative: bool
    withdrawn: bool


class PhaseEdit(_Strict):
    """``PATCH /api/v1/challenges/{slug}/phases/{phase}``: only the fields sent change."""

    model_config = ConfigDict(strict=True, extra="forbid")
    starts_at: str | None = Field(default=None, max_length=64)
    ends_at: str | None = Field(default=None, max_length=64)
    max_per_day: int | None = None
    max_total: int | None = None
    max_in_flight: int | None = None
    scores_visible: str | None = Field(default=None, max_length=16)
    allow_dry_run: bool | None = None


class SplitEdit(_Strict):
    """``PATCH /api/v1/challenges/{slug}/splits/{split}``."""

    visibility: str = Field(max_length=16)


class RegistrationEdit(_Strict):
    """``PUT /api/v1/registration``: ``mode`` open / invite / approval / closed, ``team_size`` and
    ``per_address_hour`` (``null``: no limit)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    mode: str | None = Field(default=None, max_length=16)
    team_size: int | None = None
    per_address_hour: int | None = None
    new_invite_code: bool = False


class HostActionResult(BaseModel):
    submission_id: int
    status: str


class RerunResult(HostActionResult):
    job_id: int


class BaselineResult(BaseModel):
    submission_id: int
    baseline: bool


class AuditRow(BaseModel):
    at: str
    actor: str
    action: str
    target: str
    detail: str


class FailedJob(BaseModel):
    job_id: int
    submission_id: int
    status: str
    attempts: int
    max_attempts: int
    worker_id: str
    last_error: str
    finished_at: str | None


class Health(BaseModel):
    status: str
    version: str
    database: str
    scorer_version: str
    jobs: dict[str, int]


class StatusChange(_Strict):
    """``POST /api/v1/users/{username}/status``: ``active`` (approve, enable) or ``disabled``."""

    model_config = ConfigDict(strict=True, extra="forbid")
    status: str = Field(max_length=16)


class MoveRequest(_Strict):
    """``POST /api/v1/users/{username}/team``: the team to move to (``create``: a new team)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    team: str = Field(max_length=200)
    create: bool = False


class TeamRename(_Strict):
    """``PATCH /api/v1/teams/{id}``."""

    model_config = ConfigDict(strict=True, extra="forbid")
    name: str = Field(max_length=200)


class MergeRequest(_Strict):
    """``POST /api/v1/teams/{id}/merge``: the team this one is merged into."""

    model_config = ConfigDict(strict=True, extra="forbid")
    into: int = Field(ge=1, le=2**63 - 1)


class PasswordReset(_Strict):
    """``POST /api/v1/password-reset``: the token of a host's reset link and the new password."""

    model_config = ConfigDict(strict=True, extra="forbid")
    token: str = Field(max_length=200)
    new_password: str = Field(max_length=1024)


class ChallengeEdit(_Strict):
    """``PATCH /api/v1/challenges/{slug}``: only the fields sent change."""

    model_config = ConfigDict(strict=True, extra="forbid")
    title: str | None = Field(default=None, max_length=200)
    description: str | None = Field(default=None, max_length=10_000)


class PhaseDefinition(_Strict):
    """``POST /api/v1/challenges/{slug}/phases``: a new phase (limits left out: none)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    name: str = Field(max_length=80)
    splits: list[str] = Field(max_length=50)
    starts_at: str | None = Field(default=None, max_length=64)
    ends_at: str | None = Field(default=None, max_length=64)
    max_per_day: int | None = Field(default=None, ge=0, le=1_000_000)
    max_total: int | None = Field(default=None, ge=0, le=1_000_000)
    max_in_flight: int | None = Field(default=None, ge=0, le=1_000_000)
    scores_visible: str = Field(default="always", max_length=16)
    allow_dry_run: bool = True
