"""Side games of a league night (brackets, pots): their event log, one sequence per night.

Created 2026-12-02.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.tables import create_centre_table, drop_table

revision: str = "0010"
down_revision: str | None = "0009"


def upgrade() -> None:
    create_centre_table(
        "side_events",
        sa.Column("night_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        unique=[("centre", "night_id", "seq")],
    )


def downgrade() -> None:
    drop_table("side_events")
