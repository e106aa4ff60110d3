"""Seating league matches from the scorer: its ``OPEN`` line says who bowls in which slot.

When a lane opens a game, the scorer lists its bowlers in slot order by the names typed into
it ("ANN", "BOB").  For a league match on that lane, each name is matched to the roster (the
name the scorer shows, or the bowler's own name; case ignored) and the lane's slots are set
to what the scorer says, so every ball of that slot deals to the right person even when the
desk's plan had them elsewhere.  A name that matches nobody in the match, or several
bowlers, is never guessed at: the slot stays empty (its balls are held, not dealt) and a
*seat request* waits for the desk to pick who it is; the held balls are then applied.

The latest ``OPEN`` of each lane is also remembered for a few hours, so a night started
after the scorer opened its lanes is laid out as the scorer has it.  A line that already went
to a match (heard while a match held its lane, or used when a night started) is that match's:
a later night on the same lanes (the late league after the early one) is never laid out or
seated from it.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Protocol

from alley_poker.league.night_plan import who_is
from alley_poker.ledger import CommandRefused
from alley_poker.ledger.match_status import FINISHED
from alley_poker.service.alley import AlleyService
from drivers.base import LaneOpened

log = logging.getLogger(__name__)

#: An announcement older than this is last night's, not tonight's.
ANNOUNCEMENT_TTL_S = 3 * 3600.0

#: Who the assignment log names when the scorer's own line moved a bowler.
SCORER = "scorer"
#: A finished match's status in a sentence.
ENDED = {"settled": "settled", "void": "voided"}


def lanes_words(lane: int) -> str:
    """The lane pair a lane belongs to, as a desk says it.

    >>> lanes_words(3), lanes_words(4)
    ('lanes 3-4', 'lanes 3-4')
    """
    first = lane if lane % 2 else lane - 1
    return f"lanes {first}-{first + 1}"


class SeatRequests(Protocol):
    """Where seat requests are kept (``alley_poker.store.leagues.LeagueStore``)."""

    def raise_seat_request(self, match_id: str, lane: int, slot: int,
                           scorer_name: str) -> Any: ...

    def open_seat_requests(self, match_id: str | None = None) -> list[Any]: ...

    def resolve_seat_request(self, request_id: int, bowler_id: int, *, actor: str) -> Any: ...

    def dismiss_seat_request(self, request_id: int, *, actor: str) -> Any: ...

    def bowlers(self, league_id: str, *, include_retired: bool = False) -> list[Any]: ...


class SeatingError(ValueError):
    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class ScorerSeating:
    """Listens to the scorer's ``OPEN`` lines and seats league matches from them."""

    def __init__(self, service: AlleyService, requests: SeatRequests, *,
                 clock=time.monotonic):
        self.service = service
        self.requests = requests
        self.clock = clock
        # lane -> (heard at, slots, claimed: the line already went to a match)
        self._announced: dict[int, tuple[float, list[tuple[int, str]], bool]] = {}
        self._lock = threading.Lock()
        # A night started in another process (a web process, while this one reads the feed)
        # was laid out without the lines this one heard: seat its matches from them now.
        self.close = service.bus.subscribe(self._on_night_started)

    def _on_night_started(self, topic: str, message: dict[str, Any]) -> None:
        if topic != "alley" or message.get("kind") != "league_night_started":
            return
        for match_id in message.get("matches", ()):
            assignment = self.service.lanes.assignment(match_id)
            lanes = sorted({lane for (lane, _slot) in assignment.slots}) if assignment else []
            pair = sorted({*lanes, *(lane + 1 if lane % 2 else lane - 1 for lane in lanes)})
            for lane in pair:
                heard = self._heard(lane)
                if heard:
                    self._claim(lane)
                    try:
                        self._seat(match_id, lane, heard)
                    except (CommandRefused, ValueError) as problem:
                        log.warning("lane %s: not seated from the scorer: %s", lane, problem)

    def _heard(self, lane: int) -> list[tuple[int, str]]:
        """The scorer's latest line for ``lane``, unless it is last night's or already went
        to a match (an earlier league's, on the same lanes the same evening)."""
        with self._lock:
            at, slots, claimed = self._announced.get(lane, (float("-inf"), [], False))
        return list(slots) if not claimed and self.clock() - at < ANNOUNCEMENT_TTL_S else []

    def _claim(self, lane: int) -> None:
        """The line heard on ``lane`` went to a match: no later night is seated from it."""
        with self._lock:
            if lane in self._announced:
                at, slots, _claimed = self._announced[lane]
                self._announced[lane] = (at, slots, True)

    def announced(self) -> dict[int, list[tuple[int, str]]]:
        """Lanes the scorer opened lately and not yet given to a match: lane → slots."""
        now = self.clock()
        with self._lock:
            return {lane: list(slots) for lane, (at, slots, claimed) in self._announced.items()
                    if not claimed and now - at < ANNOUNCEMENT_TTL_S
                    and not self._unfinished_on(lane)}

    def on_lane_opened(self, event: LaneOpened) -> None:
        slots = [(seat.slot, seat.name) for seat in event.bowlers if seat.name.strip()]
        matches = self._matches_for(event.lane)
        with self._lock:
            self._announced[event.lane] = (self.clock(), slots, bool(matches))
        for match_id in matches:
            try:
                self._seat(match_id, event.lane, slots)
            except (CommandRefused, ValueError) as problem:
                log.warning("lane %s: not seated from the scorer: %s", event.lane, problem)

    def _matches_for(self, lane: int) -> list[str]:
        """Unfinished matches on ``lane`` or the other lane of its pair: a league match whose
        bowlers the scorer has all moved to one lane still owns the pair."""
        partner = lane + 1 if lane % 2 else lane - 1
        found = self._unfinished_on(lane)
        return found + [m for m in self._unfinished_on(partner) if m not in found]

    def _unfinished_on(self, lane: int) -> list[str]:
        return [m for m in self.service.lanes.matches_on(lane)
                if self.service.state(m).status not in FINISHED]

    def _seat(self, match_id: str, lane: int, named: list[tuple[int, str]]) -> None:
        state = self.service.state(match_id)
        tag = state.league
        if not tag:
            return  # a match made by hand keeps the slots the desk gave it
        roster = self.requests.bowlers(tag["league_id"], include_retired=True)
        current = dict(self.service.lanes.assignment(match_id).slots)
        wanted: dict[tuple[int, int], str] = {}
        unsure: list[tuple[int, str]] = []
        for slot, shown in named:
            seats = [p.name for p in who_is(shown, roster) if p.name in state.bowlers]
            if len(seats) == 1 and seats[0] not in wanted.values():
                wanted[(lane, slot)] = seats[0]
            else:
                unsure.append((slot, shown))
        slots = {key: name for key, name in current.items()
                 if key[0] != lane and name not in wanted.values()}
        slots.update(wanted)
        if slots != current:
            self.service.seat_bowlers(match_id, slots, actor=SCORER,
                                      reason=f"seated from the scorer's lane {lane} line")
        waiting = {r.id for r in self.requests.open_seat_requests(match_id)}
        for slot, shown in unsure:
            request = self.requests.raise_seat_request(match_id, lane, slot, shown)
            if request.id in waiting:
                continue  # the scorer opened the next game with the same names
            self.service.announce("alley", {
                "kind": "seat_request", "id": request.id, "match_id": match_id,
                "lane": lane, "slot": slot, "scorer_name": shown,
                "message": f"lane {lane} slot {slot}: the scorer shows {shown!r}, who is not "
                           f"one bowler of the match on {lanes_words(lane)}: pick who it "
                           "is"})
        self._apply_held(match_id, lane, [slot for (on, slot) in wanted])

    def pick(self, request_id: int, bowler: str, *, actor: str) -> str:
        """The desk says who the scorer's name is: seat them in that slot, apply held balls."""
        request = self._open_request(request_id)
        match_id, lane, slot = request.match_id, request.lane, request.slot
        state = self.service.state(match_id)
        people = (state.league or {}).get("people", {})
        if state.status in FINISHED:
            raise SeatingError(
                f"the match on {lanes_words(lane)} is already {ENDED[state.status]}, so "
                "nobody can be seated in it now: dismiss this request instead", "request_id")
        if bowler not in state.bowlers or bowler not in people:
            raise SeatingError(f"{bowler} is not a bowler of the match on {lanes_words(lane)}: "
                               "pick one of "
                               + ", ".join(b for b in state.bowlers if b in people), "bowler")
        current = self.service.lanes.assignment(match_id)
        slots = {key: name for key, name in (current.slots if current else {}).items()
                 if name != bowler and key != (lane, slot)}
        slots[(lane, slot)] = bowler
        self.service.seat_bowlers(
            match_id, slots, actor=actor,
            reason=f"the desk says the scorer's {request.scorer_name!r} is {bowler}")
        try:
            self.requests.resolve_seat_request(request_id, people[bowler], actor=actor)
        except ValueError as refused:  # picked meanwhile at another tablet
            raise SeatingError(str(refused), "request_id") from refused
        self.service.announce("alley", {"kind": "seat_request_resolved", "id": request_id,
                                        "match_id": match_id, "bowler": bowler})
        applied = self._apply_held(match_id, lane, [slot], actor=actor)
        return (f"{bowler} bowls in lane {lane} slot {slot}"
                + (f"; {applied} held ball(s) applied" if applied else ""))

    def dismiss(self, request_id: int, *, actor: str) -> str:
        """The desk closes a request without seating anyone (the match is over, or the name
        was nobody's); the slot's held balls stay on the held-balls list."""
        request = self._open_request(request_id)
        try:
            self.requests.dismiss_seat_request(request_id, actor=actor)
        except ValueError as refused:  # closed meanwhile at another tablet
            raise SeatingError(str(refused), "request_id") from refused
        self.service.announce("alley", {"kind": "seat_request_resolved", "id": request_id,
                                        "match_id": request.match_id, "bowler": None})
        return (f"dismissed: nobody is seated for the scorer's {request.scorer_name!r} in "
                f"lane {request.lane} slot {request.slot}; any balls held for that slot stay "
                "on the held-balls list")

    def _open_request(self, request_id: int) -> Any:
        request = next((r for r in self.requests.open_seat_requests()
                        if r.id == request_id), None)
        if request is None:
            raise SeatingError("that seat request is no longer open (already answered, or "
                               "dismissed)", "request_id")
        return request

    def _apply_held(self, match_id: str, lane: int, slots: list[int], *,
                    actor: str = SCORER) -> int:
        """Offer again the balls held because these slots had nobody: those held for this
        match, or for no match (before it took the lanes), never an earlier match's."""
        applied = 0
        waiting = sorted((item for item in self.service.held.open_items()
                          if item["lane"] == lane and item["slot"] in slots
                          and item["match_id"] in (None, match_id)
                          and item["bowler"] is None), key=lambda item: item["id"])
        for item in waiting:
            if self.service.router.apply_held(item["id"], actor=actor).done:
                applied += 1
        return applied
