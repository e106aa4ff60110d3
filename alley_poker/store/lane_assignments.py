"""Lane assignments kept beside the ledger, so a restarted service knows who bowls where.

Append-only: every assignment and every change the commissioner makes is a row with who made
it, when and why; the newest row of a match is the one in force.  A match that ends gives its
lanes up with a row of no slots (it then holds none); the rows before it stay as history.

>>> from alley_poker.store import EventStore
>>> store = EventStore.open("sqlite://")
>>> _ = store.append("m1", [{"match_id": "m1", "seq": 1, "type": "match_created",
...                         "at": "2026-11-20T19:00:00+00:00", "data": {}}], 0)
>>> log = LaneAssignmentLog(store)
>>> log.record("m1", {(1, 1): "Ann", (2, 1): "Bob"}, actor="commissioner:pat")
>>> log.record("m1", {(1, 1): "Ann", (1, 2): "Bob"}, actor="commissioner:pat",
...            reason="Bob moved to lane 1")
>>> log.current()
{'m1': {(1, 1): 'Ann', (1, 2): 'Bob'}}
>>> [entry["reason"] for entry in log.history("m1")]
['', 'Bob moved to lane 1']
>>> log.record("m1", {}, actor="commissioner:pat", reason="match settled")
>>> log.current()
{}
>>> log.last_held()  # where m1 was bowled, kept for the lanes' screen
{'m1': {(1, 1): 'Ann', (1, 2): 'Bob'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import insert, select

from alley_poker.store.event_store import EventStore, utcnow
from alley_poker.store.schema import lane_assignments

Slots = dict[tuple[int, int], str]


class LaneAssignmentLog:
    """Records and reads lane assignments in the event store's database."""

    def __init__(self, store: EventStore):
        self.store = store

    def record(self, match_id: str, slots: Mapping[tuple[int, int], str], *, actor: str,
               reason: str = "") -> None:
        """Keep ``slots`` ((lane, slot) → bowler) as the assignment of ``match_id`` now."""
        rows = [[lane, slot, bowler] for (lane, slot), bowler in sorted(slots.items())]
        with self.store.engine.begin() as connection:
            connection.execute(insert(lane_assignments).values(
                match_id=match_id, slots=rows, actor=actor, reason=reason,
                assigned_at=utcnow(), centre=self.store.centre))

    def current(self) -> dict[str, Slots]:
        """The assignment in force for every match that has one (a match whose newest row
        has no slots gave its lanes up)."""
        latest: dict[str, Slots] = {}
        for entry in self._rows():
            latest[entry["match_id"]] = entry["slots"]
        return {match_id: slots for match_id, slots in latest.items() if slots}

    def history(self, match_id: str) -> list[dict[str, Any]]:
        """Every assignment of ``match_id``, oldest first, with actor, reason and time."""
        return [entry for entry in self._rows() if entry["match_id"] == match_id]

    def last_held(self) -> dict[str, Slots]:
        """The slots each match held last (its newest row with slots, kept after it gave
        them up), ordered by when the match's lanes last changed, oldest first: what a lane's
        screen needs to find the match that finished there last.
        """
        held: dict[str, Slots] = {}
        for entry in self._rows():
            slots = entry["slots"] or held.get(entry["match_id"], {})
            held.pop(entry["match_id"], None)  # re-inserted last: the newest change
            held[entry["match_id"]] = slots
        return {match_id: slots for match_id, slots in held.items() if slots}

    def _rows(self) -> list[dict[str, Any]]:
        table = lane_assignments
        query = (select(table.c.match_id, table.c.slots, table.c.actor, table.c.reason,
                        table.c.assigned_at)
                 .where(table.c.centre == self.store.centre).order_by(table.c.id))
        with self.store.engine.connect() as connection:
            return [
                {"match_id": match_id,
                 "slots": {(int(lane), int(slot)): str(bowler) for lane, slot, bowler in slots},
                 "actor": actor, "reason": reason, "assigned_at": assigned_at}
                for match_id, slots, actor, reason, assigned_at in connection.execute(query)
            ]
