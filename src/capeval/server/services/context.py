"""What the services share in one process: the database, the resolved settings, the scorer identity
and the process-local caches. Built once by :func:`capeval.server.app.create_app`."""

from __future__ import annotations

from dataclasses import dataclass, field

from capeval.server.config import Settings
from capeval.server.db import Database
from capeval.server.services.challenges import PhaseIds
from capeval.server.services.throttle import LoginThrottle, RegistrationThrottle

__all__ = ["LOGIN_MAX_FAILURES", "LOGIN_WINDOW_SECONDS", "ServerContext"]

#: Failed logins per (username, address) within LOGIN_WINDOW_SECONDS before that pair is locked.
LOGIN_MAX_FAILURES = 10
LOGIN_WINDOW_SECONDS = 15 * 60


@dataclass
class ServerContext:
    """The services' shared state."""

    db: Database
    settings: Settings
    metrics: tuple[str, ...]
    scorer_version: str
    phase_ids: PhaseIds = field(default_factory=PhaseIds)
    throttle: LoginThrottle = field(default_factory=lambda: LoginThrottle(LOGIN_MAX_FAILURES, LOGIN_WINDOW_SECONDS))
    registrations: RegistrationThrottle = field(default_factory=RegistrationThrottle)
