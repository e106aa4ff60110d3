"""Migration 0008 starts the hash chain on a database that already holds events."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import command

from alley_poker.ledger import commands as c
from alley_poker.store import EventStore, MatchRepository
from alley_poker.store.chain import audit, chain_head
from alley_poker.store.database import alembic_config, open_engine


def test_existing_events_are_sealed_and_the_start_is_recorded(store_url):
    engine = open_engine(store_url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0006")
    now = datetime(2026, 3, 6, 19, 0, tzinfo=UTC)
    with engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO matches (match_id, centre, created_at) "
                                   "VALUES ('old', 'default', :now)"), {"now": now})
        for seq in (1, 2, 3):
            connection.execute(
                sa.text("INSERT INTO events (match_id, seq, type, data, recorded_at, centre) "
                        "VALUES ('old', :seq, 'hole_deepened', :data, :now, 'default')"),
                {"seq": seq, "now": now,
                 "data": f'{{"at":"2026-03-06T19:00:00Z","data":{{"n":{seq}}}}}'})
    engine.dispose()

    with EventStore.open(store_url) as store:
        report = audit(store.engine)
        assert report.ok and report.events == 3 and report.sealed_events == 3
        assert report.started_at is not None
        sealed_head = chain_head(store, "old")
        # New matches chain from their own first event on.
        repo = MatchRepository(store, snapshots=None)
        repo.execute("new", c.CreateMatch("new", ["Ann", "Bob"], actor="desk:pat"))
        assert audit(store.engine).ok and chain_head(store, "old") == sealed_head
