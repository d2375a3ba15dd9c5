"""Submission and job states."""

from __future__ import annotations

from enum import Enum

__all__ = ["FREE_STATES", "IN_FLIGHT_STATES", "JobState", "SubmissionState"]


class _State(str, Enum):
    """A state stored as its lower-case name; compares equal to that string."""

    def __str__(self) -> str:
        return self.value


class SubmissionState(_State):
    """Where a submission is: ``queued``/``running`` are in flight; ``finished`` has results."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class JobState(_State):
    """Where one scoring run is."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


#: Submission states that do not count against the quota (a server-side failure or a host cancel).
FREE_STATES = (SubmissionState.FAILED, SubmissionState.CANCELLED)
#: Submission (and job) states of work not done yet.
IN_FLIGHT_STATES = (SubmissionState.QUEUED, SubmissionState.RUNNING)
