"""Kiosk devices: kiosks the commissioner paired from the tablet (only hashes kept).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 10:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

revision: str = "0006"
down_revision: str | None = "0005"


def upgrade() -> None:
    op.create_table(
        "kiosk_devices",
        id_column(),
        centre_column(),
        sa.Column("lanes", sa.String(length=16), nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("paired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paired_by", sa.String(length=128), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_kiosk_devices")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_kiosk_devices_token_hash")),
    )
    op.create_index("ix_kiosk_devices_centre_code", "kiosk_devices", ["centre", "code"],
                    unique=False)


def downgrade() -> None:
    op.drop_index("ix_kiosk_devices_centre_code", table_name="kiosk_devices")
    op.drop_table("kiosk_devices")
