"""Persistence for the ledger: an append-only event store and a repository of matches.

SQLAlchemy 2 over SQLite (WAL, the embedded default) or PostgreSQL (scale-out), with the
schema built and upgraded by Alembic when the store is opened.  See ``docs/persistence.md``.
"""

from alley_poker.store.event_store import (
    ConcurrencyConflict,
    EventStore,
    RecordError,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    utcnow,
)
from alley_poker.store.repository import MatchRepository

__all__ = [
    "ConcurrencyConflict",
    "EventStore",
    "MatchRepository",
    "RecordError",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "utcnow",
]
