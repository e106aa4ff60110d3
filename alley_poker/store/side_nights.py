"""Side nights at the store layer: each league night's side-game records, in order, durably.

Kept like the match log (:mod:`alley_poker.store.event_writes`): append-only, one sequence per
night, appends with optimistic concurrency (the caller says which seq it last saw; another
writer there first gets :class:`ConcurrencyConflict` and nothing is written), records handed
back unchanged.  The store knows nothing of brackets: it keeps the JSON-safe records that
:func:`alley_poker.side_games.event_to_record` makes.

>>> from alley_poker.store.event_store import EventStore
>>> log = SideEventLog(EventStore.open("sqlite://"))
>>> record = {"night_id": "tue-2026-11-24", "seq": 1, "type": "side_night_opened",
...           "at": "2026-11-24T19:00:00Z", "data": {"games": 3}}
>>> log.append("tue-2026-11-24", [record], expected_seq=0)
1
>>> log.load("tue-2026-11-24") == [record], log.night_ids(), log.last_seq("tue-2026-11-24")
(True, ['tue-2026-11-24'], 1)
>>> log.append("tue-2026-11-24", [record], expected_seq=0)
Traceback (most recent call last):
...
alley_poker.store.store_errors.ConcurrencyConflict: match 'tue-2026-11-24': expected to append \
after seq 0, but the log is at seq 1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy.exc
from sqlalchemy import func, insert, select

from alley_poker.store.clock import utcnow
from alley_poker.store.records import check_expected_seq, check_name, to_row
from alley_poker.store.schema import side_events
from alley_poker.store.store_errors import ConcurrencyConflict, RecordError

_INSERT = insert(side_events)


class SideEventLog:
    """Side-game records of one centre's nights, in the event store's database."""

    def __init__(self, store: Any) -> None:
        self.store = store

    @property
    def centre(self) -> str:
        return self.store.centre

    def append(self, night_id: str, records: Sequence[Mapping[str, Any]],
               expected_seq: int) -> int:
        """Append ``records`` (seqs ``expected_seq + 1``, ...) in one transaction; the night's
        new last seq.  :class:`ConcurrencyConflict` when the log is not at ``expected_seq``,
        :class:`RecordError` for a record that does not belong there; nothing written."""
        check_name("night id", night_id)
        check_expected_seq(expected_seq)
        if not records:
            return expected_seq
        at = utcnow()
        rows = []
        for position, record in enumerate(records, start=1):
            if not isinstance(record, Mapping) or record.get("night_id") != night_id:
                raise RecordError(f"night {night_id!r} seq {expected_seq + position}: the "
                                  "record is not this night's")
            # The shared row check, with the night in the match id's place.
            row = to_row(self.centre, night_id, expected_seq + position,
                         {**{k: v for k, v in record.items() if k != "night_id"},
                          "match_id": night_id}, at)
            rows.append({"centre": row["centre"], "night_id": night_id, "seq": row["seq"],
                         "type": row["type"], "data": row["data"], "recorded_at": at})
        try:
            with self.store.write_transaction() as connection:
                last = self._last_seq(connection, night_id)
                if last != expected_seq:
                    raise ConcurrencyConflict(night_id, expected_seq, last)
                connection.execute(_INSERT, rows)
        except sqlalchemy.exc.IntegrityError as error:
            # A writer that read the same last seq committed first (the unique seq).
            raise ConcurrencyConflict(night_id, expected_seq, None) from error
        return expected_seq + len(rows)

    def load(self, night_id: str, *, after_seq: int = 0) -> list[dict[str, Any]]:
        """The night's records after ``after_seq``, in order (``[]`` for an unknown night)."""
        table = side_events
        query = (select(table.c.seq, table.c.type, table.c.data)
                 .where(table.c.centre == self.centre, table.c.night_id == night_id,
                        table.c.seq > after_seq)
                 .order_by(table.c.seq))
        with self.store.engine.connect() as connection:
            return [{"night_id": night_id, "seq": seq, "type": kind,
                     **(body if isinstance(body, dict) else {"data": body})}
                    for seq, kind, body in connection.execute(query)]

    def last_seq(self, night_id: str) -> int:
        with self.store.engine.connect() as connection:
            return self._last_seq(connection, night_id)

    def night_ids(self) -> list[str]:
        """Every night of this centre with side games, sorted."""
        table = side_events
        query = (select(table.c.night_id).where(table.c.centre == self.centre)
                 .group_by(table.c.night_id).order_by(table.c.night_id))
        with self.store.engine.connect() as connection:
            return list(connection.execute(query).scalars())

    def _last_seq(self, connection: Any, night_id: str) -> int:
        table = side_events
        return int(connection.scalar(
            select(func.coalesce(func.max(table.c.seq), 0))
            .where(table.c.centre == self.centre, table.c.night_id == night_id)) or 0)
