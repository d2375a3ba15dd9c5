"""The visibility policy: what a viewer may see of a submission. Every route asks :func:`access`.

* A submission is *listed* (leaderboards, exports) for everyone when it is public or a baseline,
  and for its own team and hosts otherwise.
* Its *details* (status, file name, method text, errors, the submission page, the uploaded file
  itself) are for its team and hosts.
* Its *scores* (corpus scores, signatures, significance, the score columns of exports) follow the
  phase's ``scores_visible``: ``always``; ``after_end`` (once the phase has ended); ``never``.
  Hosts always see them.
* Its *per-image* data (per-image scores, captions, references: the drill-down) exists only for
  ``public`` splits, only for its team and hosts, and only when the viewer may see its scores
  (per-image scores average to the corpus score). Hidden splits never expose per-image data.
* *Host* data (each job's internal error, the audit log) is for hosts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

__all__ = ["SCORES_VISIBLE_MODES", "Access", "access", "phase_scores_visible"]

#: Values of ``Phase.scores_visible``.
SCORES_VISIBLE_MODES = ("always", "after_end", "never")


@dataclass(frozen=True)
class Access:
    """What one viewer may see of one submission."""

    listed: bool
    details: bool
    scores: bool
    #: Names of the splits whose per-image data the viewer may see.
    item_splits: frozenset[str]
    host: bool

    def items(self, split_name: str) -> bool:
        """Whether per-image data of ``split_name`` is visible."""
        return split_name in self.item_splits


def phase_scores_visible(phase: Any, viewer: Any | None, now: datetime | None = None) -> bool:
    """Whether ``viewer`` may see corpus scores of submissions to ``phase``."""
    if viewer is not None and viewer.is_host:
        return True
    if phase.scores_visible == "always":
        return True
    if phase.scores_visible == "after_end":
        return phase.ends_at is not None and (now or datetime.now(timezone.utc)) >= phase.ends_at
    return False


def access(viewer: Any | None, submission: Any, phase: Any, now: datetime | None = None) -> Access:
    """The policy. ``viewer`` is a user or ``None`` (anonymous); ``phase`` is the submission's phase."""
    host = viewer is not None and bool(viewer.is_host)
    own = viewer is not None and viewer.team_id is not None and viewer.team_id == submission.team_id
    details = host or own
    listed = details or bool(submission.is_public) or bool(submission.is_baseline)
    scores = listed and phase_scores_visible(phase, viewer, now)
    item_splits = (
        frozenset(s.name for s in phase.splits if s.visibility == "public") if details and scores else frozenset()
    )
    return Access(listed=listed, details=details, scores=scores, item_splits=item_splits, host=host)
