"""Kiosk devices: kiosks the commissioner paired from the tablet (only hashes kept).

Created 2026-11-25.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.tables import create_centre_table, drop_table

revision: str = "0006"
down_revision: str | None = "0005"

INDEXES = [("centre", "code")]


def upgrade() -> None:
    create_centre_table(
        "kiosk_devices",
        sa.Column("lanes", sa.String(length=16), nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("paired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paired_by", sa.String(length=128), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        unique=[("token_hash",)],
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("kiosk_devices", indexes=INDEXES)
