"""Alembic builds exactly the schema the code describes, on SQLite and on PostgreSQL."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from alley_poker.store import EventStore, StoreUnavailable
from alley_poker.store.event_store import alembic_config
from alley_poker.store.schema import metadata
from alley_poker.store.schema_version import head_revision
from tests.store.test_migrations_frozen import built_schema, reflected


def schema_differences(engine: sa.Engine, target: sa.MetaData) -> list:
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": True}
        )
        return compare_metadata(context, target)


def current_revision(engine: sa.Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def migrated_from_nothing(url: str) -> sa.Engine:
    """The database at ``url`` (empty) migrated by Alembic up to head, one revision after
    another, as an upgraded centre's was: not built from the metadata as a new one's is."""
    built_schema(url, "head")
    return sa.create_engine(url)


def test_the_migrated_schema_is_exactly_the_metadata(store_url):
    engine = migrated_from_nothing(store_url)
    try:
        assert schema_differences(engine, metadata) == []
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
        assert current_revision(engine) == head
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_new_database_is_built_as_the_migrations_would_have_built_it(backend, request):
    # A new centre's ledger is made from the metadata and stamped at head, an upgraded one's
    # by every migration in turn (store.database.upgrade_to_head): both must be one schema,
    # to each column's type, default and key and each constraint's and index's name.
    new_url = request.getfixturevalue(f"new_{backend}_url")
    built_url, migrated_url = new_url(), new_url()
    with EventStore.open(built_url) as built:
        built_tables = reflected(built.engine)
        built_revision = current_revision(built.engine)
    migrated = migrated_from_nothing(migrated_url)
    try:
        migrated_tables = reflected(migrated)
        assert built_revision == current_revision(migrated) == head_revision()
    finally:
        migrated.dispose()
    # SQLite's own text of each CREATE differs (a table a migration rebuilt is written out
    # anew), so it is left out; what it declares is compared above it, item by item.
    built_tables.pop("sqlite_master", None)
    migrated_tables.pop("sqlite_master", None)
    assert sorted(built_tables) == sorted(migrated_tables)
    for table, shape in migrated_tables.items():
        assert built_tables[table] == shape, table


def downgraded(url: str, revision: str) -> None:
    """The database at ``url`` opened (built at head if new) and migrated down to
    ``revision`` by Alembic."""
    with EventStore.open(url) as store:
        config = alembic_config()
        with store.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, revision)


def test_only_a_database_with_no_tables_is_built_without_the_migrations(sqlite_url):
    # One that held tables once, even migrated down to nothing, is upgraded by Alembic.
    downgraded(sqlite_url, "0009")
    with EventStore.open(sqlite_url) as upgraded:
        assert current_revision(upgraded.engine) == head_revision()
        assert "side_events" in sa.inspect(upgraded.engine).get_table_names()


def test_the_comparison_would_notice_a_schema_the_migrations_do_not_build(store):
    # Guards the test above: a column the migrations lack must show up as a difference.
    drifted = sa.MetaData()
    for table in metadata.tables.values():
        table.to_metadata(drifted)
    drifted.tables["events"].append_column(sa.Column("lane", sa.Integer, nullable=True))

    differences = schema_differences(store.engine, drifted)

    assert [(d[0], d[3].name) for d in differences] == [("add_column", "lane")]


def test_the_migrations_go_down_to_nothing_and_back_up(store_url):
    downgraded(store_url, "base")
    engine = sa.create_engine(store_url)
    try:
        assert set(sa.inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
    with EventStore.open(store_url) as reopened:
        assert schema_differences(reopened.engine, metadata) == []


def test_a_database_from_a_newer_release_is_refused_by_name(store_url):
    with EventStore.open(store_url) as store, store.engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = 'f00d'"))
    with pytest.raises(StoreUnavailable, match=r"cannot migrate the schema.*f00d"):
        EventStore.open(store_url)


def test_the_newest_revision_read_from_the_files_is_alembics_head():
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


OPEN_AND_SAY_IF_ALEMBIC_LOADED = """
import sys
from alley_poker.store import EventStore
EventStore.open(sys.argv[1]).close()
print("alembic loaded" if "alembic" in sys.modules else "alembic not loaded")
"""


def opened_in_a_new_process(url: str) -> str:
    done = subprocess.run([sys.executable, "-c", OPEN_AND_SAY_IF_ALEMBIC_LOADED, url],
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


@pytest.mark.slow
def test_a_served_process_opening_an_up_to_date_database_does_not_load_alembic(store_url):
    # Alembic and what it imports stay out of a long-running process's memory (≈ 11 MB)
    # when there is nothing to migrate, and a new database is built without it; a database
    # a revision behind is still migrated by it.
    assert opened_in_a_new_process(store_url) == "alembic not loaded"
    downgraded(store_url, "0009")
    assert opened_in_a_new_process(store_url) == "alembic loaded"
    assert opened_in_a_new_process(store_url) == "alembic not loaded"
    with EventStore.open(store_url) as store:
        assert schema_differences(store.engine, metadata) == []
