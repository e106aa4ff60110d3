"""Leagues: leagues, their rosters of bowlers, league nights, and the scorer names waiting
for the desk (seat requests).  Only new tables: every existing row and event stays as it is.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 17:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import ID_TYPE, centre_column, id_column

revision: str = "0007"
down_revision: str | None = "0006"


def upgrade() -> None:
    op.create_table(
        "leagues",
        centre_column(),
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("rule_book", sa.String(length=100), nullable=False),
        sa.Column("ante_cents", sa.Integer(), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("start_time", sa.String(length=5), nullable=False),
        sa.Column("time_zone", sa.String(length=64), nullable=False),
        sa.Column("lane_pairs", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("handicap_percent", sa.Integer(), nullable=False),
        sa.Column("handicap_basis_pins", sa.Integer(), nullable=False),
        sa.Column("lowest_draw_by", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("centre", "league_id", name=op.f("pk_leagues")),
    )
    op.create_table(
        "league_bowlers",
        id_column(),
        centre_column(),
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("scorer_name", sa.String(length=24), nullable=False),
        sa.Column("average", sa.Integer(), nullable=True),
        sa.Column("handicap_basis", sa.String(length=16), nullable=False),
        sa.Column("team", sa.String(length=40), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["centre", "league_id"], ["leagues.centre", "leagues.league_id"],
                                name=op.f("fk_league_bowlers_centre_leagues")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_bowlers")),
    )
    op.create_index(op.f("ix_league_bowlers_centre_league_id"), "league_bowlers",
                    ["centre", "league_id"], unique=False)
    op.create_table(
        "league_nights",
        centre_column(),
        sa.Column("night_id", sa.String(length=64), nullable=False),
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("night_date", sa.Date(), nullable=False),
        sa.Column("checked_in", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_by", sa.String(length=128), nullable=False),
        sa.ForeignKeyConstraint(["centre", "league_id"], ["leagues.centre", "leagues.league_id"],
                                name=op.f("fk_league_nights_centre_leagues")),
        sa.PrimaryKeyConstraint("centre", "night_id", name=op.f("pk_league_nights")),
    )
    op.create_index(op.f("ix_league_nights_centre_league_id"), "league_nights",
                    ["centre", "league_id"], unique=False)
    op.create_table(
        "seat_requests",
        id_column(),
        centre_column(),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("lane", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("scorer_name", sa.String(length=64), nullable=False),
        sa.Column("raised_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_bowler", ID_TYPE,
                  nullable=True),
        sa.Column("resolved_by", sa.String(length=128), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_requests")),
    )
    op.create_index(op.f("ix_seat_requests_centre_resolved_at"), "seat_requests",
                    ["centre", "resolved_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_seat_requests_centre_resolved_at"), table_name="seat_requests")
    op.drop_table("seat_requests")
    op.drop_index(op.f("ix_league_nights_centre_league_id"), table_name="league_nights")
    op.drop_table("league_nights")
    op.drop_index(op.f("ix_league_bowlers_centre_league_id"), table_name="league_bowlers")
    op.drop_table("league_bowlers")
    op.drop_table("leagues")
