"""Side games of a league night (brackets, pots): their event log, one sequence per night.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 06:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

revision: str = "0010"
down_revision: str | None = "0009"


def upgrade() -> None:
    op.create_table(
        "side_events",
        id_column(),
        centre_column(),
        sa.Column("night_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_side_events")),
        sa.UniqueConstraint("centre", "night_id", "seq",
                            name=op.f("uq_side_events_centre_night_id_seq")),
    )


def downgrade() -> None:
    op.drop_table("side_events")
