"""The tablet's story page of a match (``/commissioner/matches/<id>/story``): the
projection :mod:`alley_poker.ledger.story` of a settled or void match, printable; a match
still in play gets a sentence saying when its story is told."""

from __future__ import annotations

from typing import Any

from flask import abort

from alley_poker.service.match_story import StoryRefused, match_story_report
from alley_poker.web.api_request import alley
from alley_poker.web.auth import is_commissioner
from alley_poker.web.commissioner_pages import commissioner, commissioner_page
from alley_poker.web.match_titles import match_title


@commissioner.get("/matches/<match_id>/story")
def match_story_page(match_id: str):
    if not is_commissioner():
        return commissioner_page("commissioner_story.html")
    service = alley()
    if service.state(match_id).status == "new":
        abort(404)
    context: dict[str, Any] = {"match_id": match_id, "title": match_title(service, match_id),
                               "story": None, "refused": ""}
    try:
        context["story"] = match_story_report(service, match_id)
    except StoryRefused as refused:
        refusal = str(refused)  # a sentence: its first letter up, one full stop
        context["refused"] = refusal[:1].upper() + refusal[1:] + \
            ("" if refusal.endswith((".", "!", "?")) else ".")
    return commissioner_page("commissioner_story.html", **context)


def sheet_stories(sheet: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The story of each finished match of a night sheet (the sheet printed "with the
    stories"); a match still in play has none."""
    service = alley()
    stories = {}
    for match in sheet["matches"]:
        try:
            stories[match["match_id"]] = match_story_report(service, match["match_id"])
        except StoryRefused:
            continue
    return stories
