"""The initial event store: matches and their append-only events.

Revision ID: 0001
Revises:
Create Date: 2024-06-01 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

revision: str = "0001"
down_revision: str | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        centre_column(),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_matches")),
    )
    op.create_table(
        "events",
        id_column(),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        centre_column(),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.match_id"],
            name=op.f("fk_events_match_id_matches"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("match_id", "seq", name=op.f("uq_events_match_id_seq")),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("matches")
