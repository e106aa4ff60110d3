"""A bowler's game as the bowling rules see it, rebuilt from the match's recorded balls."""

from __future__ import annotations

from alley_poker.bowling import Game


def rebuild_game(balls: list[dict]) -> Game:
    """A bowling ``Game`` from the recorded balls of one bowler's game.

    >>> ball = {"standing": None, "foul": False, "gutter": False, "split": None}
    >>> rebuild_game([{**ball, "pins": 7}, {**ball, "pins": 2}]).score_so_far()
    9
    """
    game = Game()
    for ball in balls:
        game.roll(ball["pins"], standing=ball["standing"], foul=ball["foul"],
                  gutter=bool(ball["gutter"]), split=ball["split"])
    return game
