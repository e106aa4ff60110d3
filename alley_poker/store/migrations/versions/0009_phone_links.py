"""The bowler's phone: capability links per bowler and night (only hashes kept), and the
request ids of decisions sent from phones (a retried request is answered, not run again).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import ID_TYPE, centre_column, id_column

revision: str = "0009"
down_revision: str | None = "0008"


def upgrade() -> None:
    op.create_table(
        "phone_links",
        id_column(),
        centre_column(),
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
        sa.PrimaryKeyConstraint("id", name=op.f("pk_phone_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_phone_links_token_hash")),
        sa.UniqueConstraint("session_hash", name=op.f("uq_phone_links_session_hash")),
    )
    op.create_index("ix_phone_links_centre_match_id", "phone_links", ["centre", "match_id"],
                    unique=False)
    op.create_table(
        "phone_requests",
        sa.Column("link_id", ID_TYPE,
                  nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("answer", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("link_id", "request_id", name=op.f("pk_phone_requests")),
    )


def downgrade() -> None:
    op.drop_table("phone_requests")
    op.drop_index("ix_phone_links_centre_match_id", table_name="phone_links")
    op.drop_table("phone_links")
