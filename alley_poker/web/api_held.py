"""Held balls in ``/api/v1``: the feed balls the router could not place, and the desk's
actions on them — apply one, discard one with a reason, discard many with one reason (all or
none), re-sync a bowler from the scorer."""

from __future__ import annotations

from flask import Blueprint, jsonify

from alley_poker.service.held import held_view
from alley_poker.web.api_request import API_PREFIX, alley, existing_match, validated_body
from alley_poker.web.auth import acting_commissioner, commissioner_required
from alley_poker.web.errors import ApiError
from alley_poker.web.queries import HeldQuery, validated_query
from alley_poker.web.schemas import (
    ApplyHeldBody,
    DiscardHeldBody,
    DiscardManyHeldBody,
    ResyncBody,
)

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_held", __name__, url_prefix=API_PREFIX)


def _answer(outcome, **extra):
    if not outcome.done:
        raise ApiError(409, "not_done", outcome.message)
    return jsonify({"done": True, "message": outcome.message, **extra})


@api.get("/held")
@commissioner_required
def list_held():
    query = validated_query(HeldQuery)
    held = alley().held
    items = (held.open_items(query.match_id) if query.state == "open"
             else held.resolved_items(query.match_id))
    return jsonify({"held": [held_view(item) for item in items]})


def _existing_held(item_id: int) -> None:
    if item_id >= 2**63 or alley().held.get(item_id) is None:
        raise ApiError(404, "not_found", f"no held ball {item_id}", "item_id")


@api.post("/held/<int:item_id>/apply")
@commissioner_required
def apply_held(item_id: int):
    validated_body(ApplyHeldBody, empty_allowed=True)
    _existing_held(item_id)
    return _answer(alley().router.apply_held(item_id, actor=acting_commissioner()), id=item_id)


@api.post("/held/<int:item_id>/discard")
@commissioner_required
def discard_held(item_id: int):
    body = validated_body(DiscardHeldBody)
    _existing_held(item_id)
    return _answer(alley().router.discard_held(item_id, actor=acting_commissioner(),
                                               reason=body.reason), id=item_id)


@api.post("/held/discard")
@commissioner_required
def discard_many_held():
    """One reason for many held balls, one command: every one is discarded, or none (an id
    that is unknown: 404; one already resolved: 409)."""
    body = validated_body(DiscardManyHeldBody)
    if not body.reason.strip():
        raise ApiError(422, "validation_failed", "give a reason for discarding the balls: it "
                                                 "goes into the audit trail", "reason")
    held = alley().held
    unknown = sorted({item_id for item_id in body.ids if held.get(item_id) is None})
    if unknown:
        raise ApiError(404, "not_found",
                       f"no held ball {', '.join(map(str, unknown[:10]))}"
                       f"{' and more' if len(unknown) > 10 else ''}: nothing was discarded",
                       "ids")
    ids = sorted(set(body.ids))
    return _answer(alley().router.discard_many(ids, actor=acting_commissioner(),
                                               reason=body.reason),
                   discarded=len(ids), ids=ids)


@api.post("/matches/<match_id>/resync")
@commissioner_required
def resync(match_id: str):
    service = existing_match(match_id)
    body = validated_body(ResyncBody)
    return _answer(service.router.resync(match_id, body.bowler, actor=acting_commissioner()),
                   match_id=match_id, bowler=body.bowler)
