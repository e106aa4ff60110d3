"""Held balls: feed balls the router could not place, kept as review items for the desk.

Created 2026-11-25.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.tables import create_centre_table, drop_table

revision: str = "0005"
down_revision: str | None = "0004"

INDEXES = [("centre", "outcome")]


def upgrade() -> None:
    create_centre_table(
        "held_balls",
        sa.Column("lane", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=64), nullable=True),
        sa.Column("bowler", sa.String(length=64), nullable=True),
        sa.Column("ball", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("line", sa.String(length=500), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("held_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=True),
        sa.Column("resolved_by", sa.String(length=128), nullable=True),
        sa.Column("resolved_reason", sa.String(length=500), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("held_balls", indexes=INDEXES)
