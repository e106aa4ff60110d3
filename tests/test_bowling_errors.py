"""Impossible input is refused at once, with a message naming the problem, and changes nothing."""

from __future__ import annotations

import re

import pytest

from alley_poker.bowling import BowlingError, Game, Series, parse_leave, parse_scoresheet


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything a caller can see of a game."""
    return (
        game.balls, game.scoresheet(), game.current_frame, game.current_ball,
        game.standing_count, game.standing_pins, game.is_complete, game.score_so_far(),
        [(frame.points, frame.score) for frame in game.frames],
    )


def mid_frame_game() -> Game:
    """Frame 4 ball 2, with 7-10 standing after an 8 (a split)."""
    game = Game.from_rolls([10, 7, 3, 9, 0])
    game.roll(8, standing=[7, 10])
    return game


REFUSED_ROLLS = [
    # (roll arguments, a part of the message that tells the attendant what is wrong)
    pytest.param((-1,), {}, "cannot knock down -1 pins", id="negative"),
    pytest.param((11,), {}, "cannot knock down 11 pins; there are only 10", id="eleven"),
    pytest.param((3,), {}, "frame 4 has only 2 pins standing; 3 cannot fall", id="too-many"),
    pytest.param((2.5,), {}, "whole number from 0 to 10, got 2.5", id="float"),
    pytest.param((2.0,), {}, "whole number from 0 to 10, got 2.0", id="float-whole"),
    pytest.param(("2",), {}, "whole number from 0 to 10, got '2'", id="text"),
    pytest.param((None,), {}, "whole number from 0 to 10, got None", id="none"),
    pytest.param((True,), {}, "whole number from 0 to 10, got True", id="bool"),
    pytest.param((1,), {"standing": [7, 11]}, "there is no pin 11", id="pin-11"),
    pytest.param((1,), {"standing": [0]}, "there is no pin 0", id="pin-0"),
    pytest.param((0,), {"standing": [7, 7]}, "pin 7 is listed twice", id="pin-twice"),
    pytest.param((1,), {"standing": "10"}, "parse_leave reads text", id="standing-text"),
    pytest.param((1,), {"standing": 10}, "collection of pin numbers", id="standing-int"),
    pytest.param((1,), {"standing": [7.0]}, "7.0 is not a pin number", id="standing-float"),
    pytest.param(
        (1,), {"standing": [7, 10]}, "1 of 2 pins fell, which leaves 1 standing, but 2",
        id="standing-count",
    ),
    pytest.param(
        (1,), {"standing": [9]}, "pin 9 was already down and cannot stand again",
        id="pin-stands-again",
    ),
    pytest.param((0,), {"standing": [8, 9]}, "pins 8-9 were already down", id="pins-again"),
    pytest.param((1,), {"gutter": True}, "a gutter ball knocks down no pins, but 1",
                 id="gutter-with-pins"),
    pytest.param((1,), {"foul": 1}, "foul must be True or False, got 1", id="foul-not-bool"),
    pytest.param((1,), {"gutter": "no"}, "gutter must be True or False", id="gutter-not-bool"),
    pytest.param((1,), {"split": "yes"}, "split must be True or False", id="split-not-bool"),
]


@pytest.mark.parametrize(("args", "kwargs", "message"), REFUSED_ROLLS)
def test_refused_roll_names_the_problem_and_changes_nothing(args, kwargs, message):
    game = mid_frame_game()
    before = snapshot(game)
    with pytest.raises(BowlingError) as refused:
        game.roll(*args, **kwargs)
    assert message in str(refused.value)
    assert snapshot(game) == before
    # ...and the game carries on normally afterwards.
    assert game.roll(2).is_split_conversion


def test_bowling_error_is_a_value_error():
    with pytest.raises(ValueError, match="only 10 pins"):
        Game().roll(12)


IMPOSSIBLE_SPLIT_FLAGS = [
    pytest.param({"pins": 0, "foul": True, "split": True}, id="foul-split"),
    pytest.param({"pins": 9, "split": True}, id="one-pin-left"),
    pytest.param({"pins": 10, "split": True}, id="strike-split"),
    pytest.param({"pins": 7, "standing": [1, 7, 10], "split": True}, id="head-pin-split"),
    pytest.param({"pins": 0, "split": True}, id="nothing-down-split"),
]


@pytest.mark.parametrize("roll", IMPOSSIBLE_SPLIT_FLAGS)
def test_a_split_flag_that_cannot_apply_is_dropped_not_a_refusal(roll):
    game = Game()
    ball = game.roll(**roll)
    assert ball.split is False and game.balls == (ball,)


def test_after_a_first_ball_gutter_the_7_10_left_is_an_open_frame_not_a_split():
    game = Game()
    game.roll(0, gutter=True, standing=range(1, 11))
    ball = game.roll(8, standing=[7, 10], split=True)  # a flag computed from 10 pins facing
    assert (ball.split, ball.ends_frame, game.scoresheet()) == (False, True, "G8")
    assert game.current_frame == 2


def test_a_first_ball_that_miscounts_the_standing_pins_is_refused():
    game = Game()
    with pytest.raises(BowlingError, match=re.escape("10 standing, but 2")):
        game.roll(0, standing=[1, 2])
    assert game.balls == () and game.standing_count == 10


def test_a_second_ball_split_flag_is_dropped():
    game = mid_frame_game()
    assert game.roll(1, split=True).split is False


def test_ball_after_the_game_is_over():
    game = Game.from_rolls([10] * 12)
    before = snapshot(game)
    with pytest.raises(BowlingError, match="the game is over"):
        game.roll(0)
    assert snapshot(game) == before and game.score() == 300


def test_score_of_unfinished_game_names_the_next_ball():
    for rolls, where in (([], "frame 1 ball 1"), ([10, 10], "frame 3 ball 1"),
                         ([0, 0] * 9 + [10, 10], "frame 10 ball 3")):
        with pytest.raises(BowlingError, match=f"not finished \\({where} is next\\)"):
            Game.from_rolls(rolls).score()


def test_from_rolls_names_the_bad_roll():
    with pytest.raises(BowlingError, match="roll 4: frame 2 has only 4 pins standing; 5"):
        Game.from_rolls([3, 4, 6, 5])
    with pytest.raises(BowlingError, match=r"roll 1: \{'pin': 3\} is not a roll"):
        Game.from_rolls([{"pin": 3}])


def test_foul_with_a_reported_leave():
    # A feed credits 0 for a foul and may report what the ball really left before the respot.
    game = Game()
    foul = game.roll(0, foul=True, standing=[7, 10])
    assert foul.pins == 0 and foul.foul_pinfall == 8
    assert game.standing_pins == frozenset(range(1, 11))
    # The physical pinfall may be given instead; it must then agree with the leave.
    with pytest.raises(BowlingError, match="8 of 10 pins fell, which leaves 2 standing, but 3"):
        Game().roll(8, foul=True, standing=[4, 7, 10])
    # A foul ball's leave is still bound by the pins that stood before it.
    game = Game()
    game.roll(7, standing=[4, 7, 10])
    with pytest.raises(BowlingError, match="pin 6 was already down"):
        game.roll(0, foul=True, standing=[4, 6])


SCORESHEET_REFUSALS = [
    pytest.param("X 7/ 9- K", "'K' is not a scoresheet mark", id="unknown-mark"),
    pytest.param("X7 9-", "frame 1 'X7': the frame was over after 'X'", id="strike-ends-frame"),
    pytest.param("7 9-", "frame 1 '7': the frame is not finished", id="short-frame"),
    pytest.param("73", "'3' cannot be written here: that ball is marked '/'", id="spare-as-3"),
    pytest.param("/", "'/' cannot be written here: that ball is marked 'X'", id="spare-first"),
    pytest.param("78", "frame 1 has only 3 pins standing; 8 cannot fall", id="too-many"),
    pytest.param("7S2", "'S2' cannot be written here: that ball is marked '2'", id="split-second"),
    pytest.param("S", "must be followed by a count", id="bare-s"),
    pytest.param("X " * 9 + "XXX X", "the game was over after 10 frames", id="eleven-frames"),
]


@pytest.mark.parametrize(("sheet", "message"), SCORESHEET_REFUSALS)
def test_scoresheet_refusals(sheet, message):
    with pytest.raises(BowlingError, match=re.escape(message)):
        parse_scoresheet(sheet)


@pytest.mark.parametrize("text", ["7-x", "7-11", "7-7"])
def test_parse_leave_refusals(text):
    with pytest.raises(BowlingError, match=f"leave '{text}'"):
        parse_leave(text)


def test_series_refuses_non_games_and_repeats():
    game = Game.from_rolls([9, 0] * 10)
    series = Series(games=[game])
    with pytest.raises(BowlingError, match="a series holds games"):
        series.add(190)  # type: ignore[arg-type]
    with pytest.raises(BowlingError, match="already in the series"):
        series.add(game)
    assert series.game_scores == (90,)
