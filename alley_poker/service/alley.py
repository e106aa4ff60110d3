"""The alley service: one facade over the ledger, the lanes and the event bus.

Screens, the scheduler and the scoreboard feeds all go through :class:`AlleyService`.  Every
command runs through the match repository (serialized per match, persisted before it is
acknowledged) and every resulting event is published on the bus, topic ``match:<id>``, so
the kiosks see it.

A service belongs to one centre (``centre``): its store, lane assignments and match list are
that centre's only.  When the bus is shared with other processes of the centre (``web`` ×N and
a ``worker`` over Redis), other processes change matches behind this one's back, so: every
state read first catches up with the log (read-your-writes whichever process took the
command), a foreign ``match:<id>`` message catches the cached match up at once (so the
deadline scheduler and the lane map follow), and a foreign lane (re)assignment reloads the
lane map from the assignment log.

A match that ends (settled or void) gives its lanes up at once, in every process of the
centre, so the next match can be created on them; a result undone takes them back if they are
still free.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from alley_poker.ledger import CommandRefused, MatchState, event_to_record
from alley_poker.ledger.commands import Command, CreateMatch
from alley_poker.ledger.match_status import FINISHED
from alley_poker.service.bus import EventBus, InProcessBus
from alley_poker.service.held import HeldBalls
from alley_poker.service.lanes import LaneAssignmentError, LaneMap
from alley_poker.service.router import LaneEventRouter
from drivers.base import LaneEvent, LaneOpened

log = logging.getLogger(__name__)

#: ``alley`` messages after which the lane map is reloaded from the assignment log.
LANE_CHANGES = ("lanes_assigned", "lanes_reassigned", "lanes_released", "bus_reconnected")

#: Events after which a match may have finished or come back to play (its lanes follow).
STATUS_CHANGES = frozenset({"match_settled", "match_voided", "result_undone", "action_undone"})


class MatchRepository(Protocol):
    def execute(self, match_id: str, command: Command, *,
                expected_seq: int | None = None) -> list[Any]: ...

    def state(self, match_id: str) -> MatchState: ...

    def shared_state(self, match_id: str, *, refresh: bool = False) -> MatchState: ...


class AssignmentLog(Protocol):
    """Where lane assignments are kept so a restart knows who bowls where."""

    def record(self, match_id: str, slots: Mapping[tuple[int, int], str], *, actor: str,
               reason: str = "") -> None: ...

    def current(self) -> dict[str, dict[tuple[int, int], str]]: ...

    def history(self, match_id: str) -> list[dict[str, Any]]: ...

    def last_held(self) -> dict[str, dict[tuple[int, int], str]]: ...


_ENDED = {"settled": "settled", "void": "voided"}


class AlleyService:
    """Runs commands, routes lane events, publishes every change."""

    def __init__(self, repository: MatchRepository, *, bus: EventBus | None = None,
                 lanes: LaneMap | None = None, assignments: AssignmentLog | None = None,
                 centre: str = "default", held: HeldBalls | None = None,
                 reads_catch_up: bool = True,
                 seating: Callable[[AlleyService], Any] | None = None,
                 side_games: Callable[[AlleyService], Any] | None = None):
        self.repository = repository
        self.centre = centre
        self.bus: EventBus = bus if bus is not None else InProcessBus()
        self.lanes = lanes if lanes is not None else LaneMap()
        self.assignments = assignments
        self.router = LaneEventRouter(self.lanes, self, held)
        #: Seats league matches from the scorer's OPEN lines (``service.seating``), when the
        #: centre runs leagues: made by ``seating`` from this service, below.
        self.seating: Any = None
        #: The night's side games (``service.side_nights.SideNights``) when the centre runs
        #: them: told of every command before it runs (the night's first ball seals their
        #: draw); made by ``side_games`` from this service, below.
        self.side_games: Any = None
        #: Whether :meth:`shared_state` first catches up with the ledger when processes share
        #: it.  A web process must (the tablet's read after its write may reach another
        #: process); the worker's is built without (``alley_poker.centre``): it writes the
        #: balls itself, a foreign change reaches it on the bus (:meth:`_on_foreign_change`), and
        #: every command it runs is appended at the seq it was decided on, so one it had not
        #: seen yet is caught up on and decided again.  Four catch-up queries a ball were
        #: most of the scaled-out worker's time (docs/performance.md).
        self.reads_catch_up = reads_catch_up
        self._publish_locks: dict[str, threading.RLock] = {}
        self._publish_locks_guard = threading.Lock()
        self._restore_lanes()
        self.unsubscribe = (self.bus.subscribe(self._on_foreign_change)
                            if self.bus.is_shared else None)
        # Last: each acts through the service (its commands, its bus), so it is made from it.
        if seating is not None:
            self.seating = seating(self)
        if side_games is not None:
            self.side_games = side_games(self)

    def _restore_lanes(self) -> None:
        """After a restart: every unfinished match takes its lanes back."""
        if self.assignments is None:
            return
        for match_id, slots in self.assignments.current().items():
            if self.state(match_id).status not in FINISHED:
                self.lanes.assign(match_id, slots)

    def reload_lanes(self) -> None:
        """Make the lane map what the assignment log says (another process changed it)."""
        if self.assignments is None:
            return
        current = {match_id: slots for match_id, slots in self.assignments.current().items()
                   if self.state(match_id).status not in FINISHED}
        try:
            self.lanes.replace_all(current)
        except ValueError as clash:
            log.error("lane map not reloaded, the assignment log disagrees: %s", clash)

    def _on_foreign_change(self, topic: str, message: dict[str, Any]) -> None:
        if message.get("origin") == self.bus.origin:
            return
        kind = message.get("kind")
        if topic.startswith("match:") and kind == "events" and not self.reads_catch_up:
            # Only where reads do not catch up themselves (the worker): a web process would
            # query PostgreSQL on every ball for a state its next read catches up anyway.
            self.repository.shared_state(topic.split(":", 1)[1], refresh=True)
        elif topic == "alley" and kind in LANE_CHANGES:
            self.reload_lanes()

    def state(self, match_id: str) -> MatchState:
        """The match as the ledger holds it now (caught up first when other processes write)."""
        if self.bus.is_shared:
            return self.repository.shared_state(match_id, refresh=True).clone()
        return self.repository.state(match_id)

    def shared_state(self, match_id: str) -> MatchState:
        """The match as the ledger holds it now, not a copy: for reading only (the router
        and the screens read it on every ball, and copying a whole match each time cost
        more than what they read)."""
        return self.repository.shared_state(match_id,
                                            refresh=self.bus.is_shared and self.reads_catch_up)

    def last_finished_in(self, lane: int, slot: int) -> tuple[str, str] | None:
        """The match over now that held lane ``lane`` slot ``slot`` last, and its bowler
        there: whose a scoresheet is when this process heard none of its game (it started
        after the lanes changed hands).  None without an assignment log."""
        if self.assignments is None:
            return None
        for match_id, slots in reversed(self.assignments.last_held().items()):
            bowler = slots.get((lane, slot))
            if bowler is not None and self.shared_state(match_id).status in FINISHED:
                return match_id, bowler
        return None

    def caught_up_state(self, match_id: str) -> MatchState:
        """:meth:`shared_state`, caught up with the ledger when processes share it, even where
        reads do not catch up by themselves (the router, before it holds or refuses a ball)."""
        return self.repository.shared_state(match_id, refresh=self.bus.is_shared)

    def execute(self, match_id: str, command: Command, *,
                expected_seq: int | None = None) -> list[Any]:
        """Run ``command`` on ``match_id``; raises the ledger's ``CommandRefused`` unchanged.

        The events are published before the next command of the match runs, so this
        process publishes (and pushes to screens) each match's changes in ledger order even
        when a feed, a tablet and the deadline scheduler command it at once.  Given
        ``expected_seq``, the command runs only if the match is still at that seq, else
        ``StaleVersion``: the repository checks it as it stores, so no other process's
        command can slip in between.
        """
        if self.side_games is not None:
            self.side_games.before_command(match_id, command)
        with self._publish_lock_for(match_id):
            events = self.repository.execute(match_id, command, expected_seq=expected_seq)
            if events:
                self.bus.publish(f"match:{match_id}", {
                    "kind": "events",
                    "match_id": match_id,
                    "events": [event_to_record(event) for event in events],
                })
        for event in events:
            if event.type == "bowler_removed":
                self._free_slot_of(match_id, event["bowler"], actor=command.actor)
        if any(event.type in STATUS_CHANGES for event in events):
            self._lanes_follow_status(match_id, actor=command.actor)
        if any(event.type == "action_undone" for event in events):
            self.router.after_undo(match_id)
        return events

    def _lanes_follow_status(self, match_id: str, *, actor: str) -> None:
        """A finished match frees its lanes; one brought back to play takes them back."""
        status = self.state(match_id).status
        if status in FINISHED:
            self._free_lanes_of(match_id, status, actor=actor)
        elif status != "new" and self.lanes.assignment(match_id) is None:
            self._retake_lanes_of(match_id, actor=actor)

    def _free_lanes_of(self, match_id: str, status: str, *, actor: str) -> None:
        """The match is over: its slots deal to nobody and the next match may take them.

        The log keeps the freeing as a row with no slots (who, and "match settled" or
        "match voided"), so a restart and the other processes of the centre agree.
        """
        assignment = self.lanes.assignment(match_id)
        held = assignment is not None
        self.lanes.release(match_id)
        if assignment is not None:
            self.router.lanes_left_by(match_id, assignment.lanes)
        logged = (self.assignments is not None
                  and match_id in self.assignments.current())
        if logged:
            self.assignments.record(match_id, {}, actor=actor,
                                    reason=f"match {_ENDED[status]}")
        if held or logged:
            self.bus.publish("alley", {"kind": "lanes_released", "match_id": match_id,
                                       "actor": actor, "reason": f"match {_ENDED[status]}"})

    def _retake_lanes_of(self, match_id: str, *, actor: str) -> None:
        """A result undone: the match takes back the slots it last held, if still free.

        If another match holds any of them now, the match stays off the lanes (the
        commissioner reassigns it) and the clash is announced as ``lanes_not_restored``.
        """
        if self.assignments is None:
            return
        slots = next((entry["slots"] for entry in reversed(self.assignments.history(match_id))
                      if entry["slots"]), None)
        if not slots:
            return
        if self.bus.is_shared:
            self.reload_lanes()  # another process may have given the lanes to a new match
        try:
            self.lanes.assign(match_id, slots)
        except LaneAssignmentError as clash:
            self.bus.publish("alley", {"kind": "lanes_not_restored", "match_id": match_id,
                                       "actor": actor, "reason": str(clash)})
            return
        try:
            self.assignments.record(match_id, slots, actor=actor,
                                    reason="result undone: lanes taken back")
        except Exception:
            self.lanes.release(match_id)
            raise
        self.bus.publish("alley", {"kind": "lanes_assigned", "match_id": match_id,
                                   "actor": actor, "reason": "result undone"})

    def _free_slot_of(self, match_id: str, bowler: str, *, actor: str) -> None:
        """A removed bowler's lane slot is free: the feed's balls there no longer deal."""
        assignment = self.lanes.assignment(match_id)
        if assignment is None or bowler not in assignment.slots.values():
            return
        slots = {key: name for key, name in assignment.slots.items() if name != bowler}
        self.lanes.assign(match_id, slots)
        if self.assignments is not None:
            self.assignments.record(match_id, slots, actor=actor,
                                    reason=f"{bowler} removed from the match")
        self.bus.publish("alley", {"kind": "lanes_reassigned", "match_id": match_id,
                                   "actor": actor, "reason": f"{bowler} removed"})

    def match_lock(self, match_id: str) -> threading.RLock:
        """The lock this process runs the match's commands and publishes their events under:
        while it is held here, no command of the match runs in this process (the deadline
        scheduler reads a match and sets its jobs from it under this lock)."""
        return self._publish_lock_for(match_id)

    def _publish_lock_for(self, match_id: str) -> threading.RLock:
        # Re-entrant: a subscriber may itself command the match it was told about.
        with self._publish_locks_guard:
            return self._publish_locks.setdefault(match_id, threading.RLock())

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
        league: dict[str, Any] | None = None,
        handicaps: dict[str, int] | None = None,
    ) -> list[Any]:
        """Create a match bowled on the lanes in ``slots`` ((lane, slot) → bowler name).

        Bowlers are seated in ``seat_order`` (default: lane, then slot).  The lanes are
        claimed only when the ledger accepts the match.  A league night's match carries its
        ``league`` tag and the bowlers' ``handicaps`` (``alley_poker.service.league_nights``).
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
                league=league, handicaps=handicaps, actor=actor))
        except Exception:
            if previous is None:
                self.lanes.release(match_id)
            else:
                self.lanes.assign(match_id, previous.slots)
            raise
        if self.assignments is not None:
            self.assignments.record(match_id, slots, actor=actor, reason="match created")
        self.bus.publish("alley", {"kind": "lanes_assigned", "match_id": match_id,
                                   "actor": actor})
        return events

    def reassign_lanes(self, match_id: str, slots: Mapping[tuple[int, int], str], *,
                       actor: str, reason: str) -> None:
        """The commissioner moves bowlers between lane slots (kept, with who and why)."""
        state = self.state(match_id)
        if state.status in ("new", *FINISHED):
            raise CommandRefused(_holds_no_lanes(match_id, state.status), field="match_id")
        if sorted(slots.values()) != sorted(state.bowlers):
            raise CommandRefused("every bowler of the match needs exactly one lane slot",
                                 field="slots")
        self._reassign(match_id, slots, actor=actor, reason=reason)

    def seat_bowlers(self, match_id: str, slots: Mapping[tuple[int, int], str], *,
                     actor: str, reason: str) -> None:
        """Set who bowls in which lane slot from the scorer's word or the desk's pick.

        Unlike :meth:`reassign_lanes`, a bowler may be left without a slot for a while (the
        scorer has not opened their lane yet, or the desk has still to say who a name is):
        balls from a slot with nobody are held, never dealt to a guess.
        """
        state = self.state(match_id)
        if state.status in ("new", *FINISHED):
            raise CommandRefused(_holds_no_lanes(match_id, state.status), field="match_id")
        strangers = sorted(set(slots.values()) - set(state.bowlers))
        if strangers:
            raise CommandRefused(f"not bowlers of this match: {', '.join(strangers)}",
                                 field="slots")
        self._reassign(match_id, slots, actor=actor, reason=reason)

    def _reassign(self, match_id: str, slots: Mapping[tuple[int, int], str], *, actor: str,
                  reason: str) -> None:
        """Put ``slots`` in force, kept in the assignment log (the map as it was if the log
        cannot take it), and tell the other processes."""
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

    @property
    def held(self) -> HeldBalls:
        """The feed balls the router could not place, for the desk."""
        return self.router.held_log

    def held_counts(self) -> dict[int, int]:
        """Open held balls per lane (what the feed board shows)."""
        counts: dict[int, int] = {}
        for item in self.held.open_items():
            counts[item["lane"]] = counts.get(item["lane"], 0) + 1
        return counts

    def handle_lane_event(self, event: LaneEvent) -> bool:
        """Feed callback: route a lane event to the match on that lane; True when its ball
        was refused (the feed treats the line as not received)."""
        if isinstance(event, LaneOpened) and self.seating is not None:
            self.seating.on_lane_opened(event)
        return self.router.handle(event)


def _holds_no_lanes(match_id: str, status: str) -> str:
    if status == "new":
        return f"there is no match {match_id!r}: it holds no lanes"
    return f"the match is {status}: it holds no lanes"


def open_service(database_url: str, *, centre: str = "default",
                 rng_factory: Callable[[], random.Random] | None = None,
                 bus: EventBus | None = None, reads_catch_up: bool = True,
                 seating: Callable[[AlleyService], Any] | None = None,
                 side_games: Callable[[AlleyService], Any] | None = None) -> AlleyService:
    """The service of ``centre`` over the event store at ``database_url``, lanes restored.

    Matches are dealt fairly (a committed seed per match, docs/fairness.md) unless a seeded
    ``rng_factory`` is given for tests and simulations (a test-only source, no commitment).
    ``bus`` defaults to an in-process one; give a
    :class:`~alley_poker.service.redis_bus.RedisBus` when processes share a centre.
    ``seating`` and ``side_games`` make the service's scorer seating and side games from it
    (a centre's builder gives them).  A whole centre is built by
    :func:`alley_poker.centre.build_centre`, which calls this.
    """
    from alley_poker.store import EventStore
    from alley_poker.store.held_balls import HeldBallLog
    from alley_poker.store.lane_assignments import LaneAssignmentLog
    from alley_poker.store.repository import MatchRepository

    store = EventStore.open(database_url, centre=centre)
    repository = MatchRepository(store, rng_factory=rng_factory)
    return AlleyService(repository, bus=bus, assignments=LaneAssignmentLog(store),
                        centre=centre, held=HeldBallLog(store), reads_catch_up=reads_catch_up,
                        seating=seating, side_games=side_games)
