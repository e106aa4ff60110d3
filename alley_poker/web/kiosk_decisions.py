"""Bowlers answer their own pending decisions from the kiosk at their lanes (Socket.IO).

A kiosk may answer a decision only for a match on its own lanes (the lanes it joined); the
ledger then accepts the answer only for the bowler whose decision is open, and only while
it is.  The tap acts as that bowler (``actor="bowler:<name>"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import request
from flask_socketio import SocketIO
from pydantic import ValidationError

from alley_poker.ledger import CommandRefused
from alley_poker.service import AlleyService
from alley_poker.web.errors import error_body, validation_error
from alley_poker.web.schemas import LoseCardBody


def register_decision_handlers(socketio: SocketIO, service: AlleyService,
                               kiosk_matches: Callable[[str], list[str]]) -> None:
    """Handle decision answers; ``kiosk_matches(sid)`` lists the matches on a kiosk's lanes."""

    @socketio.on("decide_lose_card")
    def _decide(data: Any) -> dict[str, Any]:
        data = dict(data) if isinstance(data, dict) else {}
        match_id = data.pop("match_id", None)
        if not isinstance(match_id, str) or match_id not in kiosk_matches(request.sid):
            return error_body("forbidden", "this kiosk's lanes have no such match", 403,
                              "match_id")[0]
        try:
            body = LoseCardBody.model_validate(data)
            service.execute(match_id, body.to_command(actor=f"bowler:{body.bowler}"))
        except ValidationError as invalid:
            problem = validation_error(invalid)
            return error_body(problem.code, problem.message, 422, problem.field)[0]
        except CommandRefused as refused:
            return error_body("command_refused", refused.reason, 409, refused.field)[0]
        return {"ok": True}
