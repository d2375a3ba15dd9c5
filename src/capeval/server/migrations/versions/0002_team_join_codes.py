"""team join codes

Joining an existing team now needs the team's join code. Existing teams get a random one.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

#: Random bytes of a join code (as capeval.server.models.JOIN_CODE_BYTES at this revision).
JOIN_CODE_BYTES = 9


def upgrade() -> None:
    with op.batch_alter_table("team", schema=None) as batch_op:
        batch_op.add_column(sa.Column("join_code", sa.String(length=32), nullable=False, server_default=""))
    team = sa.table("team", sa.column("id", sa.Integer), sa.column("join_code", sa.String))
    connection = op.get_bind()
    for (team_id,) in connection.execute(sa.select(team.c.id)).all():
        connection.execute(
            team.update().where(team.c.id == team_id).values(join_code=secrets.token_urlsafe(JOIN_CODE_BYTES))
        )
    with op.batch_alter_table("team", schema=None) as batch_op:
        batch_op.alter_column("join_code", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("team", schema=None) as batch_op:
        batch_op.drop_column("join_code")
