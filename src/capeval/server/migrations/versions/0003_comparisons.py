"""significance comparisons computed by the workers

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "comparison",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("base_result_id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("n_resamples", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("values_json", sa.Text(), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["base_result_id"], ["result.id"]),
        sa.ForeignKeyConstraint(["result_id"], ["result.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("base_result_id", "result_id", "n_resamples", "seed", name="uq_comparison"),
    )
    op.create_index("ix_comparison_pending", "comparison", ["computed_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_comparison_pending", table_name="comparison")
    op.drop_table("comparison")
