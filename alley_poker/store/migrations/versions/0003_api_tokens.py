"""API tokens: bearer tokens a centre's commissioner creates on the tablet (only hashes kept).

Created 2026-11-22.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.tables import create_centre_table, drop_table

revision: str = "0003"
down_revision: str | None = "0002"

INDEXES = [("centre",)]


def upgrade() -> None:
    create_centre_table(
        "api_tokens",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        unique=[("token_hash",)],
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("api_tokens", indexes=INDEXES)
