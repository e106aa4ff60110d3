"""Commands of ``/api/v1``: create a match, move bowlers between lane slots, and every ledger
command by its kind.  The commissioner (session + CSRF, or an API token) is the actor; a
bowler's decision run here is the commissioner deciding on the bowler's behalf."""

from __future__ import annotations

from flask import Blueprint, jsonify

from alley_poker.ledger import CommandRefused, event_to_record
from alley_poker.ledger.rules import RuleBook, RuleBookError
from alley_poker.ledger.undo import undoable_action
from alley_poker.service.lanes import LaneAssignmentError
from alley_poker.web.api_request import API_PREFIX, alley, existing_match, validated_body
from alley_poker.web.auth import acting_commissioner, commissioner_required
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, error_body
from alley_poker.web.public import public_event, public_match_view
from alley_poker.web.schemas import (
    COMMAND_BODIES,
    CreateMatchBody,
    LaneSlots,
    ReassignLanesBody,
    UndoLastBody,
)

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_commands", __name__, url_prefix=API_PREFIX)


def _slots_view(match_id: str) -> dict:
    assignment = alley().lanes.assignment(match_id)
    slots = assignment.slots if assignment else {}
    return {"match_id": match_id, "lanes": list(assignment.lanes) if assignment else [],
            "slots": [{"lane": lane, "slot": slot, "bowler": bowler}
                      for (lane, slot), bowler in sorted(slots.items())]}


def lanes_of_this_centre(body: LaneSlots) -> None:
    """422 ``unknown_lane`` for a slot on a lane the centre does not have (``[centre] lanes``
    of its configuration), naming the lanes it has."""
    configured = current_centre().config.centre.lanes
    for index, slot in enumerate(body.slots):
        if slot.lane > int(configured):
            raise ApiError(422, "unknown_lane",
                           f"lane {slot.lane} is not a lane of this centre; its lanes are "
                           f"1-{int(configured)}", f"slots.{index}.lane")


def rules_of_a_match(rules: dict | None) -> None:
    """422 ``validation_failed`` for rule changes the rule book refuses (an unknown key, a
    wrong type), before anything is stored."""
    try:
        RuleBook.default().with_overrides(rules)
    except RuleBookError as refused:
        raise ApiError(422, "validation_failed", str(refused), "rules") from None


@api.post("/matches")
@commissioner_required
def create_match():
    body = validated_body(CreateMatchBody)
    lanes_of_this_centre(body)
    rules_of_a_match(body.rules)
    service = alley()
    if service.state(body.match_id).status != "new":
        raise ApiError(409, "match_exists", f"match {body.match_id!r} already exists",
                       "match_id")
    try:
        service.create_match(body.match_id, body.as_mapping(), games=body.games,
                             ante_cents=body.ante_cents, rules=body.rules,
                             actor=acting_commissioner(), seat_order=body.seat_order)
    except LaneAssignmentError as taken:
        raise ApiError(409, "lanes_taken", str(taken), "slots") from None
    return jsonify(public_match_view(service.state(body.match_id))), 201


@api.put("/matches/<match_id>/lanes")
@commissioner_required
def reassign_lanes(match_id: str):
    body = validated_body(ReassignLanesBody)
    service = existing_match(match_id)
    lanes_of_this_centre(body)
    try:
        service.reassign_lanes(match_id, body.as_mapping(), actor=acting_commissioner(),
                               reason=body.reason)
    except LaneAssignmentError as taken:
        raise ApiError(409, "lanes_taken", str(taken), "slots") from None
    return jsonify(_slots_view(match_id))


@api.get("/matches/<match_id>/lanes")
def match_lanes(match_id: str):
    existing_match(match_id)
    return jsonify(_slots_view(match_id))


@api.get("/matches/<match_id>/undo")
@commissioner_required
def undoable(match_id: str):
    """What "Undo last action" would take back now (null when nothing can be), in words."""
    service = existing_match(match_id)
    return jsonify({"match_id": match_id,
                    "undoable": undoable_action(service.shared_state(match_id))})


@api.post("/matches/<match_id>/commands/<kind>")
@commissioner_required
def run_command(match_id: str, kind: str):
    body_model = COMMAND_BODIES.get(kind)
    if body_model is None:
        raise ApiError(404, "unknown_command",
                       f"no command {kind!r}; known: {', '.join(sorted(COMMAND_BODIES))}",
                       "kind")
    body = validated_body(body_model, empty_allowed=body_model is not UndoLastBody)
    service = existing_match(match_id)
    try:
        events = service.execute(match_id, body.to_command(actor=acting_commissioner()),
                                 expected_seq=body.expected_seq)
    except CommandRefused as refused:
        if isinstance(body, UndoLastBody) and refused.field == "action":
            # Another action became the last one meanwhile: say which, so the desk can
            # confirm that one instead of undoing something it never saw.
            reply, status = error_body("undo_moved", refused.reason, 409, "action")
            reply["undoable"] = undoable_action(service.shared_state(match_id))
            return jsonify(reply), status
        raise
    return jsonify({"match_id": match_id, "seq": service.state(match_id).seq,
                    "events": [public_event(event_to_record(e)) for e in events]})

