"""The audit log."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from capeval.server.db import Database
from capeval.server.models import AuditLog, User

__all__ = ["audit", "audit_rows"]


def audit(session: Session, actor: User | None, action: str, target: str = "", detail: str = "") -> None:
    """Append an audit-log row in the caller's transaction."""
    session.add(AuditLog(actor_id=actor.id if actor else None, action=action, target=target, detail=detail))


def audit_rows(db: Database, limit: int = 500) -> list[dict[str, Any]]:
    """The newest ``limit`` audit rows."""
    with db.read() as session:
        return [
            {
                "at": row.at.isoformat(),
                "actor": row.actor.username if row.actor else "system",
                "action": row.action,
                "target": row.target,
                "detail": row.detail,
            }
            for row in session.scalars(select(AuditLog).order_by(AuditLog.id.desc()).limit(limit))
        ]
