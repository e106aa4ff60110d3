"""What the JSON API's routes (``/api/v1``) and the tablet's pages read of a request and the app.

The service behind the app, a match's state (404 for one this centre never created), the
request's body validated by a pydantic schema.  The API's routes live by concern, each module a
blueprint of its own under :data:`API_PREFIX` (``api_reads``, ``api_commands``, ``api_held``,
``api_reports``, ``api_story``, ``api_screen``, ``api_leagues``, ``api_league_reports``,
``kiosk_pairing``, ``phone``, ``phone_links``, ``tokens``), registered by the app factory
(:func:`alley_poker.web.create_app`).  Reading is open to every screen (the state is public; the
draw pile's order never leaves the server).  Settlement, audit and API tokens need the
commissioner; every command needs the commissioner session and the CSRF token in the
``X-CSRFToken`` header, or an API token (``Authorization: Bearer``).  Bodies and query strings
are validated by pydantic schemas (``schemas``, ``queries``) and commands judged by the ledger
(a refusal is a 409 naming the field).  ``docs/api.md`` describes them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import request
from pydantic import BaseModel, ValidationError

from alley_poker.ledger import MatchState
from alley_poker.service import AlleyService
from alley_poker.service.settlement import centre_match_ids
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, validation_error
from alley_poker.web.match_titles import match_title

#: Where every route of the JSON API lives.
API_PREFIX = "/api/v1"

Body = TypeVar("Body", bound=BaseModel)


def alley() -> AlleyService:
    """The service behind the current app."""
    return current_centre().service


def known_match_ids(service: AlleyService) -> list[str]:
    """Every match of this centre the store knows (sorted)."""
    return sorted(centre_match_ids(service))


def existing_state(service: AlleyService, match_id: str) -> MatchState:
    """The match's state; 404 for a match this centre never created."""
    if len(match_id) > 64:  # no stored match has a longer id (the store refuses them)
        raise ApiError(404, "not_found", "no match with so long an id", "match_id")
    state = service.state(match_id)
    if state.status == "new":
        raise ApiError(404, "not_found", f"no match {match_id!r}", "match_id")
    return state


def existing_match(match_id: str) -> AlleyService:
    """The service, once it knows ``match_id`` (404 for a match this centre never created)."""
    service = alley()
    existing_state(service, match_id)
    return service


def finished_match_report(match_id: str, report: Callable[[AlleyService, str], Any],
                          refused: type[Exception]) -> Any:
    """What ``report`` makes of a settled or void match (its export, its story); 404 for an
    unknown match, 409 ``not_finished`` while ``report`` refuses it (the match in play)."""
    service = existing_match(match_id)
    try:
        return report(service, match_id)
    except refused as refusal:
        raise ApiError(409, "not_finished", str(refusal), "match_id") from None


def match_summary(service: AlleyService, match_id: str) -> dict[str, Any]:
    state = service.state(match_id)
    assignment = service.lanes.assignment(match_id)
    return {"match_id": match_id, "title": match_title(service, match_id),
            "status": state.status,
            "lanes": list(assignment.lanes) if assignment else [],
            "bowlers": list(state.bowlers), "pot_cents": state.pot_cents}


def json_payload() -> Any:
    """The request's body read as JSON, or None when it is not JSON.

    The json module parses nesting by recursion: a body of thousands of ``[`` raises
    RecursionError (not the ValueError that ``silent`` swallows), which would answer 500.
    """
    try:
        return request.get_json(silent=True)
    except RecursionError:
        raise ApiError(400, "bad_request", "the body is nested too deeply to read",
                       None) from None


def validated_body(model: type[Body], *, empty_allowed: bool = False) -> Body:
    """The request's JSON body validated by ``model`` (400 not an object, 422 invalid).

    A body over ``MAX_CONTENT_LENGTH`` is answered 413 by Flask before it is read.
    """
    if empty_allowed and not request.get_data():
        payload: Any = {}
    else:
        payload = json_payload()
    if not isinstance(payload, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object", None)
    try:
        return model.model_validate(payload)
    except ValidationError as invalid:
        raise validation_error(invalid) from None
