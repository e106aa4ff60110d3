"""The event store's tables, as SQLAlchemy metadata.

This module is the single description of the schema: the Alembic migrations build exactly
this (a test compares the migrated database with this metadata on SQLite and PostgreSQL), so
a change here needs a migration in ``migrations/versions/`` (see ``docs/persistence.md``).

Only portable types are used (no JSONB, no SQLite-only tricks) so one set of migrations
builds both back-ends.

Everything per-centre carries a ``centre`` key.  A match is ``(centre, match_id)``: two
centres on one database may both have a match "m1" and never see each other's.

>>> sorted(metadata.tables)  # doctest: +NORMALIZE_WHITESPACE
['api_tokens', 'chain_starts', 'deal_seeds', 'events', 'held_balls', 'kiosk_devices',
 'lane_assignments', 'league_bowlers', 'league_nights', 'leagues', 'matches', 'phone_links',
 'phone_requests', 'seat_requests', 'side_events']
>>> [column.name for column in events.columns]
['id', 'match_id', 'seq', 'type', 'data', 'recorded_at', 'centre', 'prev_hash', 'hash']
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
)

#: Every centre-scoped row carries this until a deployment names its centre.
DEFAULT_CENTRE = "default"

# Named constraints make migrations reproducible: the same names on every back-end, so a
# later migration can drop or alter them by name.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

#: Longest API token name kept.
MAX_TOKEN_NAME_LENGTH = 100

#: A row id's type: BIGINT on PostgreSQL; SQLite only auto-increments a column declared
#: INTEGER.  Also the type of a column that refers to a row id.
ROW_ID_TYPE = BigInteger().with_variant(Integer(), "sqlite")


def _row_id() -> Column:
    """A table's auto-incremented ``id``, its primary key."""
    return Column("id", ROW_ID_TYPE, primary_key=True, autoincrement=True)


def _centre(**options) -> Column:
    """The ``centre`` every per-centre row carries (``DEFAULT_CENTRE`` until a deployment
    names it); ``options`` as Column's (``index=True``)."""
    return Column("centre", String(64), nullable=False, server_default=DEFAULT_CENTRE,
                  **options)


matches = Table(
    "matches",
    metadata,
    Column("match_id", String(64), nullable=False),
    _centre(),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("centre", "match_id"),
)

# The unique constraint on (centre, match_id, seq) is both the optimistic-concurrency guard (two
# writers cannot both store seq N of a match) and the index every load uses: PostgreSQL and
# SQLite back a unique constraint with a b-tree index on exactly those columns, so a second,
# identical index would only double the cost of every append.
events = Table(
    "events",
    metadata,
    # A global, increasing id: the cursor for "every event since ..." across matches.
    _row_id(),
    Column("match_id", String(64), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    # The rest of the ledger's record (its ``at`` and ``data``), exactly as appended.
    Column("data", JSON(none_as_null=True), nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    _centre(),
    # The hash chain (store/chain.py, docs/fairness.md): the previous event's hash in the
    # match (64 zeros for its first) and SHA-256(previous hash || canonical record), in hex.
    Column("prev_hash", String(64), nullable=True),
    Column("hash", String(64), nullable=True),
    UniqueConstraint("centre", "match_id", "seq"),
    ForeignKeyConstraint(["centre", "match_id"], ["matches.centre", "matches.match_id"]),
)

# Where the hash chain starts: one row per migration that sealed the events it found (their
# hashes vouch for them from ``started_at`` on, not from when they were appended).
chain_starts = Table(
    "chain_starts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("sealed_events", Integer, nullable=False),
    # The global id of the last event sealed by the migration; later ones were chained as
    # they were appended.  None when the database held no events.
    Column("last_sealed_id", BigInteger, nullable=True),
)

# Each fair match's secret server seed (hex), kept until settlement reveals it in the log.
# Written before the match's first event, so it has no foreign key to ``matches``.
deal_seeds = Table(
    "deal_seeds",
    metadata,
    _centre(),
    Column("match_id", String(64), nullable=False),
    Column("seed", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("centre", "match_id"),
)

# Which scorer slot on which lane is which bowler of a match.  Append-only like the events, so
# every change the commissioner makes is kept with who made it and why; the newest row of a
# match is the assignment in force.
lane_assignments = Table(
    "lane_assignments",
    metadata,
    _row_id(),
    Column("match_id", String(64), nullable=False),
    # [[lane, slot, bowler], ...]
    Column("slots", JSON(none_as_null=True), nullable=False),
    Column("actor", String(128), nullable=False),
    Column("reason", String(500), nullable=False),
    Column("assigned_at", DateTime(timezone=True), nullable=False),
    _centre(),
    ForeignKeyConstraint(["centre", "match_id"], ["matches.centre", "matches.match_id"]),
    Index(None, "centre", "match_id"),
)

# Bearer tokens a centre's commissioner creates on the tablet; only the SHA-256 of the secret
# is kept (see ``store/api_tokens.py``).
api_tokens = Table(
    "api_tokens",
    metadata,
    _row_id(),
    _centre(index=True),
    Column("name", String(MAX_TOKEN_NAME_LENGTH), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    UniqueConstraint("token_hash"),
)

# Feed balls the router could not place (the ledger and the scorer disagree, no match on the
# lane, a match not in play, a refusal): review items for the desk, kept until resolved.
held_balls = Table(
    "held_balls",
    metadata,
    _row_id(),
    _centre(),
    Column("lane", Integer, nullable=False),
    Column("slot", Integer, nullable=False),
    Column("match_id", String(64), nullable=True),
    Column("bowler", String(64), nullable=True),
    # {"game", "frame", "ball", "pins", "standing", "flags", "source", "seq", "recovered"}
    Column("ball", JSON(none_as_null=True), nullable=False),
    Column("line", String(500), nullable=False),
    Column("reason", String(500), nullable=False),
    Column("held_at", DateTime(timezone=True), nullable=False),
    Column("outcome", String(32), nullable=True),   # placed, applied, resynced, discarded
    Column("resolved_by", String(128), nullable=True),
    Column("resolved_reason", String(500), nullable=True),
    Column("resolved_at", DateTime(timezone=True), nullable=True),
    Index(None, "centre", "outcome"),
)

#: Kiosks paired by the commissioner: only a paired kiosk may send a bowler's decision.  A
#: kiosk asks with its lane pair and shows ``code``; the tablet approves the code
#: (``paired_at``, ``paired_by``).  Only the SHA-256 of the device's secret is kept.
kiosk_devices = Table(
    "kiosk_devices",
    metadata,
    _row_id(),
    _centre(),
    Column("lanes", String(16), nullable=False),
    Column("code", String(16), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("requested_at", DateTime(timezone=True), nullable=False),
    Column("paired_at", DateTime(timezone=True), nullable=True),
    Column("paired_by", String(128), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    UniqueConstraint("token_hash"),
    Index("ix_kiosk_devices_centre_code", "centre", "code"),
)

# --- the league (store/leagues.py; the domain is alley_poker/league) ------------------------

#: A league of a centre: its settings, as alley_poker.league.League holds them.
leagues = Table(
    "leagues",
    metadata,
    _centre(),
    Column("league_id", String(32), nullable=False),
    Column("name", String(60), nullable=False),
    Column("rule_book", String(100), nullable=False),
    Column("ante_cents", Integer, nullable=False),
    Column("weekday", Integer, nullable=False),           # 0 Monday .. 6 Sunday
    Column("start_time", String(5), nullable=False),      # "HH:MM", local
    Column("time_zone", String(64), nullable=False),      # IANA name
    Column("lane_pairs", JSON(none_as_null=True), nullable=False),   # [[1, 2], [3, 4]]
    Column("games", Integer, nullable=False),
    Column("handicap_percent", Integer, nullable=False),
    Column("handicap_basis_pins", Integer, nullable=False),
    Column("lowest_draw_by", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("centre", "league_id"),
)

#: The people of a league's roster.  Never deleted: a retired bowler (``active`` false) keeps
#: the history the event log holds under their id.
league_bowlers = Table(
    "league_bowlers",
    metadata,
    _row_id(),
    _centre(),
    Column("league_id", String(32), nullable=False),
    Column("name", String(40), nullable=False),
    Column("scorer_name", String(24), nullable=False),
    Column("average", Integer, nullable=True),
    Column("handicap_basis", String(16), nullable=False),   # "book" or "league"
    Column("team", String(40), nullable=True),
    Column("active", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    ForeignKeyConstraint(["centre", "league_id"], ["leagues.centre", "leagues.league_id"]),
    Index(None, "centre", "league_id"),
)

#: A league night as started from the desk: who checked in.  The night's matches are in the
#: event log (their ``match_created`` carries the night's id).
league_nights = Table(
    "league_nights",
    metadata,
    _centre(),
    Column("night_id", String(64), nullable=False),       # "<league_id>-<YYYY-MM-DD>"
    Column("league_id", String(32), nullable=False),
    Column("night_date", Date, nullable=False),           # the league's local date
    Column("checked_in", JSON(none_as_null=True), nullable=False),   # [bowler id, ...]
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("started_by", String(128), nullable=False),
    PrimaryKeyConstraint("centre", "night_id"),
    ForeignKeyConstraint(["centre", "league_id"], ["leagues.centre", "leagues.league_id"]),
    Index(None, "centre", "league_id"),
)

#: A name the scorer announced for a lane's slot that matched nobody on the roster (or more
#: than one): it waits here until the desk picks the bowler.  Never guessed.
seat_requests = Table(
    "seat_requests",
    metadata,
    _row_id(),
    _centre(),
    Column("match_id", String(64), nullable=False),
    Column("lane", Integer, nullable=False),
    Column("slot", Integer, nullable=False),
    Column("scorer_name", String(64), nullable=False),
    Column("raised_at", DateTime(timezone=True), nullable=False),
    Column("resolved_bowler", ROW_ID_TYPE, nullable=True),
    Column("resolved_by", String(128), nullable=True),
    Column("resolved_at", DateTime(timezone=True), nullable=True),
    Index(None, "centre", "resolved_at"),
)


# --- the bowler's phone (store/phone_links.py) ------------------------------------------------

#: A bowler's phone link: one bowler of one match, for one night, until ``expires_at`` (the
#: night's close) or ``revoked_at``.  Only SHA-256 hashes are kept: of the link's token (shown
#: once, as a QR code) and of the session secret its first open exchanged it for.
phone_links = Table(
    "phone_links",
    metadata,
    _row_id(),
    _centre(),
    Column("match_id", String(64), nullable=False),
    Column("bowler", String(64), nullable=False),
    Column("night_date", Date(), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("session_hash", String(64), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(128), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("opened_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    UniqueConstraint("token_hash"),
    UniqueConstraint("session_hash"),
    Index("ix_phone_links_centre_match_id", "centre", "match_id"),
)

#: A decision sent from a phone, by the client's request id: a double tap or a retried request
#: finds its row and gets the first answer again instead of acting twice.
phone_requests = Table(
    "phone_requests",
    metadata,
    Column("link_id", ROW_ID_TYPE, nullable=False),
    Column("request_id", String(64), nullable=False),
    Column("status", Integer(), nullable=True),
    Column("answer", JSON(), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("link_id", "request_id"),
)


# --- side games (store/side_nights.py) --------------------------------------------------------

#: A league night's side-game events (alley_poker.side_games): brackets, pots and their money.
#: Append-only like ``events``, one sequence per night; the unique (centre, night_id, seq) is
#: the optimistic-concurrency guard.  ``data`` is the rest of the record (``at`` and ``data``)
#: exactly as appended.  The draw's secret seed waits in ``deal_seeds`` until it is revealed.
side_events = Table(
    "side_events",
    metadata,
    _row_id(),
    _centre(),
    Column("night_id", String(64), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("data", JSON(none_as_null=True), nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("centre", "night_id", "seq"),
)
