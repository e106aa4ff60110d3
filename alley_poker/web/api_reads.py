"""Public reads of ``/api/v1``: lanes, matches, bowlers, hands, decisions, reviews, events,
feeds, the OpenAPI document, and a finished match's export.  Open to every screen; nothing
here reveals the pile order of a match still in play."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from alley_poker.ledger.views import bowler_view, pending_view
from alley_poker.service.fair_export import ExportRefused, match_export
from alley_poker.web.api_request import (
    API_PREFIX,
    alley,
    existing_match,
    existing_state,
    finished_match_report,
    known_match_ids,
    match_summary,
)
from alley_poker.web.centre_access import current_centre
from alley_poker.web.openapi import openapi_document
from alley_poker.web.public import public_event, public_match_view, with_odds
from alley_poker.web.queries import EventsQuery, validated_query

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_reads", __name__, url_prefix=API_PREFIX)


def lane_pair(lane: int) -> str:
    """The pair a lane is bowled in: lanes 1-2, 3-4, ...

    >>> lane_pair(1), lane_pair(2), lane_pair(7)
    ('1-2', '1-2', '7-8')
    """
    first = lane if lane % 2 else lane - 1
    return f"{first}-{first + 1}"


@api.get("/lanes")
def list_lanes():
    service = alley()
    slots_by_lane: dict[int, list[dict[str, Any]]] = {}
    matches_by_lane: dict[int, list[str]] = {}
    for match_id in known_match_ids(service):
        assignment = service.lanes.assignment(match_id)
        if assignment is None:
            continue
        for lane in assignment.lanes:
            matches_by_lane.setdefault(lane, []).append(match_id)
        for (lane, slot), bowler in sorted(assignment.slots.items()):
            slots_by_lane.setdefault(lane, []).append(
                {"slot": slot, "bowler": bowler, "match_id": match_id})
    lanes = range(1, current_centre().config.centre.lanes + 1)
    return jsonify({"lanes": [
        {"lane": lane, "pair": lane_pair(lane), "matches": matches_by_lane.get(lane, []),
         "slots": sorted(slots_by_lane.get(lane, []), key=lambda s: s["slot"])}
        for lane in lanes]})


@api.get("/matches")
def list_matches():
    service = alley()
    return jsonify({"matches": [match_summary(service, match_id)
                                for match_id in known_match_ids(service)]})


@api.get("/matches/<match_id>")
def get_match(match_id: str):
    service = alley()
    return jsonify(with_odds(public_match_view(existing_state(service, match_id)),
                             current_centre().odds))


@api.get("/matches/<match_id>/bowlers")
def list_bowlers(match_id: str):
    service = alley()
    state = existing_state(service, match_id)
    view = public_match_view(state)
    assignment = service.lanes.assignment(match_id)
    where = {bowler: key for key, bowler in (assignment.slots if assignment else {}).items()}
    bowlers = []
    for seat, bowler in enumerate(state.bowlers, start=1):
        entry = view["bowlers"][bowler]
        lane, slot = where.get(bowler, (None, None))
        bowlers.append({"bowler": bowler, "seat": seat, "lane": lane, "slot": slot,
                        "game": entry["game"], "scoresheet": entry["scoresheet"],
                        "hole": entry["hole"], "paid_cents": entry["paid_cents"],
                        "won_cents": entry["won_cents"], "pending": len(entry["pending"])})
    return jsonify({"match_id": match_id, "bowlers": bowlers})


@api.get("/matches/<match_id>/hands")
def list_hands(match_id: str):
    state = existing_state(alley(), match_id)
    hands = []
    for bowler in state.bowlers:
        view = bowler_view(state, bowler)
        hands.append({"bowler": bowler, "cards": view["hand"], "hole": view["hole"],
                      "category": view["category"], "describe": view["describe"],
                      "unbeatable": view["unbeatable"]})
    return jsonify({"match_id": match_id, "hands": hands})


@api.get("/matches/<match_id>/pending")
def list_pending(match_id: str):
    state = existing_state(alley(), match_id)
    pending = [{"bowler": decision["bowler"], **pending_view(state, decision)}
               for decision in state.decisions.values()]
    return jsonify({"match_id": match_id, "pending": pending})


@api.get("/matches/<match_id>/reviews")
def list_reviews(match_id: str):
    state = existing_state(alley(), match_id)
    return jsonify({"match_id": match_id,
                    "reviews": [dict(review) for review in state.reviews.values()]})


@api.get("/matches/<match_id>/events")
def list_events(match_id: str):
    service = existing_match(match_id)
    query = validated_query(EventsQuery)
    records = service.repository.store.load(match_id, after_seq=query.since)[:query.limit]
    events = [public_event(record) for record in records]
    return jsonify({"match_id": match_id, "events": events,
                    "next_since": events[-1]["seq"] if events else query.since})


@api.get("/feeds")
def list_feeds():
    board = current_centre().feed_status
    feeds = board.current() if board is not None else []
    # Held balls turn a feed's lanes amber: the scorer is talking, but not every ball counts.
    held = alley().held_counts()
    for feed in feeds:
        feed["held"] = sum(held.get(lane, 0) for lane in feed.get("lanes", []))
        if feed["held"] and feed.get("state") == "green":
            feed["state"] = "amber"
    # The night's close: matches still in play after it (the feed board's alarm); null before.
    night = current_centre().night_close
    return jsonify({"feeds": feeds, "night_close": night.current() if night else None})


@api.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


@api.get("/matches/<match_id>/export")
def export_match(match_id: str):
    """The match's whole log with its revealed seed and chain head (docs/fairness.md), for
    anyone to verify; only once it is settled or void (before, the log holds the pile)."""
    return jsonify(finished_match_report(match_id, match_export, ExportRefused))
