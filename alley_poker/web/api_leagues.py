"""Leagues in ``/api/v1``: the leagues, their rosters, their nights and the scorer's seat
requests.

Everything here names people and money, so every route needs the commissioner (the tablet's
session with its CSRF token, or an API token).  A body that is not the right shape is 422
naming the field (pydantic); one the league's rules refuse is 400 naming the field (the
domain's :class:`~alley_poker.league.LeagueError`); a league, bowler or night that exists
already is 409; an unknown one 404.  Nothing is half-written: the store takes a change whole
or not at all, and a roster file with one bad row imports nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from datetime import UTC, date, datetime
from typing import Any

from flask import Blueprint, jsonify

from alley_poker.league import (
    Bowler,
    BowlerDraft,
    HandicapRule,
    League,
    LeagueError,
    LeagueNotFound,
    RosterImportError,
    night_date_of,
    parse_start_time,
    to_local,
)
from alley_poker.ledger.match_status import FINISHED
from alley_poker.service.league_desk import LeagueDesk
from alley_poker.service.league_nights import LeagueAverage, LeagueNightError, handicap_of
from alley_poker.service.seating import SeatingError
from alley_poker.store.event_store import as_utc
from alley_poker.web.api_request import (
    API_PREFIX,
    alley,
    json_payload,
    known_match_ids,
    match_summary,
    validated_body,
)
from alley_poker.web.auth import acting_commissioner, commissioner_required
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError
from alley_poker.web.league_schemas import (
    AddBowlerBody,
    CreateLeagueBody,
    EditBowlerBody,
    PickSeatBody,
    RosterImportBody,
    StartNightBody,
    UpdateLeagueBody,
)
from alley_poker.web.queries import RosterQuery, validated_query

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_leagues", __name__, url_prefix=API_PREFIX)

#: Ids above this are not in any database (64-bit keys): answered 404 without asking.
MAX_ID = 2**63


def league_desk() -> LeagueDesk:
    desk = current_centre().league_desk
    if desk is None:
        raise ApiError(503, "leagues_unavailable", "leagues need the event store's database")
    return desk


#: The commissioner acting through these routes (and the side games', which import it).
actor = acting_commissioner


@contextmanager
def league_rules() -> Iterator[None]:
    """The league's refusals as 400s naming the field."""
    try:
        yield
    except RosterImportError:
        raise
    except LeagueNotFound as missing:
        raise ApiError(404, "not_found", str(missing), missing.field) from None
    except (LeagueError, LeagueNightError, SeatingError) as refused:
        raise ApiError(400, "bad_request", str(refused), refused.field) from None


def tonight(league: League) -> date:
    """The night the league is bowling now, in its own time zone (after midnight, the night
    that began the evening before)."""
    return night_date_of(league, datetime.now(UTC))


def existing_league(league_id: str) -> League:
    """The league, or 404 naming ``league_id``."""
    if len(league_id) <= 32:
        try:
            return league_desk().store.league(league_id)
        except LeagueNotFound:
            pass
    raise ApiError(404, "not_found", f"no league {league_id!r}", "league_id")


def existing_bowler(league: League, bowler_id: int) -> Bowler:
    """The league's bowler, or 404 naming ``bowler_id`` (another league's is not found)."""
    found = None
    if bowler_id < MAX_ID:
        try:
            found = league_desk().store.bowler(bowler_id)
        except LeagueNotFound:
            found = None
    if found is None or found.league_id != league.league_id:
        raise ApiError(404, "not_found", f"no bowler {bowler_id} in {league.name}", "bowler_id")
    return found


def league_view(league: League) -> dict[str, Any]:
    return {"league_id": league.league_id, "name": league.name, "rule_book": league.rule_book,
            "ante_cents": league.ante_cents, "weekday": league.weekday,
            "weekday_name": league.weekday_name, "start_time": league.start_time_text,
            "time_zone": league.time_zone,
            "lane_pairs": [list(pair) for pair in league.lane_pairs], "games": league.games,
            "handicap_percent": league.handicap.percent,
            "handicap_basis": league.handicap.basis,
            "handicap": str(league.handicap), "lowest_draw_by": league.lowest_draw_by,
            "tonight": tonight(league).isoformat()}


def league_records(league: League) -> LeagueAverage:
    """Each bowler's (games, average) in ``league`` so far, from one read of the standings:
    what a night's start reads for the handicap it records."""
    with league_desk().standings.reading() as projection:
        records = {row.bowler_id: (row.games, row.average)
                   for row in projection.standings(league.league_id)
                   if row.average is not None}
    return records.get


def bowler_view(league: League, bowler: Bowler,
                records: LeagueAverage | None = None) -> dict[str, Any]:
    """A bowler as the roster shows them; ``handicap`` is tonight's, by the same rule a
    night's start records (a "league" basis uses the league average once it counts)."""
    records = records if records is not None else league_records(league)
    return {**asdict(bowler), "handicap": handicap_of(bowler, league, records)}


def league_from(body: CreateLeagueBody | UpdateLeagueBody, base: League | None) -> League:
    """The League a body describes (over ``base`` for a change), checked by the domain."""
    given = body.model_dump() if base is None else body.changes()
    settings: dict[str, Any] = {}
    for key in ("league_id", "name", "rule_book", "ante_cents", "weekday", "time_zone",
                "games", "lowest_draw_by"):
        if key in given:
            settings[key] = given[key]
    if "start_time" in given:
        settings["start_time"] = parse_start_time(given["start_time"])
    if "lane_pairs" in given:
        settings["lane_pairs"] = tuple(tuple(pair) for pair in given["lane_pairs"])
    if "handicap_percent" in given or "handicap_basis" in given or base is None:
        old = base.handicap if base is not None else HandicapRule()
        settings["handicap"] = HandicapRule(
            percent=given.get("handicap_percent", old.percent),
            basis=given.get("handicap_basis", old.basis))
    return replace(base, **settings) if base is not None else League(**settings)


# --- leagues ---------------------------------------------------------------------------------
@api.get("/leagues")
@commissioner_required
def list_leagues():
    return jsonify({"leagues": [league_view(league) for league in league_desk().store.leagues()]})


@api.post("/leagues")
@commissioner_required
def create_league():
    body = validated_body(CreateLeagueBody)
    store = league_desk().store
    if any(known.league_id == body.league_id for known in store.leagues()):
        raise ApiError(409, "conflict", f"there is a league {body.league_id!r} already",
                       "league_id")
    with league_rules():
        league = league_from(body, None)
        store.create_league(league)
    return jsonify(league_view(league)), 201


@api.get("/leagues/<league_id>")
@commissioner_required
def get_league(league_id: str):
    return jsonify(league_view(existing_league(league_id)))


@api.put("/leagues/<league_id>")
@commissioner_required
def update_league(league_id: str):
    body = validated_body(UpdateLeagueBody)
    league = existing_league(league_id)
    with league_rules():
        changed = league_from(body, league)
        league_desk().store.update_league(changed)
    return jsonify(league_view(changed))


# --- the roster ------------------------------------------------------------------------------
@api.get("/leagues/<league_id>/bowlers")
@commissioner_required
def list_roster(league_id: str):
    query = validated_query(RosterQuery)
    league = existing_league(league_id)
    bowlers = league_desk().store.bowlers(league.league_id,
                                          include_retired=query.include_retired)
    records = league_records(league)
    return jsonify({"bowlers": [bowler_view(league, b, records) for b in bowlers]})


@api.post("/leagues/<league_id>/bowlers")
@commissioner_required
def add_bowler(league_id: str):
    body = validated_body(AddBowlerBody)
    league = existing_league(league_id)
    with league_rules():
        draft = BowlerDraft(**body.model_dump())
        bowler = league_desk().store.add_bowler(league.league_id, draft)
    return jsonify(bowler_view(league, bowler)), 201


@api.patch("/leagues/<league_id>/bowlers/<int:bowler_id>")
@commissioner_required
def edit_bowler(league_id: str, bowler_id: int):
    body = validated_body(EditBowlerBody)
    league = existing_league(league_id)
    bowler = existing_bowler(league, bowler_id)
    changes = body.changes()
    active = changes.pop("active", None)
    store = league_desk().store
    with league_rules():
        if changes:
            bowler = store.update_bowler(bowler.bowler_id, **changes)
        if active is False and bowler.active:
            bowler = store.retire(bowler.bowler_id)
        elif active is True and not bowler.active:
            bowler = store.reactivate(bowler.bowler_id)
    return jsonify(bowler_view(league, store.bowler(bowler_id)))


@api.post("/leagues/<league_id>/roster")
@commissioner_required
def import_roster(league_id: str):
    body = validated_body(RosterImportBody)
    league = existing_league(league_id)
    try:
        with league_rules():
            added = league_desk().store.import_roster(league.league_id, body.csv)
    except RosterImportError as bad:
        rows = [{"line": line, "reason": reason} for line, reason in bad.problems]
        return jsonify({"error": {"code": "bad_roster", "message": str(bad), "field": "csv",
                                  "rows": rows}}), 400
    records = league_records(league)
    return jsonify({"imported": len(added),
                    "bowlers": [bowler_view(league, b, records) for b in added]}), 201


# --- nights ----------------------------------------------------------------------------------
def night_view(league: League, night: Any) -> dict[str, Any]:
    started = getattr(night, "started_at", None)
    return {"night_id": night.night_id, "night_date": night.night_date.isoformat(),
            "checked_in": list(night.checked_in),
            "started_at": to_local(league, started).isoformat() if started else None,
            "started_by": getattr(night, "started_by", None),
            "matches": night_matches(night.night_id)}


def night_matches(night_id: str) -> list[dict[str, Any]]:
    """The night's matches (their ids start with the night's: ``tue-2026-11-24-1-2``)."""
    service = alley()
    return [match_summary(service, match_id) for match_id in known_match_ids(service)
            if match_id.startswith(night_id + "-")
            and (service.state(match_id).league or {}).get("night_id") == night_id]


@api.get("/leagues/<league_id>/nights")
@commissioner_required
def list_nights(league_id: str):
    league = existing_league(league_id)
    nights = league_desk().store.nights(league.league_id)
    return jsonify({"time_zone": league.time_zone,
                    "tonight": tonight(league).isoformat(),
                    "nights": [night_view(league, night) for night in nights]})


@api.post("/leagues/<league_id>/nights")
@commissioner_required
def start_night(league_id: str):
    body = validated_body(StartNightBody)
    league = existing_league(league_id)
    desk = league_desk()
    night_date = body.night_date or tonight(league)
    if any(night.night_date == night_date for night in desk.store.nights(league.league_id)):
        raise ApiError(409, "conflict", f"the night of {night_date.isoformat()} has already "
                       f"started for {league.name}", "night_date")
    with league_rules():
        started = desk.nights.start(league.league_id, body.checked_in, actor=actor(),
                                    night_date=night_date)
    service = alley()
    lanes = {match_id: list(service.lanes.assignment(match_id).lanes)
             for match_id in started.matches}
    return jsonify({"night_id": started.night_id, "night_date": night_date.isoformat(),
                    "matches": [{"match_id": match_id, "lanes": lanes[match_id],
                                 "kiosk": f"/kiosk/{lanes[match_id][0]}-{lanes[match_id][-1]}",
                                 "bowlers": list(service.state(match_id).bowlers)}
                                for match_id in started.matches]}), 201


# --- seat requests ---------------------------------------------------------------------------
@api.get("/seat-requests")
@commissioner_required
def list_seat_requests():
    service = alley()
    waiting = league_desk().store.open_seat_requests()
    return jsonify({"seat_requests": [
        seat_request_view(request, service.state(request.match_id)) for request in waiting]})


def seat_request_view(request: Any, state: Any) -> dict[str, Any]:
    """An open seat request, with the match's bowlers the desk may pick from; ``can_seat``
    is False once the match is over (the desk can only dismiss it then)."""
    return {"id": request.id, "match_id": request.match_id, "lane": request.lane,
            "slot": request.slot, "scorer_name": request.scorer_name,
            "raised_at": as_utc(request.raised_at).isoformat(),
            "choices": list(state.bowlers), "match_status": state.status,
            "can_seat": state.status not in FINISHED}


@api.post("/seat-requests/<int:request_id>/pick")
@commissioner_required
def pick_seat(request_id: int):
    # No default bowler: a pick that names nobody is refused, never read as the first one.
    payload = json_payload()
    if isinstance(payload, dict) and not str(payload.get("bowler") or "").strip():
        raise ApiError(422, "validation_failed", "choose who the scorer's name is: no bowler "
                                                 "was picked, so nobody was seated", "bowler")
    body = validated_body(PickSeatBody)
    desk = league_desk()
    if request_id >= MAX_ID or not any(
            request.id == request_id for request in desk.store.open_seat_requests()):
        raise ApiError(404, "not_found", f"no open seat request {request_id}", "request_id")
    try:
        message = desk.seating.pick(request_id, body.bowler, actor=actor())
    except (SeatingError, LeagueError) as refused:
        status = 409 if refused.field == "request_id" else 400
        raise ApiError(status, "conflict" if status == 409 else "bad_request", str(refused),
                       refused.field) from None
    return jsonify({"done": True, "message": message, "id": request_id})


@api.post("/seat-requests/<int:request_id>/dismiss")
@commissioner_required
def dismiss_seat(request_id: int):
    """Close a seat request without seating anyone (its match is over, or the name was
    nobody's); the slot's held balls stay on the held-balls list."""
    desk = league_desk()
    if request_id >= MAX_ID or not any(
            request.id == request_id for request in desk.store.open_seat_requests()):
        raise ApiError(404, "not_found", f"no open seat request {request_id}", "request_id")
    try:
        message = desk.seating.dismiss(request_id, actor=actor())
    except (SeatingError, LeagueError) as refused:
        raise ApiError(409, "conflict", str(refused), refused.field) from None
    return jsonify({"done": True, "message": message, "id": request_id})
