"""The alley service: one facade over the ledger, the lanes and the event bus.

Screens, the scheduler and the scoreboard feeds all go through :class:`AlleyService`.  Every
command runs through the match repository (serialized per match, persisted before it is
acknowledged) and every resulting event is published on the bus, topic ``match:<id>``, so
the kiosks see it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


class AlleyService:
    """Runs commands, routes lane events, publishes every change."""

    def __init__(self, repository: MatchRepository, *, bus: EventBus | None = None,
                 lanes: LaneMap | None = None):
        self.repository = repository
        self.bus: EventBus = bus if bus is not None else InProcessBus()
        self.lanes = lanes if lanes is not None else LaneMap()
        self.router = LaneEventRouter(self.lanes, self)

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
            return self.execute(match_id, CreateMatch(
                match_id, tuple(bowlers), games=games, ante_cents=ante_cents, rules=rules,
                actor=actor))
        except Exception:
            if previous is None:
                self.lanes.release(match_id)
            else:
                self.lanes.assign(match_id, previous.slots)
            raise

    def handle_lane_event(self, event: LaneEvent) -> None:
        """Feed callback: route a lane event to the match on that lane."""
        self.router.handle(event)
