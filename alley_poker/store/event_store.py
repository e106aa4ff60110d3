"""The append-only event log: one row per ledger event, per-match sequence numbers.

The store knows nothing of Bowling Poker: it keeps each match's records (the JSON-safe dicts
the ledger's ``event_to_record`` makes) in order and hands them back unchanged.  Appends use
optimistic concurrency: the caller says which sequence number it last saw; if another writer
got there first the append is refused with :class:`ConcurrencyConflict` and nothing is written.

A store belongs to one centre (``centre``, default ``"default"``): it reads and writes that
centre's matches only, so centres sharing one PostgreSQL database never see each other's
data, and both may have a match called "m1".

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
alley_poker.store.event_store.ConcurrencyConflict: match 'm1': expected to append after seq 0, \
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

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy.exc
from filelock import FileLock
from filelock import Timeout as FileLockTimeout
from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

if TYPE_CHECKING:
    from alembic.config import Config

from alley_poker.store import chain
from alley_poker.store.schema import DEFAULT_CENTRE, events, matches
from alley_poker.store.schema_version import at_head

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

#: The longest match id / event type the schema holds (``String(64)`` columns).
MAX_NAME_LENGTH = 64

#: How long a SQLite writer waits for another writer's lock before giving up.
SQLITE_BUSY_TIMEOUT_MS = 15_000

# Any constant works; it only has to be the same for every process migrating one database.
_PG_MIGRATION_LOCK_KEY = 0x616C6C6579  # "alley"

# The columns a record's own keys map to; everything else in a record lives in ``data``.
_COLUMN_KEYS = ("match_id", "seq", "type")

# Strict JSON: NaN/Infinity are not JSON and PostgreSQL would refuse them; non-ASCII text is
# kept readable in the database rather than escaped.
_dump_json = partial(json.dumps, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


class StoreError(Exception):
    """The event store cannot do what was asked; the message says why."""


class StoreUnavailable(StoreError):
    """The database could not be opened, reached or migrated."""


class RecordError(StoreError, ValueError):
    """A record handed to :meth:`EventStore.append` cannot be stored as given."""


class ConcurrencyConflict(StoreError):
    """Another writer appended to the match first; reload and decide again.

    ``actual_seq`` is the log's last seq when the store saw it, or ``None`` when the conflict
    was caught by the unique ``(match_id, seq)`` constraint at commit time.
    """

    def __init__(self, match_id: str, expected_seq: int, actual_seq: int | None) -> None:
        self.match_id = match_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq
        where = (
            f"the log is at seq {actual_seq}"
            if actual_seq is not None
            else "another writer stored the same seq first"
        )
        super().__init__(
            f"match {match_id!r}: expected to append after seq {expected_seq}, but {where}"
        )


@dataclass(frozen=True)
class StoredEvent:
    """One row of the log as a reader of the global feed sees it (:meth:`events_since`)."""

    id: int
    recorded_at: datetime
    centre: str
    record: dict[str, Any]


def utcnow() -> datetime:
    """The current time as an aware UTC datetime.

    >>> utcnow().utcoffset()
    datetime.timedelta(0)
    """
    return datetime.now(UTC)


class EventStore:
    """An event log in SQLite (WAL, fsync on commit) or PostgreSQL, migrated on open.

    Make one with :meth:`open`, which configures the engine (SQLite pragmas, transaction
    handling, strict JSON) and migrates the schema; the constructor takes that engine as is.
    """

    def __init__(self, engine: Engine, *, centre: str = DEFAULT_CENTRE) -> None:
        self._engine = engine
        self.centre = centre

    # ----------------------------------------------------------------- opening and closing

    @classmethod
    def open(cls, url: str | URL, *, centre: str = DEFAULT_CENTRE) -> EventStore:
        """Connect to ``url`` and upgrade its schema to the newest migration.

        ``sqlite:///path/to/file.sqlite3`` (the directory is created if missing),
        ``sqlite://`` (in memory, for examples), or ``postgresql+psycopg://user@host/db``
        (a bare ``postgresql://`` uses psycopg 3 too).

        >>> EventStore.open("mysql://db/alley")
        Traceback (most recent call last):
        ...
        alley_poker.store.event_store.StoreError: unsupported database 'mysql://db/alley': \
use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB
        """
        engine = _create_engine(url)
        try:
            _upgrade_to_head(engine)
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

    # ----------------------------------------------------------------------------- writing

    def append(
        self, match_id: str, records: Sequence[Mapping[str, Any]], expected_seq: int
    ) -> int:
        """Append ``records`` (seqs ``expected_seq + 1``, ``+ 2``, ...) in one transaction.

        Returns the match's new last seq.  Raises :class:`ConcurrencyConflict` if the log
        is not at ``expected_seq`` (someone else appended first), and :class:`RecordError`
        for a record that does not belong there or is not plain JSON; either way nothing is
        written.  The first append of a match (``expected_seq=0``) also registers it.
        """
        _check_name("match id", match_id)
        if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
            raise RecordError(f"expected_seq must be a whole number ≥ 0, got {expected_seq!r}")
        if not records:
            return expected_seq
        recorded_at = utcnow()
        rows = [
            self._row(match_id, expected_seq + position, record, recorded_at)
            for position, record in enumerate(records, start=1)
        ]
        try:
            with self.write_transaction() as connection:
                last_seq, last_hash = chain.last_link(connection, self.centre, match_id)
                if last_seq != expected_seq:
                    raise ConcurrencyConflict(match_id, expected_seq, last_seq)
                chain.seal(rows, last_hash)
                if expected_seq == 0:
                    connection.execute(
                        insert(matches).values(
                            match_id=match_id, centre=self.centre, created_at=recorded_at
                        )
                    )
                connection.execute(_INSERT_EVENTS, rows)
        except sqlalchemy.exc.IntegrityError as error:
            # The last defence: a writer that read the same last seq committed first.
            if _is_unique_violation(error):
                raise ConcurrencyConflict(match_id, expected_seq, None) from error
            raise
        return expected_seq + len(rows)

    def append_batch(
        self, appends: Sequence[tuple[str, Sequence[Mapping[str, Any]], int]]
    ) -> list[int | StoreError]:
        """Several appends ``(match_id, records, expected_seq)`` in one transaction.

        Each append is judged as :meth:`append` judges it; one that would fail gets its
        error (``ConcurrencyConflict`` or ``RecordError``) in its place in the answer and
        writes nothing, the others get their new last seq and are committed together (one
        fsync for all of them).  Two appends to the same match in one batch: the second
        must continue the first.
        """
        recorded_at = utcnow()
        outcomes: list[int | StoreError] = []
        accepted: list[tuple[int, str, int, list[dict[str, Any]]]] = []
        for index, (match_id, records, expected_seq) in enumerate(appends):
            try:
                _check_name("match id", match_id)
                if (isinstance(expected_seq, bool) or not isinstance(expected_seq, int)
                        or expected_seq < 0):
                    raise RecordError(
                        f"expected_seq must be a whole number ≥ 0, got {expected_seq!r}")
                rows = [self._row(match_id, expected_seq + position, record, recorded_at)
                        for position, record in enumerate(records, start=1)]
            except RecordError as error:
                outcomes.append(error)
                continue
            outcomes.append(expected_seq + len(rows))
            accepted.append((index, match_id, expected_seq, rows))
        if not any(rows for _, _, _, rows in accepted):
            return outcomes
        try:
            with self.write_transaction() as connection:
                last_links: dict[str, tuple[int, str]] = {}
                rows_to_insert: list[dict[str, Any]] = []
                for index, match_id, expected_seq, rows in accepted:
                    if not rows:
                        continue
                    last_seq, last_hash = last_links.get(match_id) or chain.last_link(
                        connection, self.centre, match_id)
                    if last_seq != expected_seq:
                        outcomes[index] = ConcurrencyConflict(match_id, expected_seq, last_seq)
                        continue
                    if expected_seq == 0:
                        connection.execute(insert(matches).values(
                            match_id=match_id, centre=self.centre, created_at=recorded_at))
                    rows_to_insert.extend(rows)
                    last_links[match_id] = (expected_seq + len(rows), chain.seal(rows, last_hash))
                if rows_to_insert:
                    connection.execute(_INSERT_EVENTS, rows_to_insert)
        except sqlalchemy.exc.IntegrityError as error:
            # Another writer committed first to one of these matches (PostgreSQL): decide
            # each append on its own so only that one is refused.
            if not _is_unique_violation(error):
                raise
            pairs = zip(outcomes, appends, strict=True)
            return [outcome if isinstance(outcome, StoreError)
                    else self._append_alone(match_id, records, expected_seq)
                    for outcome, (match_id, records, expected_seq) in pairs]
        return outcomes

    def _append_alone(self, match_id: str, records: Sequence[Mapping[str, Any]],
                      expected_seq: int) -> int | StoreError:
        try:
            return self.append(match_id, records, expected_seq)
        except (ConcurrencyConflict, RecordError) as error:
            return error

    def _row(
        self, match_id: str, seq: int, record: Mapping[str, Any], recorded_at: datetime
    ) -> dict[str, Any]:
        where = f"match {match_id!r} seq {seq}"
        if not isinstance(record, Mapping):
            raise RecordError(f"{where}: a record must be a dict, got {type(record).__name__}")
        if record.get("match_id") != match_id:
            raise RecordError(f"{where}: record is for match {record.get('match_id')!r}")
        if record.get("seq") != seq:
            raise RecordError(
                f"{where}: record carries seq {record.get('seq')!r}; "
                "records must continue the log without gaps"
            )
        event_type = record.get("type")
        _check_name(f"{where}: event type", event_type)
        body = {key: value for key, value in record.items() if key not in _COLUMN_KEYS}
        _check_json_round_trip(where, body)
        return {
            "match_id": match_id,
            "seq": seq,
            "type": event_type,
            "data": body,
            "recorded_at": recorded_at,
            "centre": self.centre,
        }

    @contextmanager
    def write_transaction(self) -> Iterator[Connection]:
        """A transaction that reads, then writes: it takes the write lock first.

        For every table of the centre's database, not only the events.
        """
        # SQLite: BEGIN IMMEDIATE takes the write lock before reading the last seq, so a
        # racing writer waits (busy timeout) and then sees the new seq, instead of failing
        # late with "database is locked" when it tries to upgrade a stale read snapshot.
        with self._engine.connect() as connection:
            connection.execution_options(sqlite_begin="IMMEDIATE")
            with connection.begin():
                yield connection

    # ----------------------------------------------------------------------------- reading

    def load(self, match_id: str, after_seq: int = 0) -> list[dict[str, Any]]:
        """The match's records with seq > ``after_seq``, in order; ``[]`` for an unknown match."""
        query = (
            select(events.c.seq, events.c.type, events.c.data)
            .where(events.c.centre == self.centre, events.c.match_id == match_id,
                   events.c.seq > after_seq)
            .order_by(events.c.seq)
        )
        with self._engine.connect() as connection:
            return [
                _record(match_id, seq, event_type, body)
                for seq, event_type, body in connection.execute(query)
            ]

    def last_seq(self, match_id: str) -> int:
        """The seq of the match's last event; 0 for a match with none."""
        with self._engine.connect() as connection:
            return _last_seq(connection, self.centre, match_id)

    def match_ids(self, *, centre: str | None = None) -> list[str]:
        """Every match of this store's centre (or of ``centre``), oldest first."""
        query = (select(matches.c.match_id)
                 .where(matches.c.centre == (self.centre if centre is None else centre))
                 .order_by(matches.c.created_at, matches.c.match_id))
        with self._engine.connect() as connection:
            return list(connection.scalars(query))

    def events_before(self, before_id: int | None = None, *,
                      limit: int = 1000) -> list[StoredEvent]:
        """Up to ``limit`` events of the centre's matches with a global id below
        ``before_id`` (any id when None), newest first: the audit log read backwards."""
        query = select(events.c.id, events.c.match_id, events.c.seq, events.c.type,
                       events.c.data, events.c.recorded_at, events.c.centre).where(
            events.c.centre == self.centre)
        if before_id is not None:
            query = query.where(events.c.id < before_id)
        query = query.order_by(events.c.id.desc()).limit(limit)
        with self._engine.connect() as connection:
            return [StoredEvent(id=row.id, recorded_at=as_utc(row.recorded_at),
                                centre=row.centre,
                                record=_record(row.match_id, row.seq, row.type, row.data))
                    for row in connection.execute(query)]

    def events_since(self, after_id: int = 0, *, limit: int = 1000) -> list[StoredEvent]:
        """Up to ``limit`` events of the centre's matches with a global id above ``after_id``,
        in id order.

        A feed reader passes the last id it has seen.  Ids increase with every append; on
        PostgreSQL, concurrent appends to *different* matches can commit out of id order, so
        a reader polling while writers are busy should re-read a short window behind its
        cursor (see docs/persistence.md).
        """
        query = (
            select(
                events.c.id,
                events.c.match_id,
                events.c.seq,
                events.c.type,
                events.c.data,
                events.c.recorded_at,
                events.c.centre,
            )
            .where(events.c.id > after_id, events.c.centre == self.centre)
            .order_by(events.c.id)
            .limit(limit)
        )
        with self._engine.connect() as connection:
            return [
                StoredEvent(
                    id=row.id,
                    recorded_at=as_utc(row.recorded_at),
                    centre=row.centre,
                    record=_record(row.match_id, row.seq, row.type, row.data),
                )
                for row in connection.execute(query)
            ]


# ------------------------------------------------------------------------------ helpers


def _record(match_id: str, seq: int, event_type: str, body: Any) -> dict[str, Any]:
    # A body edited in the database into something else than an object is handed on as the
    # record's data: reading it then names the event instead of failing here.
    return {"match_id": match_id, "seq": seq, "type": event_type,
            **(body if isinstance(body, dict) else {"data": body})}


# Built once: constructing a Core statement per call cost ~4x its execution (a whole ball's
# append is on the path from a scorer's line to the kiosks).
_LAST_SEQ = select(func.max(events.c.seq)).where(events.c.centre == bindparam("centre"),
                                                 events.c.match_id == bindparam("match_id"))
_INSERT_EVENTS = insert(events)


def _last_seq(connection: Connection, centre: str, match_id: str) -> int:
    return connection.scalar(_LAST_SEQ, {"centre": centre, "match_id": match_id}) or 0


def _check_name(what: str, value: object) -> None:
    if not isinstance(value, str) or not value or len(value) > MAX_NAME_LENGTH:
        raise RecordError(
            f"{what} must be a non-empty string of at most {MAX_NAME_LENGTH} characters, "
            f"got {value!r}"
        )


def _check_json_round_trip(where: str, body: dict[str, Any]) -> None:
    """Refuse anything that would not come back from the database exactly as given."""
    try:
        dumped = _dump_json(body)
        dumped.encode("utf-8")  # a lone surrogate cannot be stored as UTF-8
    except (TypeError, ValueError) as error:  # a set, a datetime, NaN, ...
        raise RecordError(f"{where}: record is not plain JSON: {error}") from None
    reloaded = json.loads(dumped)
    if reloaded != body or not _same_json_types(reloaded, body):
        raise RecordError(
            f"{where}: record would not load back unchanged (tuples, non-string keys or "
            "other values JSON turns into something else); convert them first"
        )


def _same_json_types(reloaded: Any, original: Any) -> bool:
    # ``==`` calls (1, 2) and [1, 2] different but 1 and 1.0 (and True and 1) equal; a
    # float that comes back as a float is fine, an int that came back as a float is not.
    if type(reloaded) is not type(original):
        return False
    if isinstance(original, dict):
        return all(_same_json_types(reloaded[key], value) for key, value in original.items())
    if isinstance(original, list):
        return all(map(_same_json_types, reloaded, original))
    return True


def _is_unique_violation(error: sqlalchemy.exc.IntegrityError) -> bool:
    sqlstate = getattr(error.orig, "sqlstate", None)  # psycopg
    if sqlstate is not None:
        return sqlstate == "23505"
    return "UNIQUE constraint failed" in str(error.orig)  # sqlite3


def as_utc(moment: datetime) -> datetime:
    """A time read back from the store, aware and in UTC."""
    # SQLite keeps no zone: the store only ever writes UTC, so a naive value is UTC.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _create_engine(url: str | URL) -> Engine:
    try:
        parsed = make_url(url)
    except sqlalchemy.exc.ArgumentError as error:
        raise StoreError(f"not a database URL: {url!r} ({error})") from None
    shown = parsed.render_as_string(hide_password=True)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _create_sqlite_engine(parsed)
    if backend == "postgresql":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        try:
            return create_engine(parsed, json_serializer=_dump_json, pool_pre_ping=True)
        except (ImportError, sqlalchemy.exc.NoSuchModuleError) as error:
            raise StoreError(f"{shown}: database driver unavailable ({error})") from None
    raise StoreError(
        f"unsupported database {shown!r}: use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB"
    )


def _create_sqlite_engine(url: URL) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    if in_memory:
        # One shared connection, or every pooled connection would see its own empty database.
        engine = create_engine(
            url,
            json_serializer=_dump_json,
            poolclass=StaticPool,
            connect_args={"check_same_thread": False},
        )
    else:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            json_serializer=_dump_json,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        )
    journal_switch = (nullcontext() if in_memory
                      else FileLock(f"{url.database}-open.lock",
                                    timeout=SQLITE_BUSY_TIMEOUT_MS / 1000))

    @event.listens_for(engine, "connect")
    def _configure_connection(dbapi_connection: Any, _record: Any) -> None:
        # Let this module issue BEGIN itself (see _begin) instead of the sqlite3 module's
        # implicit, deferred and DDL-committing transactions.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        # WAL: readers never block the writer; FULL: a commit is fsynced before it returns,
        # so an acknowledged append survives a crash or power cut, not just a killed process.
        # Switching a new database to WAL does not wait out SQLite's busy timeout: two
        # processes opening it at once would see "database is locked" at once, so they
        # take turns on a lock file beside it (once it is in WAL the switch is a no-op).
        try:
            with journal_switch:
                cursor.execute("PRAGMA journal_mode = WAL")
        except FileLockTimeout:
            raise sqlite3.OperationalError("database is locked (switching to WAL)") from None
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


def alembic_config() -> Config:
    """The Alembic configuration for the store's migrations (no ini file needed).

    >>> alembic_config().get_main_option("script_location").endswith("migrations")
    True
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def _upgrade_to_head(engine: Engine) -> None:
    if at_head(engine):
        return  # the usual opening: Alembic is not even loaded (store.schema_version)
    from alembic import command
    from alembic.util.exc import CommandError

    shown = engine.url.render_as_string(hide_password=True)
    config = alembic_config()
    try:
        with engine.connect() as connection, _sqlite_foreign_keys_off(connection):
            # One migrator at a time: SQLite's write lock, PostgreSQL's advisory lock; a
            # second process opening a fresh database waits and then finds it at head.
            connection.execution_options(sqlite_begin="IMMEDIATE")
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK_KEY}
                    )
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
    except CommandError as error:
        raise StoreUnavailable(f"{shown}: cannot migrate the schema: {error}") from None
    except sqlalchemy.exc.OperationalError as error:
        raise StoreUnavailable(f"{shown}: cannot open the database: {error.orig}") from None


@contextmanager
def _sqlite_foreign_keys_off(connection: Connection) -> Iterator[None]:
    """SQLite rebuilds a table to change its keys (batch migrations), and dropping a table
    others refer to fails while foreign keys are enforced; the pragma only takes effect
    outside a transaction, so it is set on the raw connection before the migration begins
    and set back before the connection returns to the pool."""
    if connection.dialect.name != "sqlite":
        yield
        return
    raw = connection.connection.dbapi_connection
    raw.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys = ON")
