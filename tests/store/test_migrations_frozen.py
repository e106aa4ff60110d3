"""The migrations deployed centres already ran build exactly the schema they built then.

Migrations 0001-0010 ran in deployed centres: a change to their code (a shared column helper,
a tidier header) must not change what they build, or a new centre's database would differ
from an upgraded one's.  ``fixtures/schema-at-0010.json`` is the schema they built before
they were first refactored (commit cd65009), reflected on SQLite (with SQLite's own text of
every ``CREATE`` statement) and on PostgreSQL; these tests build a fresh database up to 0010
and compare, table by table.  ``test_migrations.py`` checks head against the code's metadata;
this checks the old revisions against themselves.

Rewrite the snapshot only for a new frozen revision, never to make a refactor pass:
``python -m tests.store.test_migrations_frozen URL...`` prints it for each database URL.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from alley_poker.store.event_store import alembic_config

SNAPSHOT = Path(__file__).parent / "fixtures" / "schema-at-0010.json"
FROZEN = "0010"


def built_schema(url: str, revision: str = FROZEN) -> dict:
    """A fresh database at ``url`` migrated up to ``revision``, reflected (JSON-ready)."""
    database = sa.make_url(url).database
    if sa.make_url(url).get_backend_name() == "sqlite" and database:
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
        return reflected(engine)
    finally:
        engine.dispose()


def reflected(engine: sa.Engine) -> dict:
    """Every table's columns, keys, constraints and indexes as the database reports them."""
    inspector = sa.inspect(engine)
    dialect = engine.dialect
    tables = {}
    for name in sorted(inspector.get_table_names()):
        tables[name] = {
            "columns": [[column["name"], column["type"].compile(dialect=dialect),
                         column["nullable"], column["default"], column.get("autoincrement")]
                        for column in inspector.get_columns(name)],
            "primary_key": inspector.get_pk_constraint(name),
            "foreign_keys": sorted(
                ([each["name"], each["constrained_columns"], each["referred_table"],
                  each["referred_columns"]] for each in inspector.get_foreign_keys(name)),
                key=str),
            "unique": sorted(([each["name"], each["column_names"]]
                              for each in inspector.get_unique_constraints(name)), key=str),
            "indexes": sorted(([each["name"], each["column_names"], each["unique"]]
                               for each in inspector.get_indexes(name)), key=str),
        }
    if dialect.name == "sqlite":
        with engine.connect() as connection:
            tables["sqlite_master"] = [list(row) for row in connection.execute(sa.text(
                "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"))]
    return json.loads(json.dumps(tables))  # tuples as lists, as the snapshot reads back


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_deployed_migrations_build_the_schema_they_always_built(backend, request):
    url = request.getfixturevalue(f"{backend}_url")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))[backend]
    built = built_schema(url)
    assert sorted(built) == sorted(expected)
    for table in expected:
        assert built[table] == expected[table], table


def test_the_comparison_would_notice_a_column_built_differently(sqlite_url):
    """Guards the test above: one server default changed in the snapshot is a difference."""
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["sqlite"]
    built = built_schema(sqlite_url)
    assert built == expected
    centre = next(column for column in built["api_tokens"]["columns"] if column[0] == "centre")
    centre[3] = "'elsewhere'"
    assert built != expected


if __name__ == "__main__":  # print a snapshot: python -m tests.store.test_migrations_frozen URL...
    print(json.dumps({sa.make_url(url).get_backend_name(): built_schema(url)
                      for url in sys.argv[1:]}, indent=1, sort_keys=True))
