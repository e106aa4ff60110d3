"""Held balls: feed balls the router could not place, kept as review items for the desk.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 06:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

revision: str = "0005"
down_revision: str | None = "0004"


def upgrade() -> None:
    op.create_table(
        "held_balls",
        id_column(),
        centre_column(),
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
        sa.PrimaryKeyConstraint("id", name=op.f("pk_held_balls")),
    )
    op.create_index(op.f("ix_held_balls_centre_outcome"), "held_balls", ["centre", "outcome"],
                    unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_held_balls_centre_outcome"), table_name="held_balls")
    op.drop_table("held_balls")
