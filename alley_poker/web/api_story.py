"""``GET /api/v1/matches/<id>/story``: a settled or void match's story in plain words
(docs/api.md), open to every screen like the export; 409 while the match is in play."""

from __future__ import annotations

from flask import Blueprint, jsonify

from alley_poker.service.match_story import StoryRefused, match_story_report
from alley_poker.web.api_request import API_PREFIX, finished_match_report

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_story", __name__, url_prefix=API_PREFIX)


@api.get("/matches/<match_id>/story")
def match_story(match_id: str):
    return jsonify(finished_match_report(match_id, match_story_report, StoryRefused))
