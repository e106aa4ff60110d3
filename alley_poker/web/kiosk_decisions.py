"""Bowlers answer their own pending decisions from the kiosk at their lanes (Socket.IO).

One event, ``decide`` ``{match_id, kind, bowler, ...}``, answers every kind of decision:
``lose-card`` ``{card}``, ``guess`` ``{side}``, ``steal`` ``{from_bowler, card}``,
``end-draw`` ``{accept}`` and ``buy`` ``{accept}`` (each may carry ``decision_id``).  The body
is validated by the JSON API's pydantic model of the same command kind
(:data:`alley_poker.web.schemas.COMMAND_BODIES`), so the kiosk and the tablet accept exactly
the same answers, ``expected_seq`` (the stale-version check) included.

A kiosk may answer a decision only for a match on its own lanes (the lanes it joined); the
ledger then accepts the answer only for the bowler whose decision is open, and only while
it is.  The tap acts as that bowler (``actor="bowler:<name>"``).  Every answer is
acknowledged with ``{"ok": true}`` or the API's error body ``{"error": {code, message,
field}}``.  ``decide_lose_card`` (the first kiosk event) is kept as a name for
``decide`` with ``kind: "lose-card"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import request
from flask_socketio import SocketIO
from pydantic import ValidationError

from alley_poker.ledger import CommandRefused
from alley_poker.service import AlleyService
from alley_poker.web.errors import error_body, refusal_code, validation_error
from alley_poker.web.schemas import COMMAND_BODIES, CommandBody

#: The decision kinds a kiosk may answer (command kinds of the JSON API).
DECISION_KINDS = ("lose-card", "guess", "steal", "end-draw", "buy")


def body_model_for(kind: str) -> type[CommandBody]:
    """The API's pydantic model validating a ``decide`` of ``kind`` (one of DECISION_KINDS).

    >>> body_model_for("lose-card").__name__
    'LoseCardBody'
    >>> body_model_for("void")
    Traceback (most recent call last):
    ...
    KeyError: "a kiosk answers only lose-card, guess, steal, end-draw, buy; not 'void'"
    """
    if kind not in DECISION_KINDS:
        raise KeyError(f"a kiosk answers only {', '.join(DECISION_KINDS)}; not {kind!r}")
    return COMMAND_BODIES[kind]


def answer_decision(service: AlleyService, allowed_matches: list[str],
                    data: Any) -> dict[str, Any]:
    """Validate and run one bowler's answer; the acknowledgement the kiosk receives."""
    data = dict(data) if isinstance(data, dict) else {}
    match_id = data.pop("match_id", None)
    kind = data.pop("kind", None)
    if not isinstance(match_id, str) or match_id not in allowed_matches:
        return error_body("forbidden", "this kiosk's lanes have no such match", 403,
                          "match_id")[0]
    try:
        body_model = body_model_for(kind if isinstance(kind, str) else "")
    except KeyError as unknown:
        return error_body("bad_request", unknown.args[0], 400, "kind")[0]
    try:
        body = body_model.model_validate(data)
        service.execute(match_id, body.to_command(actor=f"bowler:{body.bowler}"),
                        expected_seq=body.expected_seq)
    except ValidationError as invalid:
        problem = validation_error(invalid)
        return error_body(problem.code, problem.message, 422, problem.field)[0]
    except CommandRefused as refused:
        return error_body(refusal_code(refused), refused.reason, 409, refused.field)[0]
    return {"ok": True}


def register_decision_handlers(socketio: SocketIO, service: AlleyService,
                               kiosk_matches: Callable[[str], list[str]]) -> None:
    """Handle decision answers; ``kiosk_matches(sid)`` lists the matches on a kiosk's lanes."""

    @socketio.on("decide")
    def _decide(data: Any) -> dict[str, Any]:
        return answer_decision(service, kiosk_matches(request.sid), data)

    @socketio.on("decide_lose_card")
    def _decide_lose_card(data: Any) -> dict[str, Any]:
        data = dict(data) if isinstance(data, dict) else {}
        data["kind"] = "lose-card"
        return answer_decision(service, kiosk_matches(request.sid), data)
