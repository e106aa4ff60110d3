"""The phone's JSON: ``GET /api/v1/phone/me`` (the bowler, their match and what the lane's
kiosk shows of it) and ``POST /api/v1/phone/decisions`` (the bowler's own pending decision,
answered through the same validation and ledger commands as the kiosk and the tablet,
:func:`~alley_poker.web.kiosk_decisions.decide_for_bowler`, once per request id).  Docs:
docs/phone.md."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from alley_poker.service import AlleyService
from alley_poker.store.phone_links import PhoneLink
from alley_poker.web.api_request import API_PREFIX, alley, validated_body
from alley_poker.web.api_screen import match_screen
from alley_poker.web.errors import ApiError, error_body
from alley_poker.web.kiosk_decisions import decide_for_bowler
from alley_poker.web.phone_schemas import PhoneDecisionBody
from alley_poker.web.phone_session import link_store, phone_link

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("phone_api", __name__, url_prefix=API_PREFIX)


def phone_screen(service: AlleyService, link: PhoneLink) -> dict[str, Any] | None:
    """The match as the kiosk shows it (its lanes, who is up, running scores, balls held
    for the desk, and the live odds in its state when the centre shows them)."""
    state = service.state(link.match_id)
    if state.status == "new":
        return None
    return match_screen(service, state)


@api.get("/phone/me")
def phone_me():
    link = phone_link("read")
    return jsonify({"bowler": link.bowler, "match_id": link.match_id,
                    "night_date": link.night_date.isoformat(),
                    "expires_at": link.expires_at.isoformat(),
                    "screen": phone_screen(alley(), link)})


@api.post("/phone/decisions")
def phone_decide():
    link = phone_link("decide")
    body = validated_body(PhoneDecisionBody)
    if body.bowler is not None and body.bowler != link.bowler:
        raise ApiError(403, "forbidden", f"this phone answers for {link.bowler} only",
                       "bowler")
    if body.match_id is not None and body.match_id != link.match_id:
        raise ApiError(403, "forbidden", f"this phone answers in match {link.match_id} only",
                       "match_id")
    links = link_store()
    assert links is not None  # phone_link found the link there
    earlier = links.claim_request(link.id, body.request_id)
    if earlier is not None:
        answer, status = earlier
        return jsonify({**answer, "replayed": True} if status == 200 else answer), status
    try:
        answer, status = decide_for_bowler(
            alley(), [link.match_id],
            {**body.answer(), "match_id": link.match_id, "kind": body.kind,
             "bowler": link.bowler})
    except Exception:
        links.finish_request(link.id, body.request_id, *error_body(
            "server_error", "the decision could not be answered", 500))
        raise
    if status == 200:
        answer = {"ok": True, "replayed": False}
    links.finish_request(link.id, body.request_id, answer, status)
    return jsonify(answer), status
