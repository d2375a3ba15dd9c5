"""a team's representative entry; withdrawn and hidden entries; site settings (registration); kept uploads

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("is_representative", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "site_setting",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "upload_file",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submission.id"]),
        sa.PrimaryKeyConstraint("submission_id"),
    )


def downgrade() -> None:
    op.drop_table("upload_file")
    op.drop_table("site_setting")
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("hidden_at")
        batch.drop_column("withdrawn_at")
        batch.drop_column("is_representative")
