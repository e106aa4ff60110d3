"""Fixtures for the event store tests: every store test runs on SQLite and on PostgreSQL.

PostgreSQL is the real server at ``postgresql+psycopg://postgres@127.0.0.1:5432/test``
(``ALLEY_POKER_TEST_PG_URL`` overrides).  Each test gets its own freshly created schema,
selected through the connection's ``search_path``, so parallel runs never see each other's
tables; the schema is dropped afterwards.
"""

from __future__ import annotations

import os
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from alley_poker.store import EventStore
from tests.conftest import skip_or_fail

DEFAULT_TEST_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ["sqlite", "postgresql"]


def postgres_admin_url() -> str:
    return os.environ.get("ALLEY_POKER_TEST_PG_URL") or DEFAULT_TEST_PG_URL


@pytest.fixture(scope="session")
def postgres_admin_engine():
    """An engine on the test database, or a skip (a failure under CI) if it is unreachable."""
    engine = sa.create_engine(postgres_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except Exception as error:  # any reason at all: the part is missing
        engine.dispose()
        shown = make_url(postgres_admin_url()).render_as_string(hide_password=True)
        skip_or_fail(f"PostgreSQL unreachable at {shown}: {error}")
    yield engine
    engine.dispose()


@pytest.fixture
def new_postgresql_url(postgres_admin_engine):
    """``new_postgresql_url()``: the URL of a fresh, empty schema of its own on the test
    PostgreSQL server, dropped after the test; as many as the test asks for."""
    schemas: list[str] = []

    def new() -> str:
        schema = f"alley_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
        with postgres_admin_engine.connect() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        schemas.append(schema)
        url = make_url(postgres_admin_url()).update_query_dict(
            {"options": f"-csearch_path={schema}"})
        return url.render_as_string(hide_password=False)

    yield new
    with postgres_admin_engine.connect() as connection:
        # A killed worker's session ends when the server sees its socket close; never hang
        # the suite on one that lingers.
        connection.execute(sa.text("SET lock_timeout = '20s'"))
        for schema in schemas:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
def postgresql_url(new_postgresql_url):
    """The URL of a fresh, empty schema of its own on the test PostgreSQL server."""
    return new_postgresql_url()


@pytest.fixture
def new_sqlite_url(tmp_path):
    """``new_sqlite_url()``: the URL of a new SQLite file in the test's folder."""
    made = iter(range(1_000_000))
    return lambda: f"sqlite:///{tmp_path / f'store-{next(made)}' / 'alley-poker.sqlite3'}"


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'store' / 'alley-poker.sqlite3'}"


@pytest.fixture(params=BACKENDS)
def store_url(request):
    """A URL for an empty database on each back-end in turn."""
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def store(store_url):
    with EventStore.open(store_url) as opened:
        yield opened
