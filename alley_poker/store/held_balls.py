"""Held balls kept in the event store's database, shared by every process of a centre (the
worker that reads the feeds holds them; any web process lists and resolves them).

>>> from alley_poker.store import EventStore
>>> log = HeldBallLog(EventStore.open("sqlite://"))
>>> ball = {"game": 1, "frame": 2, "ball": 1, "pins": 7, "standing": [7, 10], "flags": "",
...         "source": "scorer", "seq": 41, "recovered": False}
>>> first = log.hold(lane=3, slot=1, match_id="m1", bowler="Cal", ball=ball,
...                  line="$APF1,41,B,3,1,1,2,1,7,7-10*4C", reason="waiting for frame 1")
>>> log.hold(lane=3, slot=1, match_id="m1", bowler="Cal", ball=ball, line="re-sent",
...          reason="again") == first   # the same ball re-sent: the same item
True
>>> [item["bowler"] for item in log.open_items("m1")]
['Cal']
>>> log.resolve(first, "discarded", actor="commissioner:pat", reason="test line")
True
>>> log.resolve(first, "applied", actor="commissioner:pat"), log.open_items()
(False, [])

Many at once, all or nothing: one that is not open leaves every one of them open.

>>> ids = [log.hold(lane=1, slot=s, match_id=None, bowler=None, ball=ball, line="l",
...                 reason="no match") for s in (1, 2)]
>>> log.resolve_many([*ids, first], "discarded", actor="commissioner:pat", reason="practice")
[1]
>>> len(log.open_items())
2
>>> log.resolve_many(ids, "discarded", actor="commissioner:pat", reason="practice")
[]
>>> log.open_items()
[]
>>> [(item["outcome"], item["resolved_reason"]) for item in log.resolved_items()]
[('discarded', 'practice'), ('discarded', 'practice'), ('discarded', 'test line')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert, select, update

from alley_poker.store.event_store import EventStore, as_utc, utcnow
from alley_poker.store.schema import held_balls

_COLUMNS = ("id", "lane", "slot", "match_id", "bowler", "ball", "line", "reason", "held_at",
            "outcome", "resolved_by", "resolved_reason", "resolved_at")

#: How a held ball was resolved.
OUTCOMES = ("placed", "applied", "resynced", "discarded")


def same_ball(item: dict[str, Any], lane: int, slot: int, ball: dict[str, Any]) -> bool:
    """True when ``item`` holds this very ball (a re-send of the same line's content)."""
    kept = item["ball"]
    return (item["lane"], item["slot"]) == (lane, slot) and all(
        kept[key] == ball[key] for key in ("game", "frame", "ball", "pins", "standing", "flags"))


class HeldBallLog:
    """Held balls of one centre in its database."""

    def __init__(self, store: EventStore):
        self.store = store

    def hold(self, *, lane: int, slot: int, match_id: str | None, bowler: str | None,
             ball: dict[str, Any], line: str, reason: str) -> int:
        table = held_balls
        # Reads the open items, then inserts: under SQLite a deferred transaction would fail
        # at once with "database is locked" if another process wrote in between.
        with self.store.write_transaction() as connection:
            for item in self._rows(connection, table.c.outcome.is_(None),
                                   table.c.lane == lane, table.c.slot == slot):
                if same_ball(item, lane, slot, ball) and item["match_id"] == match_id:
                    return item["id"]
            result = connection.execute(insert(table).values(
                centre=self.store.centre, lane=lane, slot=slot, match_id=match_id,
                bowler=bowler, ball=ball, line=line[:500], reason=reason[:500],
                held_at=utcnow()))
            return int(result.inserted_primary_key[0])

    def open_items(self, match_id: str | None = None) -> list[dict[str, Any]]:
        table = held_balls
        where = [table.c.outcome.is_(None)]
        if match_id is not None:
            where.append(table.c.match_id == match_id)
        with self.store.engine.connect() as connection:
            return self._rows(connection, *where)

    def resolved_items(self, match_id: str | None = None, *,
                       limit: int = 1000) -> list[dict[str, Any]]:
        table = held_balls
        where = [table.c.outcome.is_not(None)]
        if match_id is not None:
            where.append(table.c.match_id == match_id)
        with self.store.engine.connect() as connection:
            return self._rows(connection, *where, newest_first=True, limit=limit)

    def get(self, item_id: int) -> dict[str, Any] | None:
        with self.store.engine.connect() as connection:
            found = self._rows(connection, held_balls.c.id == item_id)
        return found[0] if found else None

    def resolve(self, item_id: int, outcome: str, *, actor: str, reason: str = "") -> bool:
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        table = held_balls
        with self.store.engine.begin() as connection:
            # Only an open item closes: two tablets resolving it at once, one wins.
            result = connection.execute(
                update(table)
                .where(table.c.id == item_id, table.c.centre == self.store.centre,
                       table.c.outcome.is_(None))
                .values(outcome=outcome, resolved_by=actor[:128], resolved_reason=reason[:500],
                        resolved_at=utcnow()))
            return result.rowcount == 1

    def resolve_many(self, item_ids: Sequence[int], outcome: str, *, actor: str,
                     reason: str = "") -> list[int]:
        """Close every one of ``item_ids`` in one transaction, with one time, actor and reason
        (the desk's one command), or none of them: the answer is the ids that were not open
        (resolved meanwhile, or unknown) — empty when all were closed."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        table = held_balls
        wanted = sorted(set(item_ids))
        with self.store.write_transaction() as connection:
            # Locked while read (PostgreSQL): a tablet resolving one of them now waits.
            open_now = set(connection.execute(
                select(table.c.id).where(table.c.centre == self.store.centre,
                                         table.c.id.in_(wanted), table.c.outcome.is_(None))
                .with_for_update()).scalars())
            not_open = [item_id for item_id in wanted if item_id not in open_now]
            if not_open or not wanted:
                return not_open
            connection.execute(
                update(table)
                .where(table.c.centre == self.store.centre, table.c.id.in_(wanted),
                       table.c.outcome.is_(None))
                .values(outcome=outcome, resolved_by=actor[:128],
                        resolved_reason=reason[:500], resolved_at=utcnow()))
            return []

    def claim_unowned(self, lanes: list[int], match_id: str) -> int:
        """Open items of ``lanes`` held for no match become ``match_id``'s (the match those
        lanes belonged to next, now over); returns how many."""
        table = held_balls
        with self.store.engine.begin() as connection:
            result = connection.execute(
                update(table)
                .where(table.c.centre == self.store.centre, table.c.outcome.is_(None),
                       table.c.match_id.is_(None), table.c.lane.in_(list(lanes)))
                .values(match_id=match_id))
            return result.rowcount

    def _rows(self, connection: Any, *where: Any, newest_first: bool = False,
              limit: int | None = None) -> list[dict[str, Any]]:
        table = held_balls
        query = (select(*(table.c[name] for name in _COLUMNS))
                 .where(table.c.centre == self.store.centre, *where)
                 .order_by(*((table.c.resolved_at.desc(), table.c.id.desc()) if newest_first
                             else (table.c.id,)))
                 .limit(limit))
        items = [dict(zip(_COLUMNS, row, strict=True)) for row in connection.execute(query)]
        for item in items:
            for name in ("held_at", "resolved_at"):
                if item[name] is not None:
                    item[name] = as_utc(item[name])
        return items
