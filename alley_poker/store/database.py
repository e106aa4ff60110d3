"""Opening a store's database: the engine (SQLite's settings, PostgreSQL's driver) and the
schema migrated to the newest Alembic revision.

>>> open_engine("mysql://db/alley")
Traceback (most recent call last):
...
alley_poker.store.store_errors.StoreError: unsupported database 'mysql://db/alley': \
use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy.exc
from filelock import FileLock
from filelock import Timeout as FileLockTimeout
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

if TYPE_CHECKING:
    from alembic.config import Config

from alley_poker.store.records import dump_json
from alley_poker.store.schema_version import at_head, head_revision
from alley_poker.store.store_errors import StoreError, StoreUnavailable

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

#: The ledger, its WAL, lock file and backups: its owner (the service's user) only.
PRIVATE_FILE_MODE = 0o600
PRIVATE_FOLDER_MODE = 0o700

#: How long a SQLite writer waits for another writer's lock before giving up.
SQLITE_BUSY_TIMEOUT_MS = 15_000

# Any constant works; it only has to be the same for every process migrating one database.
_PG_MIGRATION_LOCK_KEY = 0x616C6C6579  # "alley"


def open_engine(url: str | URL) -> Engine:
    """An engine for ``url``, configured as the store needs it (not migrated yet).

    ``sqlite:///path/to/file.sqlite3`` (the directory is created if missing), ``sqlite://``
    (in memory), or ``postgresql+psycopg://user@host/db`` (a bare ``postgresql://`` uses
    psycopg 3 too).
    """
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
            return create_engine(parsed, json_serializer=dump_json, pool_pre_ping=True)
        except (ImportError, sqlalchemy.exc.NoSuchModuleError) as error:
            raise StoreError(f"{shown}: database driver unavailable ({error})") from None
    raise StoreError(
        f"unsupported database {shown!r}: use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB"
    )


def create_private_file(path: Path) -> None:
    """Make ``path`` (and its missing folders) readable by its owner only, if it is not there.

    The ledger holds the deal seeds of matches in play: no other user of the machine may read
    it.  SQLite creates a database with mode 0644 (less the process's umask) and gives its
    ``-wal`` and ``-shm`` files the database's own mode, so the file is made here first, 0600
    whatever the umask; its folders 0700.  An existing file keeps its mode (``alley-poker
    doctor`` says when it is too open).
    """
    path.parent.mkdir(mode=PRIVATE_FOLDER_MODE, parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return
    os.close(descriptor)


def sqlite_file_of(url: str | URL) -> Path | None:
    """The file of a ``sqlite:///PATH`` URL; None for an in-memory or a server database.

    >>> sqlite_file_of("sqlite:///var/alley-poker.sqlite3"), sqlite_file_of("sqlite://")
    (PosixPath('var/alley-poker.sqlite3'), None)
    """
    try:
        parsed = make_url(url)
    except sqlalchemy.exc.ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def sqlite_file_problem(path: Path, *, check_integrity: bool = False) -> str | None:
    """What keeps the SQLite file ``path`` from being opened as a ledger, in words; None when
    it opens (or is not there yet: the store creates it).

    ``check_integrity`` runs ``PRAGMA quick_check`` too (it reads every page: seconds for a
    large ledger).  The file is only read: with no ``-shm`` beside it (no process has it
    open) it is opened ``immutable``, because a read-only connection to a WAL database would
    otherwise leave ``-wal`` and ``-shm`` files behind, owned by whoever looked (root, for
    ``sudo alley-poker doctor``), which the service's user could then not write.
    """
    if not path.is_file() or path.stat().st_size == 0:
        return None
    in_use = Path(f"{path}-shm").exists()
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("" if in_use else "&immutable=1")
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
    except sqlite3.DatabaseError as error:
        return f"cannot be opened ({error})"
    try:
        try:
            connection.execute("PRAGMA schema_version").fetchone()
        except sqlite3.DatabaseError as error:
            return f"is not a SQLite database that can be opened ({error})"
        if check_integrity:
            try:
                verdicts = [row[0] for row in connection.execute("PRAGMA quick_check")]
            except sqlite3.DatabaseError as error:
                verdicts = [str(error)]
            if verdicts != ["ok"]:
                return f"fails its integrity check (PRAGMA quick_check: {'; '.join(verdicts[:3])})"
    finally:
        connection.close()
    return None


def _create_sqlite_engine(url: URL) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    if in_memory:
        # One shared connection, or every pooled connection would see its own empty database.
        engine = create_engine(
            url,
            json_serializer=dump_json,
            poolclass=StaticPool,
            connect_args={"check_same_thread": False},
        )
    else:
        create_private_file(Path(url.database))
        engine = create_engine(
            url,
            json_serializer=dump_json,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        )
    journal_switch = (nullcontext() if in_memory
                      else FileLock(f"{url.database}-open.lock", mode=PRIVATE_FILE_MODE,
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
        # The write path asks for IMMEDIATE (EventStore.write_transaction); reads defer.
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


def upgrade_to_head(engine: Engine) -> None:
    """Migrate the database to the newest revision (a no-op, without loading Alembic, when
    it is there already); :class:`StoreUnavailable` when it cannot be opened or migrated.

    A database with no tables at all (a new centre's) is built from ``store/schema.py`` and
    stamped at the newest revision, as Alembic's cookbook recommends ("Building an Up to
    Date Database from Scratch"), rather than by replaying every migration: the same schema
    (``tests/store/test_migrations.py`` compares the two, table by table, on SQLite and
    PostgreSQL) in a tenth of the time, which every new ledger (``init``, each test's) paid.
    """
    if at_head(engine):
        return  # the usual opening: Alembic is not even loaded (store.schema_version)
    shown = engine.url.render_as_string(hide_password=True)
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
                if not _build_new_database_at_head(connection):
                    _migrate_to_head(connection, shown)
    except sqlalchemy.exc.OperationalError as error:
        raise StoreUnavailable(f"{shown}: cannot open the database: {error.orig}") from None


def _build_new_database_at_head(connection: Connection) -> bool:
    """Build the newest schema into a database with no tables (True), or leave any other
    database to the migrations (False).  A database that once held tables, even one migrated
    down to nothing (its ``alembic_version`` stays), goes through Alembic."""
    from alley_poker.store.schema import metadata

    head = head_revision()
    if head is None or sqlalchemy.inspect(connection).get_table_names():
        return False
    metadata.create_all(connection)
    _alembic_version_table().create(connection)
    connection.execute(text("INSERT INTO alembic_version (version_num) VALUES (:head)"),
                       {"head": head})
    return True


def _alembic_version_table() -> sqlalchemy.Table:
    """The table Alembic keeps its revision in, as Alembic itself makes it
    (``alembic.runtime.migration.MigrationContext``: ``<table>_pkc`` for its key)."""
    return sqlalchemy.Table(
        "alembic_version", sqlalchemy.MetaData(),
        sqlalchemy.Column("version_num", sqlalchemy.String(32), nullable=False),
        sqlalchemy.PrimaryKeyConstraint("version_num", name="alembic_version_pkc"))


def _migrate_to_head(connection: Connection, shown: str) -> None:
    from alembic import command
    from alembic.util.exc import CommandError

    config = alembic_config()
    config.attributes["connection"] = connection
    try:
        command.upgrade(config, "head")
    except CommandError as error:
        raise StoreUnavailable(f"{shown}: cannot migrate the schema: {error}") from None


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
