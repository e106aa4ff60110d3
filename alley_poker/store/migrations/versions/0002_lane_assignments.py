"""Lane assignments: which scorer slot on which lane is which bowler of a match.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 00:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

revision: str = "0002"
down_revision: str | None = "0001"


def upgrade() -> None:
    op.create_table(
        "lane_assignments",
        id_column(),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("slots", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("assigned_at", sa.DateTime(timezone=True), nullable=False),
        centre_column(),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.match_id"],
            name=op.f("fk_lane_assignments_match_id_matches"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lane_assignments")),
    )
    op.create_index(
        op.f("ix_lane_assignments_match_id"), "lane_assignments", ["match_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_lane_assignments_match_id"), table_name="lane_assignments")
    op.drop_table("lane_assignments")
