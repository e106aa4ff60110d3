"""Alembic builds exactly the schema the code describes, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from alley_poker.store import EventStore, StoreUnavailable
from alley_poker.store.event_store import alembic_config
from alley_poker.store.schema import metadata


def schema_differences(engine: sa.Engine, target: sa.MetaData) -> list:
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": True}
        )
        return compare_metadata(context, target)


def current_revision(engine: sa.Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def test_the_migrated_schema_is_exactly_the_metadata(store):
    assert schema_differences(store.engine, metadata) == []
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert current_revision(store.engine) == head


def test_the_comparison_would_notice_a_schema_the_migrations_do_not_build(store):
    # Guards the test above: a column the migrations lack must show up as a difference.
    drifted = sa.MetaData()
    for table in metadata.tables.values():
        table.to_metadata(drifted)
    drifted.tables["events"].append_column(sa.Column("lane", sa.Integer, nullable=True))

    differences = schema_differences(store.engine, drifted)

    assert [(d[0], d[3].name) for d in differences] == [("add_column", "lane")]


def test_the_migrations_go_down_to_nothing_and_back_up(store_url):
    with EventStore.open(store_url) as store:
        config = alembic_config()
        with store.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
        assert set(sa.inspect(store.engine).get_table_names()) <= {"alembic_version"}
    with EventStore.open(store_url) as reopened:
        assert schema_differences(reopened.engine, metadata) == []


def test_a_database_from_a_newer_release_is_refused_by_name(store_url):
    with EventStore.open(store_url) as store, store.engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = 'f00d'"))
    with pytest.raises(StoreUnavailable, match=r"cannot migrate the schema.*f00d"):
        EventStore.open(store_url)
