"""The JSON API, ``/api/v1``: matches, their public state, and commands.

Reading is open to every screen (the state is public).  Every command needs the commissioner
session and the CSRF token in the ``X-CSRFToken`` header; its body is validated by the pydantic
schema of its kind and judged by the ledger (a refusal is a 409 naming the field).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request
from pydantic import ValidationError

from alley_poker.ledger import event_to_record
from alley_poker.service import AlleyService
from alley_poker.web.auth import COMMISSIONER_ACTOR, commissioner_required
from alley_poker.web.errors import ApiError, validation_error
from alley_poker.web.openapi import openapi_document
from alley_poker.web.public import public_event, public_match_view
from alley_poker.web.schemas import COMMAND_BODIES

api = Blueprint("api", __name__, url_prefix="/api/v1")


def alley() -> AlleyService:
    """The service behind the current app."""
    return current_app.extensions["alley_service"]


def known_match_ids(service: AlleyService) -> list[str]:
    """Every match the store knows (sorted)."""
    ids: set[str] = set()
    store = getattr(service.repository, "store", None)
    if store is not None and hasattr(store, "match_ids"):
        ids.update(store.match_ids())
    return sorted(ids)


def existing_state(service: AlleyService, match_id: str):
    state = service.state(match_id)
    if state.status == "new":
        raise ApiError(404, "not_found", f"no match {match_id!r}", "match_id")
    return state


def match_summary(service: AlleyService, match_id: str) -> dict[str, Any]:
    state = service.state(match_id)
    assignment = service.lanes.assignment(match_id)
    return {"match_id": match_id, "status": state.status,
            "lanes": list(assignment.lanes) if assignment else [],
            "bowlers": list(state.bowlers), "pot_cents": state.pot_cents}


@api.get("/matches")
def list_matches():
    service = alley()
    return jsonify({"matches": [match_summary(service, match_id)
                                for match_id in known_match_ids(service)]})


@api.get("/matches/<match_id>")
def get_match(match_id: str):
    return jsonify(public_match_view(existing_state(alley(), match_id)))


@api.post("/matches/<match_id>/commands/<kind>")
@commissioner_required
def run_command(match_id: str, kind: str):
    body_model = COMMAND_BODIES.get(kind)
    if body_model is None:
        raise ApiError(404, "unknown_command",
                       f"no command {kind!r}; known: {', '.join(sorted(COMMAND_BODIES))}",
                       "kind")
    payload = request.get_json(silent=True)
    if not isinstance(payload, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object", None)
    try:
        body = body_model.model_validate(payload)
    except ValidationError as invalid:
        raise validation_error(invalid) from None
    service = alley()
    existing_state(service, match_id)
    events = service.execute(match_id, body.to_command(actor=COMMISSIONER_ACTOR))
    return jsonify({"match_id": match_id, "seq": service.state(match_id).seq,
                    "events": [public_event(event_to_record(e)) for e in events]})


@api.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())
