"""A ledger made by the release at schema revision 0006 (tests/store/fixtures/README.md)
upgrades to today's schema on SQLite and on PostgreSQL with every old event kept unchanged and
every match replaying to the state it had under that release."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from alley_poker.store import EventStore
from alley_poker.store.event_store import alembic_config
from tests.store.fixtures.release_0006 import DATABASE, SUMMARY, summarize

#: The old release's tables, parents first (foreign keys), with their rows to carry over.
OLD_TABLES = ("matches", "events", "lane_assignments", "api_tokens", "held_balls",
              "kiosk_devices")


def fixture_copy(folder: Path) -> Path:
    """A copy of the fixture to open: even reading a WAL database writes files beside it."""
    copy = folder / "old.sqlite3"
    shutil.copyfile(DATABASE, copy)
    return copy


def old_rows(path: Path) -> dict[str, list[dict]]:
    """Every row of the old database, read with plain sqlite3 (no migration, no SQLAlchemy)."""
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        [(version,)] = connection.execute("SELECT version_num FROM alembic_version")
        assert version == "0006"
        return {table: [dict(row) for row in connection.execute(
                    f"SELECT * FROM {table} ORDER BY rowid")] for table in OLD_TABLES}
    finally:
        connection.close()


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def assert_everything_kept(store: EventStore, rows: dict[str, list[dict]]) -> None:
    with store.engine.connect() as connection:
        version = MigrationContext.configure(connection).get_current_revision()
    assert version == head_revision() != "0006"
    # Every event: its id, match, seq, type and exactly the JSON it had.
    stored = store.events_since(0, limit=100_000)
    assert [(e.id, e.record["match_id"], e.record["seq"], e.record["type"]) for e in stored] == [
        (row["id"], row["match_id"], row["seq"], row["type"]) for row in rows["events"]]
    for event, row in zip(stored, rows["events"], strict=True):
        assert event.recorded_at == utc_time(row["recorded_at"])
        old = json.loads(row["data"])
        assert {key: value for key, value in event.record.items()
                if key not in ("match_id", "seq", "type")} == old
    # Every match replays to what the old release saw, settlement and all.
    assert summarize(store) == json.loads(SUMMARY.read_text())
    # The rows of the other old tables are all still there.
    with store.engine.connect() as connection:
        for table in OLD_TABLES:
            count = connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
            assert count == len(rows[table]), table
        # The new tables exist, empty.
        assert connection.execute(sa.text("SELECT count(*) FROM leagues")).scalar_one() == 0


def test_the_fixture_is_an_old_release_with_a_settled_night(tmp_path):
    summary = json.loads(SUMMARY.read_text())
    assert len(summary) == 2
    assert {match["status"] for match in summary.values()} == {"settled"}
    assert sum(match["events"] for match in summary.values()) == len(
        old_rows(fixture_copy(tmp_path))["events"])


def test_the_old_sqlite_database_upgrades_with_every_event_kept(tmp_path):
    copy = fixture_copy(tmp_path)
    rows = old_rows(copy)
    with EventStore.open(f"sqlite:///{copy}") as store:
        assert_everything_kept(store, rows)
    # Opening it again (already at head) changes nothing.
    with EventStore.open(f"sqlite:///{copy}") as store:
        assert_everything_kept(store, rows)


def test_the_old_database_copied_into_postgresql_at_0006_upgrades_with_every_event_kept(
        postgresql_url, tmp_path):
    rows = old_rows(fixture_copy(tmp_path))
    engine = sa.create_engine(postgresql_url)
    try:
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0006")
        old_schema = sa.MetaData()
        old_schema.reflect(engine, only=OLD_TABLES)
        with engine.begin() as connection:
            for table in OLD_TABLES:
                if rows[table]:
                    connection.execute(sa.insert(old_schema.tables[table]),
                                       [as_postgresql(row, old_schema.tables[table])
                                        for row in rows[table]])
            for table in ("events", "lane_assignments", "api_tokens", "held_balls",
                          "kiosk_devices"):
                # As a dump and restore does: the ids were given, so move the sequence on.
                connection.execute(sa.text(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT coalesce(max(id), 0) + 1 FROM {table}), false)"))
    finally:
        engine.dispose()
    with EventStore.open(postgresql_url) as store:
        assert_everything_kept(store, rows)
        # The upgraded log takes new events after the old ones.
        match_id = sorted(store.match_ids())[0]
        seq = store.last_seq(match_id)
        store.append(match_id, [{"match_id": match_id, "seq": seq + 1, "type": "note",
                                 "at": "2026-11-25T20:00:00Z", "data": {}}], expected_seq=seq)
        assert store.events_since(0, limit=100_000)[-1].id == len(rows["events"]) + 1


def as_postgresql(row: dict, table: sa.Table) -> dict:
    """A SQLite row as PostgreSQL takes it: JSON columns parsed; times, which the store
    writes to SQLite as naive UTC text, as aware UTC datetimes."""
    converted = {}
    for key, value in row.items():
        if isinstance(table.c[key].type, sa.JSON) and isinstance(value, str):
            value = json.loads(value)
        elif isinstance(table.c[key].type, sa.DateTime) and isinstance(value, str):
            value = utc_time(value)
        converted[key] = value
    return converted


def utc_time(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)
