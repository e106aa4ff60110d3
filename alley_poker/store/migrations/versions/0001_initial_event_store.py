"""The initial event store: matches and their append-only events (created 2024-06-01)."""

import sqlalchemy as sa

from alley_poker.store.migrations.columns import centre_column, id_column
from alley_poker.store.migrations.tables import create_table, drop_table

revision: str = "0001"
down_revision: str | None = None


def upgrade() -> None:
    create_table(
        "matches",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        centre_column(),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        key=["match_id"],
    )
    # Here the centre stands last: these two tables are older than the per-centre shape.
    create_table(
        "events",
        id_column(),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        centre_column(),
        refers_to=("matches", ["match_id"]),
        unique=[("match_id", "seq")],
    )


def downgrade() -> None:
    drop_table("events")
    drop_table("matches")
