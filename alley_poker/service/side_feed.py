"""The finished games of a league match, as the side games count them.

A league match knows who each seat is on the roster (its ``match_created`` tag) and each
seat's handicap for the night (the league's rule, recorded when the night started): a
finished game of a seat is that bowler's :class:`~alley_poker.side_games.GameScore` for the
night's game of that number.  A game under correction review (its balls do not rebuild) is
not finished until it is fixed; a game a correction re-opens is simply not in the answer
(the side night keeps the last finished score it was sent).
"""

from __future__ import annotations

from typing import Any

from alley_poker.bowling import BowlingError
from alley_poker.ledger import MatchState
from alley_poker.ledger.games import rebuild_game
from alley_poker.side_games import GameScore


def night_of(state: MatchState) -> str | None:
    """The league night a match belongs to (None: not a league match)."""
    tag: Any = state.league
    return tag.get("night_id") if isinstance(tag, dict) else None


def finished_games(state: MatchState) -> dict[tuple[int, int], GameScore]:
    """``{(roster bowler id, game number): score}`` of every finished game of the match's
    roster bowlers (a guest seat, named by no roster id, is not in a side game)."""
    people = (state.league or {}).get("people", {})
    found: dict[tuple[int, int], GameScore] = {}
    for seat in state.bowlers:
        bowler = people.get(seat)
        if bowler is None:
            continue
        for number, balls in enumerate(state.balls.get(seat, ()), start=1):
            if not balls or not state.game_complete(seat, number, balls):
                continue
            try:
                game = rebuild_game(balls)
            except BowlingError:
                continue
            if game.is_complete:
                found[bowler, number] = GameScore.of(game, state.handicaps.get(seat, 0))
    return found


def has_bowled(state: MatchState) -> bool:
    """Whether any ball of the match is recorded."""
    return any(balls for seat in state.bowlers for balls in state.balls.get(seat, ()))
