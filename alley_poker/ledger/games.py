"""A bowler's game as the bowling rules see it, rebuilt from the match's recorded balls."""

from __future__ import annotations

from functools import lru_cache

from alley_poker.bowling import Game

#: Rolls as hashable tuples: ``(pins, standing, foul, gutter, split)``.
Rolls = tuple[tuple[int, tuple[int, ...] | None, bool, bool, bool | None], ...]


def rebuild_game(balls: list[dict]) -> Game:
    """A bowling ``Game`` from the recorded balls of one bowler's game (a new one each call,
    so the caller may roll into it).

    >>> ball = {"standing": None, "foul": False, "gutter": False, "split": None}
    >>> rebuild_game([{**ball, "pins": 7}, {**ball, "pins": 2}]).score_so_far()
    9
    """
    return _game_after(tuple(
        (ball["pins"], None if ball["standing"] is None else tuple(ball["standing"]),
         ball["foul"], bool(ball["gutter"]), ball["split"])
        for ball in balls)).copy()


# Every command that records a ball rebuilds its bowler's game from the recorded balls (the
# state keeps balls, not games, so that it stays plain data).  Rolling all of them again each
# time was a third of the cost of playing a match through the ledger; a game is a pure
# function of its rolls, so the game of a game's balls so far is kept, and the next ball's
# game is that one plus one roll.
@lru_cache(maxsize=16384)
def _game_after(rolls: Rolls) -> Game:
    if not rolls:
        return Game()
    game = _game_after(rolls[:-1]).copy()
    pins, standing, foul, gutter, split = rolls[-1]
    game.roll(pins, standing=standing, foul=foul, gutter=gutter, split=split)
    return game
