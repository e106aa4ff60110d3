"""The bowler's room: a phone's socket joins it (``phone_join``) and receives every
``match_update`` and ``match_odds`` of the bowler's match (:mod:`alley_poker.web.rooms`); the
page joins again on every reconnection and when the phone wakes, and so is whole again."""

from __future__ import annotations

from typing import Any

from flask_socketio import SocketIO, emit

from alley_poker.service import AlleyService
from alley_poker.web.api_screen import screen_facts
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, error_body
from alley_poker.web.phone_session import phone_link
from alley_poker.web.public import public_match_view
from alley_poker.web.rooms import bowler_room, enter


def register_phone_room(socketio: SocketIO, service: AlleyService) -> None:
    """``phone_join``: the socket joins its bowler's room and receives the match's state, then
    its latest odds (when the centre shows them), as a kiosk's ``join`` does."""
    @socketio.on("phone_join")
    def _phone_join(*_data: Any) -> dict[str, Any]:
        try:
            link = phone_link("read")
        except ApiError as refused:
            return error_body(refused.code, refused.message, refused.status)[0]
        enter(service.centre, bowler_room(link.match_id, link.bowler))
        state = service.state(link.match_id)
        if state.status != "new":
            emit("state", {"match_id": link.match_id, "state": public_match_view(state),
                           "screen": screen_facts(service, state)})
            odds = current_centre().odds
            odds = odds.latest(link.match_id) if odds is not None else None
            if odds is not None:
                emit("match_odds", {"match_id": link.match_id, "odds": odds})
        return {"ok": True, "match_id": link.match_id, "bowler": link.bowler}
