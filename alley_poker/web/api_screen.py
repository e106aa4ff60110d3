"""``GET /api/v1/lanes/<pair>/screen``: everything a lane pair's kiosk shows, in one read.

The kiosk's live state comes over Socket.IO, but a settled match gives up its lanes, so a
kiosk that loads (or reloads) after the result would find nothing there.  This read gives
the matches on the lanes now and the match that settled there last (its result stays on the
screen until the next match starts), each with where its bowlers bowl, who is up on each
lane and each bowler's running score — facts the public match view does not carry — and
how many of each bowler's balls are held for the desk (``held``), so a bowler whose balls
the scorer sent but the desk must place sees that rather than a zero.  Every live push of a
match carries the same facts (:mod:`alley_poker.web.sockets`), so the screens follow each ball
without waiting for this read.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from alley_poker.bowling import BowlingError
from alley_poker.ledger import MatchState
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.match_status import FINISHED
from alley_poker.service import AlleyService
from alley_poker.web.api_request import API_PREFIX, alley
from alley_poker.web.centre_access import current_centre
from alley_poker.web.commissioner import next_ball, who_is_up
from alley_poker.web.kiosk import api_lane_pair
from alley_poker.web.public import public_match_view, with_odds

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_screen", __name__, url_prefix=API_PREFIX)

Slots = dict[tuple[int, int], str]


def running_totals(state: MatchState, bowler: str) -> tuple[int | None, int | None]:
    """The bowler's total in the game they are in (the last game once all are bowled),
    through the last frame whose bonus balls are all bowled; and the least that total can
    be: every pin so far, a strike's or a spare's bonus counted as far as its balls are
    bowled (X X is 0 and at least 30).  ``(None, None)`` for a game under correction review.
    One rebuild of the game gives both: every push of every ball carries them."""
    if not state.games:
        return None, None
    game_number = min(max(state.current_game(bowler), 1), state.games)
    try:
        game = rebuild_game(state.balls[bowler][game_number - 1])
        score = game.score_so_far()
        bowled = len(game.frames)
        while not game.is_complete and any(f.score is None for f in game.frames[:bowled]):
            game.roll(0)  # zeros to come give each waiting bonus its floor
        return score, game.score_so_far()
    except BowlingError:
        return None, None


def match_slots(service: AlleyService, match_id: str) -> Slots:
    """Where the match's bowlers bowl: its lanes now, else (settled, its lanes free) the
    slots it held last."""
    assignment = service.lanes.assignment(match_id)
    if assignment is not None:
        return dict(assignment.slots)
    if service.assignments is not None:
        return dict(service.assignments.last_held().get(match_id, {}))
    return {}


def pair_of(lane: int) -> tuple[int, int]:
    """The lane pair a lane belongs to.

    >>> pair_of(3), pair_of(4)
    ((3, 4), (3, 4))
    """
    first = lane if lane % 2 else lane - 1
    return first, first + 1


def held_for_commissioner(service: AlleyService, state: MatchState, slots: Slots) -> dict[str, int]:
    """How many balls of each bowler wait on the desk's held-ball list.

    A held ball naming a bowler of the match is theirs.  A ball from a slot nobody of the
    match sits in (the scorer's name matched nobody: a seat request) names no bowler; while
    the match is live, it counts for each bowler of the match who has no slot on its lane
    pair yet, as one of them bowled it.
    """
    if state.status in FINISHED or not state.bowlers:
        return {}
    held: dict[str, int] = {}
    seated = {bowler for bowler in slots.values() if bowler in state.bowlers}
    unseated = [bowler for bowler in state.bowlers if bowler not in seated]
    lanes = {lane for (at, _slot) in slots for lane in pair_of(at)}
    for item in service.held.open_items():
        if item["match_id"] == state.match_id and item["bowler"] in state.bowlers:
            held[item["bowler"]] = held.get(item["bowler"], 0) + 1
        elif (item["bowler"] is None and item["match_id"] in (None, state.match_id)
              and (item["lane"] in lanes or not lanes)):
            for bowler in unseated:
                held[bowler] = held.get(bowler, 0) + 1
    return held


def match_screen(service: AlleyService, state: MatchState) -> dict[str, Any]:
    """:func:`screen_match` of a match of ``service``, with its slots and held balls."""
    slots = match_slots(service, state.match_id)
    return screen_match(state, slots, current_centre().odds,
                        held_for_commissioner(service, state, slots))


def screen_facts(service: AlleyService, state: MatchState) -> dict[str, dict[str, Any]]:
    """The ``bowlers`` of :func:`match_screen` alone: what a live push carries beside the
    public state it already has."""
    slots = match_slots(service, state.match_id)
    return screen_bowlers(state, slots, held_for_commissioner(service, state, slots))


def screen_match(state: MatchState, slots: Slots, odds: Any = None,
                 held: dict[str, int] | None = None) -> dict[str, Any]:
    """One match as a lane screen shows it: the public state (with the live odds, ``odds``
    being the service's ``LiveOdds``, when there are any) plus lanes, who is up, scores and
    the balls held for the desk (``held``: bowler → count)."""
    return {"match_id": state.match_id, "state": with_odds(public_match_view(state), odds),
            "bowlers": screen_bowlers(state, slots, held or {})}


def screen_bowlers(state: MatchState, slots: Slots,
                   held: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Each bowler's lane, whether they are up, their next ball, running score and held
    balls: what a screen shows beside the public state."""
    slots = {key: bowler for key, bowler in slots.items() if bowler in state.bowlers}
    balls = {bowler: next_ball(state, bowler) for bowler in state.bowlers}
    up: set[str] = set()
    for lane in sorted({lane for lane, _slot in slots}):
        on_lane = [bowler for (at, _slot), bowler in sorted(slots.items()) if at == lane]
        bowler = who_is_up(on_lane, balls)
        if bowler is not None:
            up.add(bowler)
    lane_of = {bowler: lane for (lane, _slot), bowler in slots.items()}
    facts = {}
    for bowler in state.bowlers:
        score, at_least = running_totals(state, bowler)
        facts[bowler] = {"lane": lane_of.get(bowler), "up": bowler in up,
                         "ball": balls[bowler]["ball"], "score": score,
                         "score_at_least": at_least, "held": held.get(bowler, 0)}
    return facts


def last_result(service: AlleyService, lanes: tuple[int, ...],
                live: list[str]) -> dict[str, Any] | None:
    """The match that finished on ``lanes`` last, if it was settled (a voided one leaves
    no result to show)."""
    if service.assignments is None:
        return None
    for match_id, slots in reversed(list(service.assignments.last_held().items())):
        if match_id in live or not {lane for lane, _slot in slots} & set(lanes):
            continue
        state = service.state(match_id)
        if state.status == "settled":
            return screen_match(state, slots, current_centre().odds, held_for_commissioner(
                service, state, slots))
        if state.status == "void":
            return None
    return None


@api.get("/lanes/<lane_pair>/screen")
def lane_screen(lane_pair: str):
    lanes = api_lane_pair(lane_pair)
    service = alley()
    live: list[str] = []
    for lane in lanes:
        live.extend(m for m in service.lanes.matches_on(lane) if m not in live)
    matches = []
    for match_id in live:
        state = service.state(match_id)
        if state.status != "new" and service.lanes.assignment(match_id) is not None:
            matches.append(match_screen(service, state))
    return jsonify({"lane_pair": lane_pair, "matches": matches,
                    "last_result": last_result(service, lanes, live)})
