"""API tokens: bearer tokens a centre's commissioner creates on the tablet (only hashes kept).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 01:55:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

revision: str = "0003"
down_revision: str | None = "0002"


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        id_column(),
        centre_column(),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_index(op.f("ix_api_tokens_centre"), "api_tokens", ["centre"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_api_tokens_centre"), table_name="api_tokens")
    op.drop_table("api_tokens")
