"""Domain errors. Services raise these; the web layer maps each class to an HTTP status in one
place (:mod:`capeval.server.api.errors`). Every error carries a short code and a message for people."""

from __future__ import annotations

__all__ = [
    "Conflict",
    "DomainError",
    "Forbidden",
    "InvalidInput",
    "LimitReached",
    "NotFound",
    "TooLarge",
    "TooManyAttempts",
    "Unauthenticated",
    "UnprocessableResults",
    "UnsupportedType",
]


class DomainError(ValueError):
    """A refused operation: ``code`` (machine-readable) and ``message`` (for people)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidInput(DomainError):
    """Malformed request: wrong type, too long, too deep, not UTF-8..."""


class UnprocessableResults(DomainError):
    """A well-formed results file that does not fit the phase (missing image, empty caption...)."""


class TooLarge(DomainError):
    """A body, file or zip member over its size limit."""


class UnsupportedType(DomainError):
    """A content type the endpoint does not take."""


class Unauthenticated(DomainError):
    """No, or wrong, credentials."""


class Forbidden(DomainError):
    """Authenticated but not allowed (closed phase, host-only action, team code...)."""


class NotFound(DomainError):
    """No such object, or one the caller may not know about."""


class Conflict(DomainError):
    """The object is in a state that forbids the operation (name taken, already queued)."""


class LimitReached(DomainError):
    """A per-team submission limit."""


class TooManyAttempts(DomainError):
    """Login throttled."""
