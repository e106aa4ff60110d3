"""The event log's read path: a match's records in order, and the centre's global feed.

Records come back exactly as they were appended.  Mixed into
:class:`~alley_poker.store.event_store.EventStore`, which supplies the engine and centre.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, select

from alley_poker.store.clock import as_utc
from alley_poker.store.records import from_row
from alley_poker.store.schema import events, matches

# Built once: constructing a Core statement per call cost ~4x its execution.
_LAST_SEQ = select(func.max(events.c.seq)).where(events.c.centre == bindparam("centre"),
                                                 events.c.match_id == bindparam("match_id"))
_FEED_COLUMNS = (events.c.id, events.c.match_id, events.c.seq, events.c.type, events.c.data,
                 events.c.recorded_at, events.c.centre)


@dataclass(frozen=True)
class StoredEvent:
    """One row of the log as a reader of the global feed sees it (:meth:`events_since`)."""

    id: int
    recorded_at: datetime
    centre: str
    record: dict[str, Any]


class EventReads:
    """Reading the log of one centre's matches."""

    _engine: Engine
    centre: str

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
                from_row(match_id, seq, event_type, body)
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
        query = select(*_FEED_COLUMNS).where(events.c.centre == self.centre)
        if before_id is not None:
            query = query.where(events.c.id < before_id)
        query = query.order_by(events.c.id.desc()).limit(limit)
        with self._engine.connect() as connection:
            return [_stored_event(row) for row in connection.execute(query)]

    def events_since(self, after_id: int = 0, *, limit: int = 1000) -> list[StoredEvent]:
        """Up to ``limit`` events of the centre's matches with a global id above ``after_id``,
        in id order.

        A feed reader passes the last id it has seen.  Ids increase with every append; on
        PostgreSQL, concurrent appends to *different* matches can commit out of id order, so
        a reader polling while writers are busy should re-read a short window behind its
        cursor (see docs/persistence.md).
        """
        query = (
            select(*_FEED_COLUMNS)
            .where(events.c.id > after_id, events.c.centre == self.centre)
            .order_by(events.c.id)
            .limit(limit)
        )
        with self._engine.connect() as connection:
            return [_stored_event(row) for row in connection.execute(query)]


def _stored_event(row: Any) -> StoredEvent:
    return StoredEvent(id=row.id, recorded_at=as_utc(row.recorded_at), centre=row.centre,
                       record=from_row(row.match_id, row.seq, row.type, row.data))


def _last_seq(connection: Connection, centre: str, match_id: str) -> int:
    return connection.scalar(_LAST_SEQ, {"centre": centre, "match_id": match_id}) or 0
