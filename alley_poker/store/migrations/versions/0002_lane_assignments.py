"""Lane assignments: which scorer slot on which lane is which bowler of a match.

Created 2026-11-22.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.columns import centre_column, id_column
from alley_poker.store.migrations.tables import create_table, drop_table

revision: str = "0002"
down_revision: str | None = "0001"

INDEXES = [("match_id",)]


def upgrade() -> None:
    # The centre stands last, as in 0001's events.
    create_table(
        "lane_assignments",
        id_column(),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("slots", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("assigned_at", sa.DateTime(timezone=True), nullable=False),
        centre_column(),
        refers_to=("matches", ["match_id"]),
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("lane_assignments", indexes=INDEXES)
