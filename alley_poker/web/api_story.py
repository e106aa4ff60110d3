"""``GET /api/v1/matches/<id>/story``: a settled or void match's story in plain words
(docs/api.md), open to every screen like the export; 409 while the match is in play."""

from __future__ import annotations

from flask import Blueprint, jsonify

from alley_poker.service.match_story import StoryRefused, match_story_report
from alley_poker.web.api_request import API_PREFIX, alley, existing_state
from alley_poker.web.errors import ApiError

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_story", __name__, url_prefix=API_PREFIX)


@api.get("/matches/<match_id>/story")
def match_story(match_id: str):
    service = alley()
    existing_state(service, match_id)
    try:
        return jsonify(match_story_report(service, match_id))
    except StoryRefused as refused:
        raise ApiError(409, "not_finished", str(refused), "match_id") from None
