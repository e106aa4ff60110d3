"""The standings at the service layer: one process's league projection, kept current.

At start it reads the centre's whole log from the store (``events_since``, page by page),
then it follows the bus: every ``events`` message on a ``match:<id>`` topic carries the
records the ledger just stored (``event_to_record``), in order.  It subscribes *before*
reading the store so nothing published meanwhile is missed; a record both paths deliver is
folded once (the projection skips what it has), and a record that arrives ahead of what the
projection holds (a message lost, or one that came before the store read reached that match)
is filled in from the store.  Any process — ``serve``, each ``web``, a ``worker`` — can keep
one; with a shared bus every process sees every centre change.

The figures are those of :class:`~alley_poker.league.standings.SeasonProjection`; read them
under :meth:`LiveStandings.reading` so a bus delivery cannot change them half-way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from alley_poker.league.standings import ProjectionGap, SeasonProjection
from alley_poker.service.alley import AlleyService
from alley_poker.store.event_store import EventStore

log = logging.getLogger(__name__)

#: Events read from the store per page while building the projection at start.
PAGE = 1000


def project_store(store: EventStore, *, page: int = PAGE) -> SeasonProjection:
    """The projection of everything the store holds for its centre (read in pages)."""
    projection = SeasonProjection()
    after = 0
    while True:
        rows = store.events_since(after, limit=page)
        for row in rows:
            _fold(projection, store, row.record["match_id"], row.record)
        if len(rows) < page:
            return projection
        after = rows[-1].id


def _fold(projection: SeasonProjection, store: EventStore, match_id: str,
          record: Mapping[str, Any]) -> None:
    try:
        projection.apply(match_id, record)
    except ProjectionGap as gap:
        # PostgreSQL may commit appends to different matches out of id order, and a bus
        # message may overtake the store read: the match's own log fills the hole.
        for missed in store.load(match_id, after_seq=gap.have):
            projection.apply(match_id, missed)
        projection.apply(match_id, record)


class LiveStandings:
    """The process's live projection: built from the store, fed from ``service.bus``."""

    def __init__(self, service: AlleyService, *, page: int = PAGE) -> None:
        self._store: EventStore = service.repository.store
        self._lock = threading.RLock()
        self._projection = SeasonProjection()
        with self._lock:
            self._unsubscribe = service.bus.subscribe(self._on_message)
            self._projection = project_store(self._store, page=page)

    def _on_message(self, topic: str, message: Mapping[str, Any]) -> None:
        if message.get("kind") != "events" or not topic.startswith("match:"):
            return
        match_id = topic.split(":", 1)[1]
        with self._lock:
            for record in message.get("events", ()):
                _fold(self._projection, self._store, match_id, record)

    @contextmanager
    def reading(self) -> Iterator[SeasonProjection]:
        """The projection, held still while the caller reads it."""
        with self._lock:
            yield self._projection

    def rebuilt(self) -> SeasonProjection:
        """A fresh projection of the whole store (what the live one must equal)."""
        return project_store(self._store)

    def close(self) -> None:
        """Stop following the bus."""
        self._unsubscribe()
