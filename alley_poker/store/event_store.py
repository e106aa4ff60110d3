"""The append-only event log: one row per ledger event, per-match sequence numbers.

The store knows nothing of Bowling Poker: it keeps each match's records (the JSON-safe dicts
the ledger's ``event_to_record`` makes) in order and hands them back unchanged.  Appends use
optimistic concurrency: the caller says which sequence number it last saw; if another writer
got there first the append is refused with :class:`ConcurrencyConflict` and nothing is written.

A store belongs to one centre (``centre``, default ``"default"``): it reads and writes that
centre's matches only, so centres sharing one PostgreSQL database never see each other's
data, and both may have a match called "m1".

The parts, each in a module of its own: the write path (:mod:`.event_writes`, what a record
must be in :mod:`.records`), the read path (:mod:`.event_reads`), the hash chain every
append continues (:mod:`.chain`), and opening and migrating the database (:mod:`.database`).

>>> store = EventStore.open("sqlite://")          # in memory; files and PostgreSQL likewise
>>> store.append("m1", [{"match_id": "m1", "seq": 1, "type": "MatchCreated",
...                      "at": "2024-05-01T19:00:00+00:00", "data": {"ante_cents": 100}}],
...              expected_seq=0)
1
>>> store.load("m1")[0]["data"]
{'ante_cents': 100}
>>> store.append("m1", [{"match_id": "m1", "seq": 1, "type": "Late", "data": {}}], expected_seq=0)
Traceback (most recent call last):
...
alley_poker.store.store_errors.ConcurrencyConflict: match 'm1': expected to append after seq 0, \
but the log is at seq 1
>>> store.match_ids(), store.last_seq("m1")
(['m1'], 1)
>>> [(stored.id, stored.record["type"]) for stored in store.events_since(0)]
[(1, 'MatchCreated')]
>>> north = EventStore(store.engine, centre="north")
>>> north.match_ids(), north.load("m1"), north.last_seq("m1")
([], [], 0)
>>> store.close()
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.engine import URL

from alley_poker.store.clock import as_utc, utcnow
from alley_poker.store.database import alembic_config, open_engine, upgrade_to_head
from alley_poker.store.event_reads import EventReads, StoredEvent
from alley_poker.store.event_writes import EventWrites
from alley_poker.store.schema import DEFAULT_CENTRE
from alley_poker.store.store_errors import (
    ConcurrencyConflict,
    RecordError,
    StoreError,
    StoreUnavailable,
)

# The names other modules import from here (the store's front door), wherever they live.
__all__ = [
    "ConcurrencyConflict",
    "EventStore",
    "RecordError",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "alembic_config",
    "as_utc",
    "utcnow",
]


class EventStore(EventWrites, EventReads):
    """An event log in SQLite (WAL, fsync on commit) or PostgreSQL, migrated on open.

    Make one with :meth:`open`, which configures the engine (SQLite pragmas, transaction
    handling, strict JSON) and migrates the schema; the constructor takes that engine as is.
    """

    def __init__(self, engine: Engine, *, centre: str = DEFAULT_CENTRE) -> None:
        self._engine = engine
        self.centre = centre

    @classmethod
    def open(cls, url: str | URL, *, centre: str = DEFAULT_CENTRE) -> EventStore:
        """Connect to ``url`` and upgrade its schema to the newest migration.

        ``sqlite:///path/to/file.sqlite3`` (the directory is created if missing),
        ``sqlite://`` (in memory, for examples), or ``postgresql+psycopg://user@host/db``
        (a bare ``postgresql://`` uses psycopg 3 too).

        >>> EventStore.open("mysql://db/alley")
        Traceback (most recent call last):
        ...
        alley_poker.store.store_errors.StoreError: unsupported database 'mysql://db/alley': \
use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB
        """
        engine = open_engine(url)
        try:
            upgrade_to_head(engine)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, centre=centre)

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._engine.dialect.name

    def close(self) -> None:
        """Release every pooled connection; the store must not be used afterwards."""
        self._engine.dispose()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventStore({self._engine.url.render_as_string(hide_password=True)!r})"
