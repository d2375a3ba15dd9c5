"""Server settings and the challenge configuration file.

:class:`Settings` holds process-level options (database URL, upload limits, worker
timings). :class:`ChallengeConfig` describes one challenge: its reference splits, its
phases and their submission limits. Both load from a TOML (Python >= 3.11) or JSON file;
``docs/server.md`` documents every key.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from capeval.registry import COCO_METRICS
from capeval.server.domain.text import character_problem

__all__ = [
    "NAME_PATTERN",
    "ChallengeConfig",
    "Environment",
    "PhaseConfig",
    "Settings",
    "SplitConfig",
    "check_name",
    "load_config_file",
    "parse_utc",
    "read_environment",
    "resolve_settings",
]

#: Default upload limit: the COCO test2014 results file (40,775 captions) is about 3.5 MB.
DEFAULT_MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: Default limit on the bytes a zip may expand to, counted while inflating.
DEFAULT_MAX_UNZIPPED_BYTES = 50 * 1024 * 1024
#: A results zip holds one json file; a few extra members (e.g. a README) are tolerated.
DEFAULT_MAX_ZIP_MEMBERS = 8
#: Longest caption accepted, in characters (COCO captions average about 50).
DEFAULT_MAX_CAPTION_CHARS = 1000
#: Worker lease: a job whose lease runs out without a heartbeat is requeued by the reaper.
DEFAULT_LEASE_SECONDS = 30.0
#: Wall time a scoring job may take before it is given up (SPICE on 40k images takes minutes).
DEFAULT_JOB_TIMEOUT_SECONDS = 3600.0
#: Attempts before a job is marked failed for good.
DEFAULT_MAX_ATTEMPTS = 3
#: API token lifetime (EvalAI uses a year; a challenge season is shorter).
DEFAULT_TOKEN_DAYS = 90
#: Web session lifetime.
DEFAULT_SESSION_HOURS = 24 * 7
#: Bootstrap resamples and seed for the significance markers on the leaderboard.
DEFAULT_BOOTSTRAP_RESAMPLES = 1000
DEFAULT_BOOTSTRAP_SEED = 12345
#: Metrics scored by default (registry keys); missing ones are skipped with a log line.
DEFAULT_METRICS: tuple[str, ...] = COCO_METRICS


@dataclass
class Settings:
    """Process-level server options.

    Attributes:
        database_url: SQLAlchemy URL; ``sqlite:///path.db`` (default) or ``postgresql+psycopg://...``.
        data_dir: Where the default SQLite database lives.
        max_upload_bytes: Request bodies larger than this get 413 before being read in full.
        max_unzipped_bytes: Limit on the total bytes inflated from an uploaded zip.
        max_zip_members: Limit on the number of members of an uploaded zip.
        max_caption_chars: Longest caption accepted.
        metrics: Registry keys of the metrics to score.
        tokenizer: Tokenizer name passed to the library.
        lease_seconds: Job lease length; heartbeats renew it.
        max_attempts: Attempts per job before it fails.
        job_timeout_seconds: Wall time after which a running job is given up (a worker process exits).
        token_days: API token lifetime.
        session_hours: Web session lifetime.
        bootstrap_resamples: Paired-bootstrap resamples for leaderboard significance.
        bootstrap_seed: Seed of the paired bootstrap.
        worker_debug_delay: Seconds a worker sleeps after claiming a job (testing aid; 0 in production).
        secure_cookies: Always mark session cookies ``Secure``. They are also ``Secure`` whenever a
            request arrives over HTTPS (directly, or through a trusted proxy, see ``trust_proxy``).
        trust_proxy: Believe ``X-Forwarded-For`` / ``X-Forwarded-Proto`` / ``X-Forwarded-Host`` from the
            reverse proxy in front of the server, on requests whose peer is in ``trusted_proxies``
            (only set this when such a proxy exists; ``Forwarded`` and ``X-Real-IP`` are never read).
        trusted_proxies: Addresses or networks (``10.0.0.0/8``) of the reverse proxies whose
            forwarding headers are believed when ``trust_proxy`` is on (default: this machine).
        allowed_origins: Extra origins (``https://example.org``) whose forms may post to the server;
            the server's own origin is always allowed.
        access_log: Where ``capeval serve`` writes one line per request: ``"-"`` (standard output,
            the default), a file path, or ``"off"``.
    """

    database_url: str = ""
    data_dir: str = "capeval-server-data"
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    max_unzipped_bytes: int = DEFAULT_MAX_UNZIPPED_BYTES
    max_zip_members: int = DEFAULT_MAX_ZIP_MEMBERS
    max_caption_chars: int = DEFAULT_MAX_CAPTION_CHARS
    metrics: tuple[str, ...] = DEFAULT_METRICS
    tokenizer: str = "ptb"
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    job_timeout_seconds: float = DEFAULT_JOB_TIMEOUT_SECONDS
    token_days: int = DEFAULT_TOKEN_DAYS
    session_hours: int = DEFAULT_SESSION_HOURS
    bootstrap_resamples: int = DEFAULT_BOOTSTRAP_RESAMPLES
    bootstrap_seed: int = DEFAULT_BOOTSTRAP_SEED
    worker_debug_delay: float = 0.0
    secure_cookies: bool = False
    trust_proxy: bool = False
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    allowed_origins: tuple[str, ...] = ()
    access_log: str = "-"

    def __post_init__(self) -> None:
        if not self.database_url:
            self.database_url = f"sqlite:///{Path(self.data_dir) / 'capeval.db'}"
        self.metrics = tuple(self.metrics)
        self.allowed_origins = tuple(o.rstrip("/").lower() for o in self.allowed_origins)
        if isinstance(self.trusted_proxies, str):
            self.trusted_proxies = (self.trusted_proxies,)
        self.trusted_proxies = tuple(self.trusted_proxies)
        for entry in self.trusted_proxies:
            try:
                ipaddress.ip_network(str(entry), strict=False)
            except ValueError:
                raise ValueError(
                    f"settings: trusted_proxies entry {entry!r} is not an address or network (10.0.0.5, 10.0.0.0/8)"
                ) from None
        for name in ("max_upload_bytes", "max_unzipped_bytes", "max_zip_members", "max_caption_chars"):
            if int(getattr(self, name)) <= 0:
                raise ValueError(f"settings: {name} must be a positive integer")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Settings:
        """Build settings from the ``[server]`` table of a config file; unknown keys are errors."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"config [server]: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**dict(data))

    def to_json(self) -> str:
        """The resolved settings as JSON (handed to worker processes)."""
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def from_json(cls, text: str) -> Settings:
        """Inverse of :meth:`to_json`."""
        return cls.from_mapping(json.loads(text))


@dataclass(frozen=True)
class Environment:
    """The ``CAPEVAL_*`` environment variables the server reads, read in one place.

    Attributes:
        database_url: ``CAPEVAL_DATABASE_URL``: overrides the config file, is overridden by ``--database-url``.
        host_password: ``CAPEVAL_HOST_PASSWORD``: password of accounts created by ``--add-host``.
        demo_host_password: ``CAPEVAL_DEMO_HOST_PASSWORD``: password of the demo host account.
    """

    database_url: str | None = None
    host_password: str | None = None
    demo_host_password: str | None = None


def read_environment(environ: Mapping[str, str] | None = None) -> Environment:
    """Read the ``CAPEVAL_*`` variables (``os.environ`` by default)."""
    env = os.environ if environ is None else environ
    return Environment(
        database_url=env.get("CAPEVAL_DATABASE_URL") or None,
        host_password=env.get("CAPEVAL_HOST_PASSWORD") or None,
        demo_host_password=env.get("CAPEVAL_DEMO_HOST_PASSWORD") or None,
    )


def resolve_settings(
    config_path: str | Path | None = None,
    *,
    environment: Environment | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[Settings, list[ChallengeConfig]]:
    """Settings from, in increasing precedence: defaults, the config file, the environment, ``overrides``.

    ``overrides`` holds command-line values (``None`` means "not given"); a ``data_dir`` override
    without a database URL from anywhere moves the default SQLite file there.
    """
    env = environment or read_environment()
    if config_path:
        settings, challenges = load_config_file(config_path)
        explicit_url = bool(_server_table(config_path).get("database_url"))
    else:
        settings, challenges, explicit_url = Settings(), [], False
    values = {f.name: getattr(settings, f.name) for f in fields(Settings)}
    if env.database_url:
        values["database_url"] = env.database_url
        explicit_url = True
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    if given.get("database_url"):
        explicit_url = True
    values.update(given)
    if not explicit_url:
        values["database_url"] = ""
    return Settings.from_mapping(values), challenges


def _server_table(path: str | Path) -> Mapping[str, Any]:
    return _read_config(Path(path)).get("server", {})


@dataclass
class SplitConfig:
    """A reference set: COCO-format annotations file, visibility and a display label.

    Attributes:
        name: Short name shown on the leaderboard (``val``, ``test-c5``).
        references: Path of a COCO annotations json (``images`` + ``annotations``) or of a
            ``{image_id: [captions]}`` json.
        visibility: ``public`` (participants may see references and per-image scores) or
            ``hidden`` (references never leave the server).
        image_ids: Optional subset of the file's images that form this split.
    """

    name: str
    references: str
    visibility: str = "public"
    image_ids: list[int] | None = None

    def __post_init__(self) -> None:
        check_name("split", self.name)
        if self.visibility not in ("public", "hidden"):
            raise ValueError(f"split {self.name!r}: visibility must be 'public' or 'hidden', got {self.visibility!r}")


@dataclass
class PhaseConfig:
    """A submission phase: which splits it scores, when it is open, and its limits.

    Attributes:
        name: ``val``, ``test``, ...
        splits: Names of the splits a submission to this phase is scored on; the
            results file must cover every image of these splits exactly once.
        starts_at / ends_at: ISO-8601 times with a zone (``Z`` or ``+02:00``); ``None`` means unbounded.
        max_per_day: Accepted submissions per team per UTC day (left out: no limit).
        max_total: Accepted submissions per team in the phase (left out: no limit).
        max_in_flight: Submissions per team queued or running at once (left out: no limit).
        scores_visible: ``always``, ``after_end`` (hosts only until the phase ends) or ``never``.
        allow_dry_run: Whether the phase accepts validation-only dry runs.
    """

    name: str
    splits: list[str]
    starts_at: str | None = None
    ends_at: str | None = None
    max_per_day: int | None = None
    max_total: int | None = None
    max_in_flight: int | None = None
    scores_visible: str = "always"
    allow_dry_run: bool = True

    def __post_init__(self) -> None:
        check_name("phase", self.name)
        if self.scores_visible not in ("always", "after_end", "never"):
            raise ValueError(f"phase {self.name!r}: scores_visible must be always, after_end or never")
        if not self.splits:
            raise ValueError(f"phase {self.name!r}: lists no splits")
        for key in ("starts_at", "ends_at"):
            value = getattr(self, key)
            if value is not None:
                parse_utc(value, f"phase {self.name!r} {key}")
        for key in ("max_per_day", "max_total", "max_in_flight"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"phase {self.name!r}: {key} must be a whole number (leave it out for no limit)")


@dataclass
class ChallengeConfig:
    """One challenge: slug, title, splits, phases.

    Example (TOML)::

        [[challenge]]
        slug = "coco-captions"
        title = "COCO captions"
        splits = [{name = "val", references = "captions_val2014.json"},
                  {name = "test-c5", references = "test_c5.json", visibility = "hidden"}]
        phases = [{name = "val", splits = ["val"], max_per_day = 10},
                  {name = "test", splits = ["test-c5"], max_per_day = 5, scores_visible = "after_end"}]
    """

    slug: str
    title: str
    splits: list[SplitConfig]
    phases: list[PhaseConfig]
    description: str = ""
    baseline: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_name("challenge slug", self.slug)
        for what, text, multiline in (("title", self.title, False), ("description", self.description, True)):
            if not isinstance(text, str):
                raise ValueError(f"challenge {self.slug!r}: {what} must be text")
            problem = character_problem(text, multiline=multiline)
            if problem:
                raise ValueError(f"challenge {self.slug!r}: {what} {problem}")
        if not self.title.strip():
            raise ValueError(f"challenge {self.slug!r}: the title is empty")
        if len(self.title) > TITLE_MAX or len(self.description) > DESCRIPTION_MAX:
            raise ValueError(
                f"challenge {self.slug!r}: title or description too long ({TITLE_MAX}/{DESCRIPTION_MAX} characters)"
            )
        split_names = [s.name for s in self.splits]
        phase_names = [p.name for p in self.phases]
        for what, names in (("split", split_names), ("phase", phase_names)):
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise ValueError(f"challenge {self.slug!r}: {what} name(s) given twice: {twice}")
        if not self.phases:
            raise ValueError(f"challenge {self.slug!r}: no phase")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base_dir: Path | None = None) -> ChallengeConfig:
        """Build from a ``[[challenge]]`` table; relative reference paths resolve against ``base_dir``."""
        data = dict(data)
        try:
            splits = [SplitConfig(**s) for s in data.pop("splits")]
            phases = [PhaseConfig(**p) for p in data.pop("phases")]
            config = cls(splits=splits, phases=phases, **data)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"config [[challenge]] {data.get('slug', '?')!r}: {exc}") from None
        if base_dir is not None:
            for split in config.splits:
                if not Path(split.references).is_absolute():
                    split.references = str(base_dir / split.references)
            for phase_name, path in list(config.baseline.items()):
                if not Path(path).is_absolute():
                    config.baseline[phase_name] = str(base_dir / path)
        names = {s.name for s in config.splits}
        for phase in config.phases:
            missing = [s for s in phase.splits if s not in names]
            if missing:
                raise ValueError(f"phase {phase.name!r} names unknown split(s) {missing}")
        for phase_name in config.baseline:
            if phase_name not in {p.name for p in config.phases}:
                raise ValueError(f"baseline for unknown phase {phase_name!r}")
        return config


#: Slugs, phase and split names: they appear in URLs.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
TITLE_MAX = 200
DESCRIPTION_MAX = 10_000


def check_name(what: str, name: object) -> None:
    """A slug, phase or split name: 1-80 ASCII letters, digits, ``.``, ``_`` or ``-`` (they are part of
    URLs), starting with a letter or digit.

    Raises:
        ValueError: naming ``what`` and the name.
    """
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"{what} name {str(name)[:80]!r}: use 1-80 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )


def parse_utc(value: str, what: str = "time") -> datetime:
    """Parse an ISO-8601 time with its zone (``Z`` or an offset such as ``+02:00``), as UTC.

    Raises:
        ValueError: not an ISO-8601 time, or one without a zone (which zone a host meant is not
            guessed).
    """
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not an ISO-8601 time such as 2026-12-01T00:00:00Z") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{what}: {value!r} has no time zone; add Z for UTC or an offset (2026-12-01T00:00:00+01:00)")
    return parsed.astimezone(timezone.utc)


def load_config_file(path: str | Path) -> tuple[Settings, list[ChallengeConfig]]:
    """Read a ``.toml`` or ``.json`` config file: a ``server`` table and a ``challenge`` list.

    Raises:
        ValueError: for a malformed file, naming the file and the problem.
    """
    path = Path(path)
    data = _read_config(path)
    settings = Settings.from_mapping(data.get("server", {}))
    challenges = [ChallengeConfig.from_mapping(c, base_dir=path.parent) for c in data.get("challenge", [])]
    return settings, challenges


def _read_config(path: Path) -> dict[str, Any]:
    text = path.read_bytes()
    try:
        if path.suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # Python 3.10
                import tomli as tomllib
            data = tomllib.loads(text.decode("utf-8"))
        else:
            data = json.loads(text)
    except Exception as exc:  # noqa: BLE001 - any parse failure is reported with the file name
        raise ValueError(f"{path}: cannot parse config: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the config must be a table/object")
    unknown = sorted(set(data) - {"server", "challenge"})
    if unknown:
        raise ValueError(f"{path}: unknown top-level key(s) {unknown}; expected 'server' and 'challenge'")
    return data
