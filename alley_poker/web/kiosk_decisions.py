"""Bowlers answer their own pending decisions from the kiosk at their lanes (Socket.IO).

One event, ``decide`` ``{match_id, kind, bowler, ...}``, answers every kind of decision:
``lose-card`` ``{card}``, ``guess`` ``{side}``, ``guess-outcome`` ``{side}`` (the side the
ball came back on, after a guess: the bowler enters it, as docs/rules.md says they may),
``steal`` ``{from_bowler, card}``,
``end-draw`` ``{accept}`` and ``buy`` ``{accept}`` (each may carry ``decision_id``).  The body
is validated by the JSON API's pydantic model of the same command kind
(:data:`alley_poker.web.schemas.COMMAND_BODIES`), so the kiosk and the tablet accept exactly
the same answers, ``expected_seq`` (the stale-version check) included.

Only a kiosk the commissioner paired may answer, for a match on its own lanes (the lanes it
joined with its device token; :mod:`alley_poker.web.kiosk_pairing`), at most
``[kiosks] decisions_per_minute`` times a minute; the ledger then accepts the answer only for
the bowler whose decision is open, and only while it is.  A kiosk's "buy" (it spends the
bowler's money) is not run: it asks the desk, and the tablet confirms it.  The tap acts as
that bowler (``actor="bowler:<name>"``).  Every answer is
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
from alley_poker.web.kiosk_pairing import KioskGate
from alley_poker.web.schemas import COMMAND_BODIES, BuyBody, CommandBody

#: The decision kinds a kiosk may answer (command kinds of the JSON API).
DECISION_KINDS = ("lose-card", "guess", "guess-outcome", "steal", "end-draw", "buy")


def body_model_for(kind: str) -> type[CommandBody]:
    """The API's pydantic model validating a ``decide`` of ``kind`` (one of DECISION_KINDS).

    >>> body_model_for("lose-card").__name__
    'LoseCardBody'
    >>> body_model_for("void")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "a kiosk answers only lose-card, guess, guess-outcome, steal, ...; not 'void'"
    """
    if kind not in DECISION_KINDS:
        raise KeyError(f"a kiosk answers only {', '.join(DECISION_KINDS)}; not {kind!r}")
    return COMMAND_BODIES[kind]


def answer_decision(service: AlleyService, allowed_matches: list[str],
                    data: Any, *, commissioner_confirms_buys: bool = False) -> dict[str, Any]:
    """Validate and run one bowler's answer; the acknowledgement the kiosk receives.

    With ``commissioner_confirms_buys`` a buy is not run but announced to the tablet, which
    confirms it (the answer says ``"awaiting": "desk"``).
    """
    return decide_for_bowler(service, allowed_matches, data,
                             commissioner_confirms_buys=commissioner_confirms_buys)[0]


def decide_for_bowler(service: AlleyService, allowed_matches: list[str], data: Any, *,
                      commissioner_confirms_buys: bool = False) -> tuple[dict[str, Any], int]:
    """:func:`answer_decision` with the HTTP status of its answer (the phone's API sends
    it; a socket acknowledgement carries only the body)."""
    data = dict(data) if isinstance(data, dict) else {}
    match_id = data.pop("match_id", None)
    kind = data.pop("kind", None)
    if not isinstance(match_id, str) or match_id not in allowed_matches:
        return error_body("forbidden", "this kiosk's lanes have no such match", 403,
                          "match_id")
    try:
        body_model = body_model_for(kind if isinstance(kind, str) else "")
    except KeyError as unknown:
        return error_body("bad_request", unknown.args[0], 400, "kind")
    try:
        body = body_model.model_validate(data)
        if commissioner_confirms_buys and isinstance(body, BuyBody) and body.accept:
            return ask_the_desk(service, match_id, body)
        service.execute(match_id, body.to_command(actor=f"bowler:{body.bowler}"),
                        expected_seq=body.expected_seq)
    except ValidationError as invalid:
        problem = validation_error(invalid)
        return error_body(problem.code, problem.message, 422, problem.field)
    except CommandRefused as refused:
        return error_body(refusal_code(refused), refused.reason, 409, refused.field)
    return {"ok": True}, 200


def ask_the_desk(service: AlleyService, match_id: str,
                 body: BuyBody) -> tuple[dict[str, Any], int]:
    """A buy tapped at a kiosk: the tablet is told, and confirms it (or not)."""
    state = service.state(match_id)
    if not any(decision.get("kind") == "buy" for decision in state.pending_for(body.bowler)):
        return error_body("command_refused", f"{body.bowler} has no buy to decide now", 409,
                          "bowler")
    message = f"{body.bowler} asks to buy a card at the kiosk: confirm it on the tablet"
    service.announce("alley", {"kind": "buy_requested", "match_id": match_id,
                               "bowler": body.bowler, "message": message})
    return {"ok": True, "awaiting": "desk", "message": message}, 200


def register_decision_handlers(socketio: SocketIO, service: AlleyService,
                               kiosk_matches: Callable[[str], list[str]],
                               gate: KioskGate) -> None:
    """Handle decision answers; ``kiosk_matches(sid)`` lists the matches on a kiosk's lanes,
    ``gate`` says whether the socket is a paired kiosk within its rate."""

    def _answer(data: Any) -> dict[str, Any]:
        refused = gate.may_decide(request.sid)
        if refused is not None:
            return refused
        return answer_decision(service, kiosk_matches(request.sid), data,
                               commissioner_confirms_buys=True)

    @socketio.on("decide")
    def _decide(data: Any) -> dict[str, Any]:
        return _answer(data)

    @socketio.on("decide_lose_card")
    def _decide_lose_card(data: Any) -> dict[str, Any]:
        data = dict(data) if isinstance(data, dict) else {}
        data["kind"] = "lose-card"
        return _answer(data)
