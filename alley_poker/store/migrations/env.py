"""Alembic environment for the event store.

Two ways in: ``EventStore.open`` hands over an open connection in
``config.attributes["connection"]`` (so the store's SQLite pragmas and transaction handling
apply, and the upgrade runs inside the caller's transaction); the developer command line
(``alembic -c alley_poker/store/alembic.ini ...``) builds an engine from
``ALLEY_POKER_DATABASE_URL`` or the ini's ``sqlalchemy.url``.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine

from alley_poker.store.schema import metadata

config = context.config
if config.config_file_name is not None and "connection" not in config.attributes:
    # The developer command line: log what runs, as the ini file says.
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        compare_type=True,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead, so the
        # same migration script works on both back-ends.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = os.environ.get("ALLEY_POKER_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported: run them against a database")
run_migrations_online()
