"""The game rebuilt from a bowler's recorded balls: kept between commands, never shared."""

from __future__ import annotations

import pytest

from alley_poker.bowling import BowlingError, Game
from alley_poker.ledger.games import rebuild_game

PLAIN = {"standing": None, "foul": False, "gutter": False, "split": None}


def balls(*pins: int) -> list[dict]:
    return [{**PLAIN, "pins": count} for count in pins]


def test_a_game_rolled_into_does_not_change_the_next_rebuild():
    first = rebuild_game(balls(7, 2, 10))
    first.roll(10)
    first.roll(10)
    again = rebuild_game(balls(7, 2, 10))
    assert again.scoresheet() == "72 X" and again.current_frame == 3


def test_the_rebuilt_game_is_the_game_of_its_balls_at_every_length():
    rolls = [10, 7, 3, 9, 0, 10, 10, 8, 1, 0, 10, 6, 4, 5, 5, 10, 10, 10]
    for length in range(len(rolls) + 1):
        assert rebuild_game(balls(*rolls[:length])).balls == Game.from_rolls(rolls[:length]).balls


def test_standing_pins_and_flags_are_part_of_what_is_kept():
    split = [{**PLAIN, "pins": 8, "standing": [7, 10]}]
    open_leave = [{**PLAIN, "pins": 8, "standing": [1, 2]}]  # the head pin stands
    assert rebuild_game(split).balls[0].split
    assert not rebuild_game(open_leave).balls[0].split
    assert rebuild_game([{**PLAIN, "pins": 0, "gutter": True}]).balls[0].mark == "G"


def test_an_impossible_ball_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(BowlingError, match="5 cannot fall"):
            rebuild_game(balls(7, 5))
