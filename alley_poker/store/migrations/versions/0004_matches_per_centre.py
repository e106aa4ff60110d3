"""Matches per centre: a match is (centre, match_id), so two centres may both have "m1".

The primary key of ``matches`` becomes ``(centre, match_id)``; the events' unique
``(match_id, seq)`` becomes ``(centre, match_id, seq)``; events and lane assignments refer to
their match by ``(centre, match_id)``.  On SQLite every table is rebuilt (batch mode; the
store turns foreign-key enforcement off while it migrates, as SQLite's table-rebuild
procedure requires); on PostgreSQL the constraints are altered in place.

Going back down refuses (an integrity error) once two centres share a match id.
Created 2026-11-22.
"""

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"


def upgrade() -> None:
    # Foreign keys first: PostgreSQL will not drop a primary key that others refer to.
    with op.batch_alter_table("events", recreate="auto") as events:
        events.drop_constraint("fk_events_match_id_matches", type_="foreignkey")
        events.drop_constraint("uq_events_match_id_seq", type_="unique")
    with op.batch_alter_table("lane_assignments", recreate="auto") as assignments:
        assignments.drop_constraint("fk_lane_assignments_match_id_matches", type_="foreignkey")
        assignments.drop_index("ix_lane_assignments_match_id")
    with op.batch_alter_table("matches", recreate="auto") as matches:
        matches.drop_constraint("pk_matches", type_="primary")
        matches.create_primary_key("pk_matches", ["centre", "match_id"])
    with op.batch_alter_table("events", recreate="auto") as events:
        events.create_unique_constraint("uq_events_centre_match_id_seq",
                                        ["centre", "match_id", "seq"])
        events.create_foreign_key("fk_events_centre_matches", "matches",
                                  ["centre", "match_id"], ["centre", "match_id"])
    with op.batch_alter_table("lane_assignments", recreate="auto") as assignments:
        assignments.create_foreign_key("fk_lane_assignments_centre_matches", "matches",
                                       ["centre", "match_id"], ["centre", "match_id"])
        assignments.create_index("ix_lane_assignments_centre_match_id", ["centre", "match_id"])


def downgrade() -> None:
    with op.batch_alter_table("events", recreate="auto") as events:
        events.drop_constraint("fk_events_centre_matches", type_="foreignkey")
        events.drop_constraint("uq_events_centre_match_id_seq", type_="unique")
    with op.batch_alter_table("lane_assignments", recreate="auto") as assignments:
        assignments.drop_constraint("fk_lane_assignments_centre_matches", type_="foreignkey")
        assignments.drop_index("ix_lane_assignments_centre_match_id")
    with op.batch_alter_table("matches", recreate="auto") as matches:
        matches.drop_constraint("pk_matches", type_="primary")
        matches.create_primary_key("pk_matches", ["match_id"])
    with op.batch_alter_table("events", recreate="auto") as events:
        events.create_unique_constraint("uq_events_match_id_seq", ["match_id", "seq"])
        events.create_foreign_key("fk_events_match_id_matches", "matches",
                                  ["match_id"], ["match_id"])
    with op.batch_alter_table("lane_assignments", recreate="auto") as assignments:
        assignments.create_foreign_key("fk_lane_assignments_match_id_matches", "matches",
                                       ["match_id"], ["match_id"])
        assignments.create_index("ix_lane_assignments_match_id", ["match_id"])
