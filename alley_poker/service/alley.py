"""The alley service: one facade over the ledger, the lanes and the event bus.

Screens, the scheduler and the scoreboard feeds all go through :class:`AlleyService`.  Every
command runs through the match repository (serialized per match, persisted before it is
acknowledged) and every resulting event is published on the bus, topic ``match:<id>``, so
the kiosks see it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from alley_poker.ledger import CommandRefused, MatchState, event_to_record
from alley_poker.ledger.commands import Command, CreateMatch
from alley_poker.service.bus import EventBus, InProcessBus
from alley_poker.service.lanes import LaneMap
from alley_poker.service.router import LaneEventRouter
from drivers.base import LaneEvent


class MatchRepository(Protocol):
    def execute(self, match_id: str, command: Command) -> list[Any]: ...

    def state(self, match_id: str) -> MatchState: ...


class AssignmentLog(Protocol):
    """Where lane assignments are kept so a restart knows who bowls where."""

    def record(self, match_id: str, slots: Mapping[tuple[int, int], str], *, actor: str,
               reason: str = "") -> None: ...

    def current(self) -> dict[str, dict[tuple[int, int], str]]: ...


#: A match in one of these states no longer holds its lanes.
FINISHED = ("settled", "void")


class AlleyService:
    """Runs commands, routes lane events, publishes every change."""

    def __init__(self, repository: MatchRepository, *, bus: EventBus | None = None,
                 lanes: LaneMap | None = None, assignments: AssignmentLog | None = None):
        self.repository = repository
        self.bus: EventBus = bus if bus is not None else InProcessBus()
        self.lanes = lanes if lanes is not None else LaneMap()
        self.assignments = assignments
        self.router = LaneEventRouter(self.lanes, self)
        self._restore_lanes()

    def _restore_lanes(self) -> None:
        """After a restart: every unfinished match takes its lanes back."""
        if self.assignments is None:
            return
        for match_id, slots in self.assignments.current().items():
            if self.state(match_id).status not in FINISHED:
                self.lanes.assign(match_id, slots)

    def state(self, match_id: str) -> MatchState:
        return self.repository.state(match_id)

    def execute(self, match_id: str, command: Command) -> list[Any]:
        """Run ``command`` on ``match_id``; raises the ledger's ``CommandRefused`` unchanged."""
        events = self.repository.execute(match_id, command)
        if events:
            self.bus.publish(f"match:{match_id}", {
                "kind": "events",
                "match_id": match_id,
                "events": [event_to_record(event) for event in events],
            })
        return events

    def announce(self, topic: str, message: dict[str, Any]) -> None:
        self.bus.publish(topic, message)

    def create_match(
        self,
        match_id: str,
        slots: Mapping[tuple[int, int], str],
        *,
        games: int = 3,
        ante_cents: int | None = None,
        rules: dict[str, Any] | None = None,
        actor: str,
        seat_order: Sequence[str] | None = None,
    ) -> list[Any]:
        """Create a match bowled on the lanes in ``slots`` ((lane, slot) → bowler name).

        Bowlers are seated in ``seat_order`` (default: lane, then slot).  The lanes are
        claimed only when the ledger accepts the match.
        """
        bowlers = list(seat_order) if seat_order else [slots[key] for key in sorted(slots)]
        if sorted(bowlers) != sorted(slots.values()):
            raise CommandRefused("the seat order must name exactly the bowlers on the lanes",
                                 field="seat_order")
        previous = self.lanes.assignment(match_id)
        self.lanes.assign(match_id, slots)  # refuses a slot another match holds
        try:
            events = self.execute(match_id, CreateMatch(
                match_id, tuple(bowlers), games=games, ante_cents=ante_cents, rules=rules,
                actor=actor))
        except Exception:
            if previous is None:
                self.lanes.release(match_id)
            else:
                self.lanes.assign(match_id, previous.slots)
            raise
        if self.assignments is not None:
            self.assignments.record(match_id, slots, actor=actor, reason="match created")
        return events

    def reassign_lanes(self, match_id: str, slots: Mapping[tuple[int, int], str], *,
                       actor: str, reason: str) -> None:
        """The commissioner moves bowlers between lane slots (kept, with who and why)."""
        state = self.state(match_id)
        if state.status in ("new", *FINISHED):
            raise CommandRefused(f"match {match_id} is {state.status}: it holds no lanes",
                                 field="match_id")
        if sorted(slots.values()) != sorted(state.bowlers):
            raise CommandRefused("every bowler of the match needs exactly one lane slot",
                                 field="slots")
        previous = self.lanes.assignment(match_id)
        self.lanes.assign(match_id, slots)
        try:
            if self.assignments is not None:
                self.assignments.record(match_id, slots, actor=actor, reason=reason)
        except Exception:
            if previous is not None:
                self.lanes.assign(match_id, previous.slots)
            raise
        self.bus.publish("alley", {"kind": "lanes_reassigned", "match_id": match_id,
                                   "actor": actor, "reason": reason})

    def handle_lane_event(self, event: LaneEvent) -> None:
        """Feed callback: route a lane event to the match on that lane."""
        self.router.handle(event)


def open_service(database_url: str, *, rng_factory: Callable[[], random.Random] | None = None,
                 bus: EventBus | None = None) -> AlleyService:
    """The service over the event store at ``database_url``, lanes restored from it.

    Shuffles use ``random.SystemRandom`` (a cryptographically strong source) unless a seeded
    ``rng_factory`` is given for tests and simulations.
    """
    from alley_poker.store import EventStore
    from alley_poker.store.lane_assignments import LaneAssignmentLog
    from alley_poker.store.repository import MatchRepository

    store = EventStore.open(database_url)
    repository = MatchRepository(store, rng_factory=rng_factory or random.SystemRandom)
    return AlleyService(repository, bus=bus, assignments=LaneAssignmentLog(store))
