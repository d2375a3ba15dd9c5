"""team names compare without case: team.name_key (unique)

Every team gets the comparison key of its name (compatibility forms folded, case folded, spaces
collapsed). Teams that already share a key (``VisionLab`` and ``visionlab`` registered before this
revision) keep their names; every one after the first gets a key suffixed with its id, so the hosts
can merge or rename them.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    # As capeval.server.domain.text.team_key at this revision.
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def upgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=255), nullable=True))
    team = sa.table("team", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("name_key", sa.String))
    connection = op.get_bind()
    seen: set[str] = set()
    for team_id, name in connection.execute(sa.select(team.c.id, team.c.name).order_by(team.c.id)).all():
        key = _key(name)[:200]
        if key in seen:
            key = f"{key}\x1f{team_id}"  # U+001F never occurs in a team name
        seen.add(key)
        connection.execute(team.update().where(team.c.id == team_id).values(name_key=key))
    with op.batch_alter_table("team") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=255), nullable=False)
        batch.create_unique_constraint("uq_team_name_key", ["name_key"])


def downgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.drop_constraint("uq_team_name_key", type_="unique")
        batch.drop_column("name_key")
