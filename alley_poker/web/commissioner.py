"""The commissioner's tablet: PIN sign-in (rate-limited by the app factory) and its pages.

The pages are rendered here and filled by small scripts that read and command through the
JSON API (``/api/v1``).  Two small JSON routes of the tablet's own live here because they
need the bowling rules rather than the ledger's public state:

- ``GET /commissioner/board.json``: per match and bowler, the lane, game, frame and ball
  coming up, the pins that ball faces, and who is up on each lane;
- ``GET /commissioner/pins.json?before=…&standing=…``: the pin diagram's answer - how many
  pins fell and whether the leave is a split, by :func:`alley_poker.bowling.is_split` (the
  same rule the ledger applies), so the tablet never carries a copy of the rule.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify, redirect, render_template, request, url_for

from alley_poker.bowling import BowlingError
from alley_poker.bowling.pins import PINS, format_leave, is_split
from alley_poker.ledger import RuleBook
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.state import MatchState
from alley_poker.service import AlleyService
from alley_poker.web.api_request import alley, known_match_ids, match_summary
from alley_poker.web.auth import (
    commissioner_required,
    is_commissioner,
    pin_matches,
    sign_in,
    sign_out,
)
from alley_poker.web.centre_access import current_centre
from alley_poker.web.commissioner_pages import commissioner, commissioner_page
from alley_poker.web.errors import ApiError
from alley_poker.web.lanes_page import is_tonight, lanes_order, match_night
from alley_poker.web.match_titles import match_title
from alley_poker.web.queries import PinsQuery, validated_query


@commissioner.get("")
def dashboard():
    if not is_commissioner():
        return render_template("commissioner_sign_in.html", problem=None)
    service = alley()
    matches = [{**summary, **night_of(service, summary["match_id"], summary["status"])}
               for summary in (match_summary(service, match_id)
                               for match_id in known_match_ids(service))]
    return commissioner_page("commissioner_dashboard.html", groups=lanes_order(matches))


def night_of(service: AlleyService, match_id: str, status: str) -> dict[str, Any]:
    """Whether the match is tonight's business, and its night (the Lanes page's order)."""
    night = match_night(service, match_id)
    return {"tonight": is_tonight(service, match_id, status),
            "night": night.isoformat() if night else None}


def house_switches() -> list[tuple[str, bool]]:
    """The house rule book's on/off rules and their settings, offered when creating a match.

    >>> dict(house_switches())["buy_in"]
    True
    """
    book = RuleBook.default()
    return [(key, getattr(book, key)) for key, field in RuleBook.model_fields.items()
            if field.annotation is bool]


@commissioner.get("/new-match")
def new_match():
    return commissioner_page("commissioner_new_match.html", rule_book=RuleBook.default().name,
                       switches=house_switches())


@commissioner.get("/manual-entry")
def manual_entry():
    return commissioner_page("commissioner_manual_entry.html",
                       match_id=request.args.get("match_id", ""))


@commissioner.get("/settlement")
def settlement():
    return commissioner_page("commissioner_settlement.html")


@commissioner.get("/audit")
def audit():
    return commissioner_page("commissioner_audit.html")


@commissioner.get("/phones")
def phones():
    return commissioner_page("commissioner_phones.html")


@commissioner.get("/tokens")
def tokens():
    return commissioner_page("commissioner_tokens.html")


@commissioner.post("/sign-in")
def sign_in_with_pin():
    pin = request.form.get("pin", "")
    if not pin_matches(current_centre().config.commissioner.pin_hash, pin):
        return render_template("commissioner_sign_in.html",
                               problem="That PIN is not right."), 401
    sign_in()
    return redirect(url_for("commissioner.dashboard"))


@commissioner.post("/sign-out")
@commissioner_required
def sign_out_commissioner():
    sign_out()
    return redirect(url_for("commissioner.dashboard"))


# --- the tablet's JSON -----------------------------------------------------------------------
def next_ball(state: MatchState, bowler: str) -> dict[str, Any]:
    """Where ``bowler``'s next ball falls: game, frame, ball and the pins it faces."""
    game_number = state.current_game(bowler) if state.games else 0
    if not game_number or game_number > state.games or state.status != "playing" \
            or not state.in_play(bowler):   # a bowler who left bowls no more: never up
        return {"game": None, "frame": None, "ball": None, "standing": [], "full_rack": False}
    try:
        game = rebuild_game(state.balls[bowler][game_number - 1])
    except BowlingError:  # a game under correction review: no ball can be entered now
        return {"game": game_number, "frame": None, "ball": None, "standing": [],
                "full_rack": False}
    standing = game.standing_pins
    return {"game": game_number, "frame": game.current_frame, "ball": game.current_ball,
            "standing": sorted(standing if standing is not None else PINS),
            "full_rack": game.at_full_rack}


def who_is_up(lane_bowlers: list[str], balls: dict[str, dict[str, Any]]) -> str | None:
    """The bowler up on a lane: furthest behind (game, frame), one mid-frame first, then in
    slot order.

    >>> who_is_up(["Ann", "Bob"], {"Ann": {"game": 1, "frame": 2, "ball": 1},
    ...                            "Bob": {"game": 1, "frame": 1, "ball": 2}})
    'Bob'
    >>> who_is_up(["Ann", "Bob"], {"Ann": {"game": None, "frame": None, "ball": None},
    ...                            "Bob": {"game": None, "frame": None, "ball": None}})
    """
    waiting = [b for b in lane_bowlers if balls[b]["frame"] is not None]
    if not waiting:
        return None
    return min(waiting, key=lambda b: (balls[b]["game"], balls[b]["frame"],
                                       balls[b]["ball"] == 1, lane_bowlers.index(b)))


def match_board(service: AlleyService, match_id: str) -> dict[str, Any]:
    state = service.state(match_id)
    assignment = service.lanes.assignment(match_id)
    # A bowler removed from the match may still hold a slot until the lanes are reassigned.
    slots = sorted((key, bowler) for key, bowler in assignment.slots.items()
                   if bowler in state.bowlers) if assignment else []
    lane_of = {bowler: lane for (lane, _slot), bowler in slots}
    balls = {bowler: next_ball(state, bowler) for bowler in state.bowlers}
    up = {}
    for lane in (assignment.lanes if assignment else ()):
        on_lane = [bowler for (at, _slot), bowler in slots if at == lane]
        up[str(lane)] = who_is_up(on_lane, balls)
    bowlers = {bowler: {"lane": lane_of.get(bowler), "up": bowler in up.values(),
                        **balls[bowler]} for bowler in state.bowlers}
    return {"match_id": match_id, "title": match_title(service, match_id),
            "status": state.status,
            "lanes": list(assignment.lanes) if assignment else [],
            "slots": [{"lane": lane, "slot": slot, "bowler": bowler}
                      for (lane, slot), bowler in slots],
            "up": up, "bowlers": bowlers, **night_of(service, match_id, state.status),
            # Not in the public view: whose ante agreement the tablet has recorded.
            "consents": [bowler for bowler in state.bowlers if bowler in state.consents]}


@commissioner.get("/board.json")
@commissioner_required
def board():
    service = alley()
    return jsonify({"matches": [match_board(service, match_id)
                                for match_id in known_match_ids(service)]})


def judge_leave(before: frozenset[int], standing: frozenset[int],
                full_rack: bool | None = None) -> dict[str, Any]:
    """What a ball that left ``standing`` of the ``before`` pins scores on the sheet.

    ``full_rack`` says whether the ball is the first at a fresh rack (only such a ball leaves
    a split); ``None`` guesses it from ten pins facing the ball.

    >>> judge_leave(PINS, frozenset({7, 10}))
    {'pins': 8, 'standing': [7, 10], 'leave': '7-10', 'split': True}
    >>> judge_leave(frozenset({7, 10}), frozenset({7}))["split"]  # a second ball never splits
    False
    >>> judge_leave(PINS, frozenset({7, 10}), full_rack=False)["split"]  # after a gutter
    False
    """
    if not standing <= before:
        raise ApiError(400, "bad_request",
                       f"pins {format_leave(standing - before)} were already down before "
                       "this ball", "standing")
    return {"pins": len(before) - len(standing), "standing": sorted(standing),
            "leave": format_leave(standing),
            "split": (before == PINS if full_rack is None else full_rack)
            and is_split(standing)}


@commissioner.get("/pins.json")
@commissioner_required
def pins():
    # 400 rather than the API's 422: the tablet's own route, answered so since it began.
    query = validated_query(PinsQuery, status=400, code="bad_request")
    return jsonify(judge_leave(query.before, query.standing, query.full_rack))
