"""``GET /api/v1/lanes/<pair>/screen``: everything a lane pair's kiosk shows, in one read.

The kiosk's live state comes over Socket.IO, but a settled match gives up its lanes, so a
kiosk that loads (or reloads) after the result would find nothing there.  This read gives
the matches on the lanes now and the match that settled there last (its result stays on the
screen until the next match starts), each with where its bowlers bowl, who is up on each
lane and each bowler's running score — facts the public match view does not carry.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from alley_poker.bowling import BowlingError
from alley_poker.ledger import MatchState
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.service import AlleyService
from alley_poker.web.api_request import API_PREFIX, alley
from alley_poker.web.commissioner import next_ball, who_is_up
from alley_poker.web.errors import ApiError
from alley_poker.web.kiosk import centre_lane_pair
from alley_poker.web.public import public_match_view, with_odds

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_screen", __name__, url_prefix=API_PREFIX)

Slots = dict[tuple[int, int], str]


def running_score(state: MatchState, bowler: str) -> int | None:
    """The bowler's total in the game they are in (the last game once all are bowled);
    None for a game under correction review."""
    if not state.games:
        return None
    game_number = min(max(state.current_game(bowler), 1), state.games)
    try:
        return rebuild_game(state.balls[bowler][game_number - 1]).score_so_far()
    except BowlingError:
        return None


def score_at_least(state: MatchState, bowler: str) -> int | None:
    """The least the bowler's running total can be: every pin so far, a strike's or a
    spare's bonus counted as far as its balls are bowled (X X is at least 30, where the
    total through scored frames is 0).  None where ``running_score`` is None."""
    if not state.games:
        return None
    game_number = min(max(state.current_game(bowler), 1), state.games)
    try:
        game = rebuild_game(state.balls[bowler][game_number - 1])
        bowled = len(game.frames)
        while not game.is_complete and any(f.score is None for f in game.frames[:bowled]):
            game.roll(0)  # zeros to come give each waiting bonus its floor
        return game.score_so_far()
    except BowlingError:
        return None


def screen_match(state: MatchState, slots: Slots, odds: Any = None) -> dict[str, Any]:
    """One match as a lane screen shows it: the public state (with the live odds, ``odds``
    being the service's ``LiveOdds``, when there are any) plus lanes, who is up, scores."""
    slots = {key: bowler for key, bowler in slots.items() if bowler in state.bowlers}
    balls = {bowler: next_ball(state, bowler) for bowler in state.bowlers}
    up: set[str] = set()
    for lane in sorted({lane for lane, _slot in slots}):
        on_lane = [bowler for (at, _slot), bowler in sorted(slots.items()) if at == lane]
        bowler = who_is_up(on_lane, balls)
        if bowler is not None:
            up.add(bowler)
    lane_of = {bowler: lane for (lane, _slot), bowler in slots.items()}
    return {"match_id": state.match_id, "state": with_odds(public_match_view(state), odds),
            "bowlers": {bowler: {"lane": lane_of.get(bowler), "up": bowler in up,
                                 "ball": balls[bowler]["ball"],
                                 "score": running_score(state, bowler),
                                 "score_at_least": score_at_least(state, bowler)}
                        for bowler in state.bowlers}}


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
            return screen_match(state, slots, service.odds)
        if state.status == "void":
            return None
    return None


@api.get("/lanes/<lane_pair>/screen")
def lane_screen(lane_pair: str):
    try:
        lanes = centre_lane_pair(lane_pair)
    except ValueError as problem:
        raise ApiError(404, "not_found", str(problem), "lane_pair") from None
    service = alley()
    live: list[str] = []
    for lane in lanes:
        live.extend(m for m in service.lanes.matches_on(lane) if m not in live)
    matches = []
    for match_id in live:
        state = service.state(match_id)
        assignment = service.lanes.assignment(match_id)
        if state.status != "new" and assignment is not None:
            matches.append(screen_match(state, assignment.slots, service.odds))
    return jsonify({"lane_pair": lane_pair, "matches": matches,
                    "last_result": last_result(service, lanes, live)})
