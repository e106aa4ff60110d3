"""Held balls: feed balls the router could not place, kept as review items for the desk.

A scorer's ball is never dropped silently.  The only silent drop is an exact re-send of a ball
the ledger already holds (counted as a duplicate).  Any other ball that cannot be placed now —
the ledger and the scorer disagree on the bowler's frame, a slot or lane with no bowler of a
match, a match that is not in play, a ball the ledger refuses — is *held*: kept with the line
it came from and the reason, counted on the feed board (its lanes turn amber) and shown on the
tablet, until it is placed (a gap filled), applied, re-synced or discarded with a reason.

A ball that only waits for an earlier one (the scorer's line for it was lost) is held too, and
is resolved as ``placed`` on its own when the gap fills.

Two logs keep them: :class:`HeldBallsInMemory` here (a service without a database), and
``alley_poker.store.held_balls.HeldBallLog`` in the event store's database, which every
process of a centre shares.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from alley_poker.ledger.context import iso
from alley_poker.store.held_balls import OUTCOMES, same_ball
from drivers.base import BallRecorded, Flags


def ball_record(ball: BallRecorded) -> dict[str, Any]:
    """A feed ball as JSON-safe data (what a held item keeps).

    >>> record = ball_record(BallRecorded(lane=3, bowler=1, game=1, frame=4, ball=1, pins=8,
    ...                      standing=frozenset({7, 10}), flags=Flags(split=True),
    ...                      source="scorer", seq=57))
    >>> record["standing"], record["flags"], ball_from_record(3, 1, record).describe()
    ([7, 10], 'S', 'lane 3 bowler 1 game 1 frame 4 ball 1: 8 pins, standing 7-10, split')
    """
    return {"game": ball.game, "frame": ball.frame, "ball": ball.ball, "pins": ball.pins,
            "standing": None if ball.standing is None else sorted(ball.standing),
            "flags": ball.flags.letters, "source": ball.source, "seq": ball.seq,
            "recovered": ball.recovered}


def ball_from_record(lane: int, slot: int, record: dict[str, Any]) -> BallRecorded:
    """The feed ball a held item keeps."""
    standing = record["standing"]
    return BallRecorded(lane=lane, bowler=slot, game=record["game"], frame=record["frame"],
                        ball=record["ball"], pins=record["pins"],
                        standing=None if standing is None else frozenset(standing),
                        flags=Flags.from_letters(record["flags"]), source=record["source"],
                        seq=record["seq"], recovered=bool(record.get("recovered")))


class HeldBalls(Protocol):
    """Where held balls are kept.  Items are dicts: ``id, lane, slot, match_id, bowler, ball,
    line, reason, held_at`` and, once resolved, ``outcome, resolved_by, resolved_reason,
    resolved_at``."""

    def hold(self, *, lane: int, slot: int, match_id: str | None, bowler: str | None,
             ball: dict[str, Any], line: str, reason: str) -> int:
        """Keep a ball (an open item for the same ball of the same slot is reused)."""
        ...

    def open_items(self, match_id: str | None = None) -> list[dict[str, Any]]:
        """Unresolved items, oldest first (of one match, if given)."""
        ...

    def resolved_items(self, match_id: str | None = None, *,
                       limit: int = 1000) -> list[dict[str, Any]]:
        """Resolved items, the latest resolved first (the held balls' audit trail: who
        resolved each, how, when and why)."""
        ...

    def get(self, item_id: int) -> dict[str, Any] | None: ...

    def claim_unowned(self, lanes: list[int], match_id: str) -> int:
        """Open items of ``lanes`` held for no match become ``match_id``'s (the match those
        lanes belonged to next, now over: they never go to a later one); how many."""
        ...

    def resolve(self, item_id: int, outcome: str, *, actor: str, reason: str = "") -> bool:
        """Close an open item; False if it was not open (resolved meanwhile, or unknown)."""
        ...

    def resolve_many(self, item_ids: Sequence[int], outcome: str, *, actor: str,
                     reason: str = "") -> list[int]:
        """Close all these open items at once, or none: the ids that were not open."""
        ...


class HeldBallsInMemory:
    """Held balls of a service with no database (tests, a scenario): gone with the process."""

    def __init__(self) -> None:
        self._items: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def hold(self, *, lane: int, slot: int, match_id: str | None, bowler: str | None,
             ball: dict[str, Any], line: str, reason: str) -> int:
        with self._lock:
            for item in self._items.values():
                if item["outcome"] is None and same_ball(item, lane, slot, ball) \
                        and item["match_id"] == match_id:
                    return item["id"]
            item_id = next(self._ids)
            self._items[item_id] = {
                "id": item_id, "lane": lane, "slot": slot, "match_id": match_id,
                "bowler": bowler, "ball": dict(ball), "line": line, "reason": reason,
                "held_at": datetime.now(UTC), "outcome": None, "resolved_by": None,
                "resolved_reason": None, "resolved_at": None}
            return item_id

    def open_items(self, match_id: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(item) for item in self._items.values() if item["outcome"] is None
                    and match_id in (None, item["match_id"])]

    def resolved_items(self, match_id: str | None = None, *,
                       limit: int = 1000) -> list[dict[str, Any]]:
        with self._lock:
            done = [dict(item) for item in self._items.values()
                    if item["outcome"] is not None and match_id in (None, item["match_id"])]
        done.sort(key=lambda item: (item["resolved_at"], item["id"]), reverse=True)
        return done[:limit]

    def get(self, item_id: int) -> dict[str, Any] | None:
        with self._lock:
            item = self._items.get(item_id)
            return None if item is None else dict(item)

    def claim_unowned(self, lanes: list[int], match_id: str) -> int:
        with self._lock:
            unowned = [item for item in self._items.values() if item["outcome"] is None
                       and item["match_id"] is None and item["lane"] in lanes]
            for item in unowned:
                item["match_id"] = match_id
            return len(unowned)

    def resolve(self, item_id: int, outcome: str, *, actor: str, reason: str = "") -> bool:
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        with self._lock:
            item = self._items.get(item_id)
            if item is None or item["outcome"] is not None:
                return False
            item.update(outcome=outcome, resolved_by=actor, resolved_reason=reason,
                        resolved_at=datetime.now(UTC))
            return True

    def resolve_many(self, item_ids: Sequence[int], outcome: str, *, actor: str,
                     reason: str = "") -> list[int]:
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        wanted = sorted(set(item_ids))
        with self._lock:
            not_open = [item_id for item_id in wanted if item_id not in self._items
                        or self._items[item_id]["outcome"] is not None]
            if not_open:
                return not_open
            now = datetime.now(UTC)
            for item_id in wanted:
                self._items[item_id].update(outcome=outcome, resolved_by=actor,
                                            resolved_reason=reason, resolved_at=now)
            return []


def held_view(item: dict[str, Any]) -> dict[str, Any]:
    """A held item as the API and the tablet show it (JSON-safe)."""
    ball = item["ball"]
    return {
        "id": item["id"], "lane": item["lane"], "slot": item["slot"],
        "match_id": item["match_id"], "bowler": item["bowler"],
        "game": ball["game"], "frame": ball["frame"], "ball": ball["ball"],
        "pins": ball["pins"], "standing": ball["standing"], "flags": ball["flags"],
        "line": item["line"], "reason": item["reason"],
        "held_at": iso(item["held_at"]), "outcome": item["outcome"],
        "resolved_by": item["resolved_by"], "resolved_reason": item["resolved_reason"],
        "resolved_at": iso(item["resolved_at"]) if item["resolved_at"] else None,
    }
