"""Live pushes: Socket.IO rooms per lane and per match, fed from the service's bus.

A client joins with ``join`` ``{"lanes": "1-2"}`` (a kiosk: rooms ``lane:1`` and ``lane:2``) or
``{"match_id": "m1"}`` (room ``match:m1``) and at once receives a ``state`` message — the full
public state — for each match there, so a client that reconnects is whole again.  Each
``match:<id>`` bus message becomes one ``match_update`` to the match's room and the rooms of
its lanes: the public events, and what they changed in the public state — a patch of the
state this process pushed last (``base_seq``, ``seq``, ``patch``; see
:mod:`alley_poker.web.view_patch`), or the whole ``state`` when this process pushed none for
the match or another process changed it since.  A client whose state is not at ``base_seq``
joins again for a full state.  Each ``state`` and ``match_update`` also carries ``screen``:
each bowler's lane, whether they are up, running score and balls held for the desk
(:func:`alley_poker.web.api_screen.screen_facts`) as of that very state, so a screen follows
every ball — however fast they come — without a read of its own.  A ball held or taken off
the desk's held-ball list, or bowlers moved to other lane slots, change no state: the facts
are pushed as ``match_screen`` ``{"match_id", "seq", "screen"}`` to the rooms of the matches
concerned.  The live win odds, when the centre shows them (:mod:`alley_poker.service.live_odds`),
follow each change as a ``match_odds`` message ``{"match_id", "odds"}`` (and after the
``state`` of a join).
Bowlers' answers from the kiosk are handled in :mod:`alley_poker.web.kiosk_decisions`; a
kiosk joins with its ``device_token`` to be allowed them, and asks for one with
``pair_request`` (:mod:`alley_poker.web.kiosk_pairing`).

Rooms are named within the centre (``<centre>/lane:1``), so centres sharing one Redis
message queue never reach each other's kiosks.  Only the process that ran a command pushes
its update (:class:`MatchUpdates` ignores other processes' bus messages): with a
``message_queue`` Flask-SocketIO hands that one emit to every web process of the centre,
each of which pushes it to its own clients — once.  The ``worker`` pushes its updates the
same way through a write-only Socket.IO (:func:`external_emitter`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import request
from flask_limiter.util import get_remote_address
from flask_socketio import SocketIO, emit

from alley_poker.ledger.match_status import FINISHED
from alley_poker.service import AlleyService
from alley_poker.service.live_odds import LiveOdds
from alley_poker.web.api_screen import screen_facts
from alley_poker.web.errors import error_body
from alley_poker.web.kiosk import centre_lane_pair
from alley_poker.web.kiosk_decisions import register_decision_handlers
from alley_poker.web.kiosk_pairing import KioskGate
from alley_poker.web.phone_links import register_kiosk_codes
from alley_poker.web.phone_room import register_phone_room
from alley_poker.web.public import public_event, public_match_view
from alley_poker.web.rooms import bowler_room, enter, room
from alley_poker.web.side_pushes import push_side_change, register_side_room
from alley_poker.web.view_patch import view_patch

log = logging.getLogger(__name__)

#: The bus messages (topic ``alley``) that change a screen but no match state: a ball held
#: or taken off the held list, bowlers moved to other lane slots.
SCREEN_CHANGES = ("ball_held", "held_resolved", "lanes_reassigned")


def socketio_channel(centre: str) -> str:
    """The Redis channel on which a centre's processes hand each other their Socket.IO pushes:
    one per centre (as the bus is), so the centres of a chain sharing one Redis (or two test
    runs side by side) never receive each other's pushes at all.

    >>> socketio_channel("north")
    'alley:north:socketio'
    """
    return f"alley:{centre}:socketio"


def match_rooms(service: AlleyService, match_id: str) -> list[str]:
    """The rooms a change of ``match_id`` goes to: the match's, each of its lanes' and each
    of its bowlers' phones' (:mod:`alley_poker.web.rooms`)."""
    assignment = service.lanes.assignment(match_id)
    lanes = assignment.lanes if assignment else ()
    bowlers = service.shared_state(match_id).bowlers
    return [room(service.centre, name)
            for name in (f"match:{match_id}", *(f"lane:{lane}" for lane in lanes),
                         *(bowler_room(match_id, bowler) for bowler in bowlers))]


class MatchUpdates:
    """Subscribes to the bus; turns this process's ``match:<id>`` messages into pushes.

    ``socketio`` is anything with Flask-SocketIO's ``emit`` (the app's server, or a
    write-only one on the message queue in the worker).
    """

    def __init__(self, socketio: Any, service: AlleyService):
        self.socketio = socketio
        self.service = service
        # The public state last pushed per match: the base of the next patch.  Bus messages
        # of one match arrive in ledger order (the service publishes under a per-match lock).
        self._pushed: dict[str, dict[str, Any]] = {}
        self.unsubscribe = service.bus.subscribe(self.on_bus_message)

    def on_bus_message(self, topic: str, message: dict[str, Any]) -> None:
        if push_side_change(self.socketio, self.service, topic, message, match_rooms):
            return  # a night's side games changed (web/side_pushes.py)
        if not ((topic.startswith("match:") and message.get("kind") in ("events", "odds"))
                or (topic == "alley" and message.get("kind") in SCREEN_CHANGES)):
            return
        if message.get("origin", self.service.bus.origin) != self.service.bus.origin:
            return  # the process that ran the command pushes it, to every web process
        if topic == "alley":
            self.screen_changed(message)
            return
        match_id = topic.split(":", 1)[1]
        if message["kind"] == "odds":
            self.socketio.emit("match_odds", {"match_id": match_id, "odds": message["odds"]},
                               to=match_rooms(self.service, match_id), namespace="/")
            return
        events = [public_event(record) for record in message.get("events", [])]
        self.socketio.emit("match_update", self.update(match_id, events),
                           to=match_rooms(self.service, match_id), namespace="/")

    def update(self, match_id: str, events: list[dict[str, Any]]) -> dict[str, Any]:
        """The ``match_update`` for ``events``: a patch when the last state pushed is the
        one just before them, else the whole state."""
        shared = self.service.shared_state(match_id)
        state = public_match_view(shared)
        screen = screen_facts(self.service, shared)
        before = self._pushed.get(match_id)
        if state["status"] in FINISHED:
            self._pushed.pop(match_id, None)  # a finished match rarely changes again
        else:
            self._pushed[match_id] = state
        first_seq = events[0]["seq"] if events else None
        if before is None or first_seq is None or before["seq"] != first_seq - 1:
            return {"match_id": match_id, "events": events, "state": state, "screen": screen}
        return {"match_id": match_id, "events": events, "base_seq": before["seq"],
                "seq": state["seq"], "patch": view_patch(before, state), "screen": screen}

    def screen_changed(self, message: dict[str, Any]) -> None:
        """A ball was held or taken off the held list, or bowlers moved: the screens of the
        live matches concerned get their bowlers' facts (lanes, who is up, held) again."""
        match_id, lane = message.get("match_id"), message.get("lane")
        if match_id:
            concerned = [match_id]
        elif lane:
            concerned = self.service.lanes.matches_on(lane)
        else:  # many at once, or without saying where: every live match this process
            # pushes (a ball of no match may have counted for any match's unseated bowlers)
            concerned = sorted({*self._pushed, *(message.get("match_ids") or ())})
        for match_id in concerned:
            state = self.service.shared_state(match_id)
            if state.status in ("new", *FINISHED):
                continue
            self.socketio.emit("match_screen", {
                "match_id": match_id, "seq": state.seq,
                "screen": screen_facts(self.service, state)},
                to=match_rooms(self.service, match_id), namespace="/")


def external_emitter(service: AlleyService, message_queue: str) -> MatchUpdates:
    """Pushes from a process that serves no clients (the worker), through the queue."""
    return MatchUpdates(SocketIO(message_queue=message_queue,
                                 channel=socketio_channel(service.centre)), service)


class SocketBridge:
    """The app's live pushes (:class:`MatchUpdates`) and its clients' ``join`` requests."""

    def __init__(self, socketio: SocketIO, service: AlleyService,
                 gate: KioskGate | None = None, *, odds: LiveOdds | None = None):
        self.socketio = socketio
        self.service = service
        self.odds = odds  # the centre's live odds, when it shows them
        self.gate = gate if gate is not None else KioskGate(None)
        self.gate.is_connected = lambda sid: socketio.server.manager.is_connected(sid, "/")
        self._kiosk_lanes: dict[str, tuple[int, ...]] = {}
        self._lock = threading.Lock()
        self.updates = MatchUpdates(socketio, service)
        self.unsubscribe = self.updates.unsubscribe
        self._register_handlers()
        register_decision_handlers(socketio, service, self.kiosk_matches, self.gate)
        register_kiosk_codes(socketio, service, self.kiosk_matches, self.gate)
        register_phone_room(socketio, service)
        register_side_room(socketio, service)

    def on_bus_message(self, topic: str, message: dict[str, Any]) -> None:
        self.updates.on_bus_message(topic, message)

    def kiosk_matches(self, sid: str) -> list[str]:
        """The matches on the lanes the kiosk with Socket.IO session ``sid`` joined."""
        with self._lock:
            lanes = self._kiosk_lanes.get(sid, ())
        return self.matches_on(lanes)

    def matches_on(self, lanes: tuple[int, ...]) -> list[str]:
        found: list[str] = []
        for lane in lanes:
            found.extend(m for m in self.service.lanes.matches_on(lane) if m not in found)
        return found

    # --- clients → server ------------------------------------------------------------------
    def _register_handlers(self) -> None:
        socketio = self.socketio

        @socketio.on("join")
        def _join(data: Any) -> dict[str, Any]:
            data = data if isinstance(data, dict) else {}
            if "lanes" in data:
                try:
                    lanes = centre_lane_pair(data["lanes"])
                except ValueError as problem:
                    return error_body("bad_request", str(problem), 400, "lanes")[0]
                for lane in lanes:
                    enter(self.service.centre, f"lane:{lane}")
                with self._lock:
                    self._kiosk_lanes[request.sid] = lanes
                paired = self.gate.joined(request.sid, str(data["lanes"]),
                                          data.get("device_token"))
                match_ids = self.matches_on(lanes)
            elif isinstance(data.get("match_id"), str):
                enter(self.service.centre, f"match:{data['match_id']}")
                match_ids = [data["match_id"]]
            else:
                return error_body("bad_request", "join needs 'lanes' or 'match_id'", 400)[0]
            for match_id in match_ids:
                state = self.service.state(match_id)
                if state.status != "new":
                    emit("state", {"match_id": match_id, "state": public_match_view(state),
                                   "screen": screen_facts(self.service, state)})
                    odds = self.odds.latest(match_id) if self.odds is not None else None
                    if odds is not None:
                        emit("match_odds", {"match_id": match_id, "odds": odds})
            if "lanes" in data:
                # waiting: the code the kiosk shows still counts (else it asks for a new one)
                return {"ok": True, "matches": match_ids, "paired": paired,
                        "waiting": not paired and self.gate.waiting(request.sid)}
            return {"ok": True, "matches": match_ids}

        @socketio.on("pair_request")
        def _pair_request(data: Any) -> dict[str, Any]:
            return self.gate.pair_request(data, request.sid, get_remote_address())

        @socketio.on("disconnect")
        def _gone(*_reason: Any) -> None:
            with self._lock:
                self._kiosk_lanes.pop(request.sid, None)
            self.gate.left(request.sid)
