"""Leagues: leagues, their rosters of bowlers, league nights, and the scorer names waiting
for the desk (seat requests).  Only new tables: every existing row and event stays as it is.

Created 2026-11-25.
"""

import sqlalchemy as sa

from alley_poker.store.migrations.columns import ID_TYPE, centre_column
from alley_poker.store.migrations.tables import create_centre_table, create_table, drop_table

revision: str = "0007"
down_revision: str | None = "0006"

LEAGUE = ("leagues", ["centre", "league_id"])
BOWLER_INDEXES = NIGHT_INDEXES = [("centre", "league_id")]
REQUEST_INDEXES = [("centre", "resolved_at")]


def upgrade() -> None:
    create_table(
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
        key=["centre", "league_id"],
    )
    create_centre_table(
        "league_bowlers",
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("scorer_name", sa.String(length=24), nullable=False),
        sa.Column("average", sa.Integer(), nullable=True),
        sa.Column("handicap_basis", sa.String(length=16), nullable=False),
        sa.Column("team", sa.String(length=40), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        refers_to=LEAGUE,
        indexes=BOWLER_INDEXES,
    )
    create_table(
        "league_nights",
        centre_column(),
        sa.Column("night_id", sa.String(length=64), nullable=False),
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("night_date", sa.Date(), nullable=False),
        sa.Column("checked_in", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_by", sa.String(length=128), nullable=False),
        key=["centre", "night_id"],
        refers_to=LEAGUE,
        indexes=NIGHT_INDEXES,
    )
    create_centre_table(
        "seat_requests",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("lane", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("scorer_name", sa.String(length=64), nullable=False),
        sa.Column("raised_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_bowler", ID_TYPE, nullable=True),
        sa.Column("resolved_by", sa.String(length=128), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        indexes=REQUEST_INDEXES,
    )


def downgrade() -> None:
    drop_table("seat_requests", indexes=REQUEST_INDEXES)
    drop_table("league_nights", indexes=NIGHT_INDEXES)
    drop_table("league_bowlers", indexes=BOWLER_INDEXES)
    drop_table("leagues")
