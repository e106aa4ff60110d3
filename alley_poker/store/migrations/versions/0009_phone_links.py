"""The bowler's phone: capability links per bowler and night (only hashes kept), and the
request ids of decisions sent from phones (a retried request is answered, not run again).

Created 2026-12-03.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.columns import ID_TYPE
from alley_poker.store.migrations.tables import create_centre_table, create_table, drop_table

revision: str = "0009"
down_revision: str | None = "0008"

LINK_INDEXES = [("centre", "match_id")]


def upgrade() -> None:
    create_centre_table(
        "phone_links",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("bowler", sa.String(length=64), nullable=False),
        sa.Column("night_date", sa.Date(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("session_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        unique=[("token_hash",), ("session_hash",)],
        indexes=LINK_INDEXES,
    )
    create_table(
        "phone_requests",
        sa.Column("link_id", ID_TYPE, nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("answer", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        key=["link_id", "request_id"],
    )


def downgrade() -> None:
    drop_table("phone_requests")
    drop_table("phone_links", indexes=LINK_INDEXES)
