"""Side games (brackets, pots) in ``/api/v1``: the desk's, a bowler's phone's, a kiosk's.

The desk (commissioner: the tablet's session with its CSRF token, or an API token) works on
``/leagues/<league_id>/nights/<night_date>/side-games``: opens the night's side games, sets
each game, records entries and what was paid, withdraws them, seals the draw, records
roll-offs, absences and payments, answers a paid result the games changed, reveals the seed,
and reads the whole night (trees, pots, money), its export and its CSVs.  A body of the wrong
shape is 422 naming the field; one the side games' rules refuse is 400 naming the field; a
night without side games is 404; one whose first ball is bowled refuses a draw with 409.
A refused command writes nothing.

A bowler's phone reads ``/phone/side-games`` (its link's bowler only); a lane pair's kiosk
reads ``/lanes/<pair>/side-games`` (public: who on its lanes is still alive where, by seat
name; no money, no roster ids).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, jsonify

from alley_poker.league import League
from alley_poker.league.calendar import night_id as night_id_for
from alley_poker.service.side_export import side_night_export
from alley_poker.service.side_feed import night_of
from alley_poker.service.side_nights import SideNightError, SideNights
from alley_poker.side_games import (
    MarkAbsent,
    PayBracket,
    PayPot,
    RecordEntry,
    RecordRollOff,
    ResolveChange,
    SetSideGame,
    SideGameError,
    SideNight,
    WithdrawEntry,
)
from alley_poker.side_games.csv_exports import brackets_csv, side_money_csv
from alley_poker.side_games.settings import settings_from_data
from alley_poker.web.api_league_reports import night_date_from
from alley_poker.web.api_leagues import actor, existing_bowler, existing_league, league_desk
from alley_poker.web.api_reports import csv_file
from alley_poker.web.api_request import API_PREFIX, alley, validated_body
from alley_poker.web.auth import commissioner_required
from alley_poker.web.errors import ApiError
from alley_poker.web.kiosk import api_lane_pair
from alley_poker.web.phone_session import phone_link
from alley_poker.web.side_game_schemas import (
    AbsenceBody,
    ChangeBody,
    EmptyBody,
    EntryBody,
    PaymentBody,
    RollOffBody,
    SideGameBody,
    WithdrawBody,
)
from alley_poker.web.side_game_views import alive_view, bowler_view, commissioner_view, money_view

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_side_games", __name__, url_prefix=API_PREFIX)

NIGHT = "/leagues/<league_id>/nights/<night_date>/side-games"


def side_games() -> SideNights:
    return league_desk().side_games


@contextmanager
def side_rules() -> Iterator[None]:
    """The side games' refusals as errors naming the field (nothing was written)."""
    try:
        yield
    except SideGameError as refused:
        raise ApiError(400, "bad_request", str(refused), refused.field) from None
    except SideNightError as refused:
        code = "not_found" if refused.status == 404 else "conflict"
        raise ApiError(refused.status, code, str(refused), refused.field) from None


def names_of(league: League) -> dict[int, str]:
    return {b.bowler_id: b.name
            for b in league_desk().store.bowlers(league.league_id, include_retired=True)}


def night_of_url(league_id: str, night_date: str) -> tuple[League, str]:
    league = existing_league(league_id)
    return league, night_id_for(league.league_id, night_date_from(night_date))


def existing_night(night_id: str) -> SideNight:
    night = side_games().night(night_id)
    if night is None:
        raise ApiError(404, "not_found", f"night {night_id} has no side games: open them "
                       "first", "night_date")
    return night


def answer(league: League, night_id: str, status: int = 200):
    """The desk's whole night, as the command left it."""
    return jsonify(commissioner_view(existing_night(night_id), names_of(league))), status


def desk_act(league_id: str, night_date: str, act: Callable[[League, str], Any]):
    """Do ``act`` (the league and the night id given) on an open night for the desk."""
    league, night_id = night_of_url(league_id, night_date)
    existing_night(night_id)
    with side_rules():
        act(league, night_id)
    return answer(league, night_id)


def command(league_id: str, night_date: str, make: Callable[[League, str], Any]):
    """Run the command ``make`` builds (the league and the night id given) for the desk."""
    return desk_act(league_id, night_date, lambda league, night_id: side_games().run(
        night_id, make(league, night_id), actor=actor()))


# --- the desk --------------------------------------------------------------------------------
@api.post(NIGHT)
@commissioner_required
def open_side_games(league_id: str, night_date: str):
    validated_body(EmptyBody, empty_allowed=True)
    league, night_id = night_of_url(league_id, night_date)
    if side_games().night(night_id) is not None:
        raise ApiError(409, "conflict", f"the side games of {night_id} are open already",
                       "night_date")
    with side_rules():
        side_games().open(league, night_date_from(night_date), actor=actor())
        side_games().feed_night(night_id)
    return answer(league, night_id, 201)


@api.get(NIGHT)
@commissioner_required
def get_side_games(league_id: str, night_date: str):
    league, night_id = night_of_url(league_id, night_date)
    return answer(league, night_id)


@api.put(f"{NIGHT}/games/<game>")
@commissioner_required
def set_side_game(league_id: str, night_date: str, game: str):
    body = validated_body(SideGameBody)

    def make(_league: League, _night: str) -> Any:
        return SetSideGame(game, settings_from_data(body.root.model_dump()))
    return command(league_id, night_date, make)


def _bowler(league: League, bowler_id: int) -> int:
    return existing_bowler(league, bowler_id).bowler_id


@api.post(f"{NIGHT}/entries")
@commissioner_required
def record_entry(league_id: str, night_date: str):
    body = validated_body(EntryBody)
    return command(league_id, night_date, lambda league, _n: RecordEntry(
        body.game, _bowler(league, body.bowler), body.entries, body.paid_cents))


@api.post(f"{NIGHT}/withdrawals")
@commissioner_required
def withdraw_entry(league_id: str, night_date: str):
    body = validated_body(WithdrawBody)
    return command(league_id, night_date, lambda league, _n: WithdrawEntry(
        body.game, _bowler(league, body.bowler), body.entries))


@api.post(f"{NIGHT}/draw")
@commissioner_required
def draw(league_id: str, night_date: str):
    validated_body(EmptyBody, empty_allowed=True)
    return desk_act(league_id, night_date,
                    lambda _league, night_id: side_games().draw(night_id, actor=actor()))


@api.post(f"{NIGHT}/reveal")
@commissioner_required
def reveal(league_id: str, night_date: str):
    validated_body(EmptyBody, empty_allowed=True)
    return desk_act(league_id, night_date,
                    lambda _league, night_id: side_games().reveal(night_id, actor=actor()))


@api.post(f"{NIGHT}/absences")
@commissioner_required
def mark_absent(league_id: str, night_date: str):
    body = validated_body(AbsenceBody)
    return command(league_id, night_date, lambda league, _n: MarkAbsent(
        _bowler(league, body.bowler), body.game))


@api.post(f"{NIGHT}/roll-offs")
@commissioner_required
def roll_off(league_id: str, night_date: str):
    body = validated_body(RollOffBody)
    return command(league_id, night_date, lambda _l, _n: RecordRollOff(
        body.game, body.bracket, body.round, body.match - 1, body.winner))


@api.post(f"{NIGHT}/payments")
@commissioner_required
def pay(league_id: str, night_date: str):
    body = validated_body(PaymentBody)
    return command(league_id, night_date, lambda _l, _n: (
        PayPot(body.game, body.as_they_stand) if body.bracket is None
        else PayBracket(body.game, body.bracket)))


@api.post(f"{NIGHT}/changes")
@commissioner_required
def resolve_change(league_id: str, night_date: str):
    body = validated_body(ChangeBody)
    return command(league_id, night_date, lambda _l, _n: ResolveChange(
        body.game, body.bracket, body.accept, body.reason))


@api.get(f"{NIGHT}/money")
@commissioner_required
def side_money(league_id: str, night_date: str):
    league, night_id = night_of_url(league_id, night_date)
    return jsonify(money_view(existing_night(night_id), names_of(league)))


@api.get(f"{NIGHT}/export")
@commissioner_required
def side_export(league_id: str, night_date: str):
    _league, night_id = night_of_url(league_id, night_date)
    with side_rules():
        return jsonify(side_night_export(side_games(), night_id))


@api.get("/side-nights/<night_id>/export")
def public_side_export(night_id: str):
    """A bracket night's export for anyone (/verify loads it by night id), once the night's
    close revealed the draw's seed, as a match's export is public once it is settled:
    before that it is 409 (the desk's own export, above, is there at any time)."""
    night = side_games().night(night_id)
    if night is None:
        raise ApiError(404, "not_found", f"night {night_id!r} has no side games", "night_id")
    if night.seed is None:
        raise ApiError(409, "conflict", f"night {night_id!r} is not closed yet: its draw can "
                       "be checked once the seed is revealed at the night's close", "night_id")
    with side_rules():
        return jsonify(side_night_export(side_games(), night_id))


#: The night's CSV files: what each holds.
CSV_FILES = {"money": lambda night, names: side_money_csv(night.money(), names),
             "brackets": brackets_csv}


@api.get(f"{NIGHT}/money.csv", defaults={"kind": "money"})
@api.get(f"{NIGHT}/brackets.csv", defaults={"kind": "brackets"})
@commissioner_required
def side_csv(league_id: str, night_date: str, kind: str):
    league, night_id = night_of_url(league_id, night_date)
    night = existing_night(night_id)
    suffix = "side-money" if kind == "money" else kind
    return csv_file(f"{night_id}-{suffix}.csv", CSV_FILES[kind](night, names_of(league)))


# --- a bowler's phone ------------------------------------------------------------------------
@api.get("/phone/side-games")
def phone_side_games():
    link = phone_link("read")
    state = alley().state(link.match_id)
    night_id = night_of(state)
    bowler = (state.league or {}).get("people", {}).get(link.bowler)
    night = side_games().night(night_id) if night_id and bowler is not None else None
    if night is None:
        return jsonify({"bowler": link.bowler, "night_id": night_id, "side_games": None})
    names = {b: seat for seat, b in (state.league or {}).get("people", {}).items()}
    names.update(names_of(existing_league(night.league_id)))
    return jsonify({"bowler": link.bowler, "night_id": night_id,
                    "side_games": bowler_view(night, bowler, names)})


# --- a lane pair's kiosk (public) ------------------------------------------------------------
@api.get("/lanes/<lane_pair>/side-games")
def lane_side_games(lane_pair: str):
    lanes = api_lane_pair(lane_pair)
    service = alley()
    seats: dict[int, str] = {}
    night_id = None
    for lane in lanes:
        for match_id in service.lanes.matches_on(lane):
            state = service.state(match_id)
            night_id = night_of(state) or night_id
            seats.update({bowler: seat for seat, bowler in
                          (state.league or {}).get("people", {}).items()
                          if seat in state.bowlers})
    night = side_games().night(night_id) if night_id else None
    return jsonify({"lanes": list(lanes), "night_id": night_id,
                    "drawn": bool(night and night.drawn),
                    "alive": alive_view(night, seats) if night else []})
