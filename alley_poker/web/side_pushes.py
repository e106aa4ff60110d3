"""Live pushes of a night's side games (brackets, pots): ``side_changed`` to the screens.

The side games publish each change of a night on the bus (topic ``side:<night id>``, kind
``side_events``; :mod:`alley_poker.service.side_nights`).  A screen is told *that* the night
changed, never *what*: ``side_changed`` ``{"night_id", "kind"}`` goes to the desk's room of
the night (the tablet joins it with ``side_join`` ``{"night_id"}``, signed in only) and to
the rooms of each of the night's matches (its kiosks' lanes, its bowlers' phones), and each
screen reads again what it may see (the desk's whole night, a phone's own brackets, a
kiosk's still-alive list: :mod:`alley_poker.web.api_side_games`).  So no money or roster id
ever rides a push to a public room.  As with the matches' pushes, only the process that made
the change pushes it (through the message queue to every web process).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask_socketio import SocketIO

from alley_poker.service import AlleyService
from alley_poker.service.settlement import centre_match_ids
from alley_poker.web.auth import is_commissioner
from alley_poker.web.errors import error_body
from alley_poker.web.rooms import enter, room

#: The bus kinds of a ``side:`` topic that change what a screen shows.
SIDE_KINDS = ("side_events", "side_draw_refused")
#: A night id as the league makes them (``tue-2026-11-24``): a room name, so checked.
NIGHT_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,80}")


def commissioner_room(night_id: str) -> str:
    """The room of the commissioner screens following a night.

    >>> commissioner_room("tue-2026-11-24")
    'side:tue-2026-11-24'
    """
    return f"side:{night_id}"


#: A match's rooms (``sockets.match_rooms``: its own, its lanes', its bowlers' phones').
MatchRooms = Callable[[AlleyService, str], list[str]]


def side_rooms(service: AlleyService, night_id: str, match_rooms: MatchRooms) -> list[str]:
    """The rooms a change of the night's side games goes to: the desk's, and each of the
    night's matches' rooms."""
    rooms = [room(service.centre, commissioner_room(night_id))]
    for match_id in centre_match_ids(service):
        if match_id.startswith(night_id + "-"):
            rooms.extend(r for r in match_rooms(service, match_id) if r not in rooms)
    return rooms


def push_side_change(socketio: Any, service: AlleyService, topic: str,
                     message: dict[str, Any], match_rooms: MatchRooms) -> bool:
    """Push ``side_changed`` for a ``side:`` bus message of this process; whether it did."""
    if not topic.startswith("side:") or message.get("kind") not in SIDE_KINDS:
        return False
    if message.get("origin", service.bus.origin) != service.bus.origin:
        return False
    night_id = topic.split(":", 1)[1]
    socketio.emit("side_changed", {"night_id": night_id, "kind": message["kind"]},
                  to=side_rooms(service, night_id, match_rooms), namespace="/")
    return True


def register_side_room(socketio: SocketIO, service: AlleyService) -> None:
    """``side_join`` ``{"night_id"}``: the signed-in desk follows a night's side games."""
    @socketio.on("side_join")
    def _side_join(data: Any) -> dict[str, Any]:
        if not is_commissioner():
            return error_body("unauthorized", "sign in at the desk first", 401)[0]
        night_id = data.get("night_id") if isinstance(data, dict) else None
        if not isinstance(night_id, str) or not NIGHT_ID.fullmatch(night_id):
            return error_body("bad_request", "side_join needs a night_id such as "
                              "'tue-2026-11-24'", 400, "night_id")[0]
        enter(service.centre, commissioner_room(night_id))
        return {"ok": True, "night_id": night_id}
