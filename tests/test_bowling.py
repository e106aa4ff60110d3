"""Ten-pin scoring: whole games with known totals, the 10th frame, fouls, marks, series."""

from __future__ import annotations

import pytest

from alley_poker.bowling import Ball, BowlingError, Frame, Game, Series


def split_ball(pins: int, *standing: int) -> dict[str, object]:
    return {"pins": pins, "standing": list(standing)}


FOUL = {"pins": 0, "foul": True}
GUTTER = {"pins": 0, "gutter": True}

# (name, rolls, final score, scoresheet).  The totals are worked by hand, frame by frame.
WHOLE_GAMES = [
    ("perfect game", [10] * 12, 300, "X X X X X X X X X XXX"),
    ("all spares with fives", [5] * 21, 150, "5/ 5/ 5/ 5/ 5/ 5/ 5/ 5/ 5/ 5/5"),
    ("all 9-0", [9, 0] * 10, 90, "9- 9- 9- 9- 9- 9- 9- 9- 9- 9-"),
    ("gutter game", [0] * 20, 0, "-- " * 9 + "--"),
    ("flagged gutter game", [GUTTER] * 20, 0, " ".join(["GG"] * 10)),
    # 9 open frames of 1-1 (18) + 10th 7/ then a strike (20).
    ("10th spare then strike", [1, 1] * 9 + [7, 3, 10], 38, "11 " * 9 + "7/X"),
    # 9 gutter frames + 10th X X 7 = 27.
    ("10th X X 7", [0, 0] * 9 + [10, 10, 7], 27, "-- " * 9 + "XX7"),
    # 9 gutter frames + 10th X 7/ = 20.
    ("10th X 7/", [0, 0] * 9 + [10, 7, 3], 20, "-- " * 9 + "X7/"),
    # 9 gutter frames + 10th open 4-5: no fill ball.
    ("10th open", [0, 0] * 9 + [4, 5], 9, "-- " * 9 + "45"),
    # The classic sample sheet (Wikipedia's ten-pin example): running totals
    # 20 39 48 66 74 84 90 120 148 167.
    (
        "classic sample sheet",
        [10, 7, 3, 9, 0, 10, 0, 8, 8, 2, 0, 6, 10, 10, 10, 8, 1],
        167,
        "X 7/ 9- X -8 8/ -6 X X X81",
    ),
    # Worked by hand, running totals 20 40 60 78 86 115 134 143 163 183.
    (
        "hand-worked 183 sheet",
        [10, 9, 1, 10, 7, 3, 8, 0, 10, 10, 9, 0, 8, 2, 10, 8, 2],
        183,
        "X 9/ X 7/ 8- X X 9- 8/ X8/",
    ),
    # 11 strikes then a 9: eight frames of 30, then 10+10+10 and 10+10+9 = 299.
    ("heartbreak 299", [10] * 11 + [9], 299, "X X X X X X X X X XX9"),
    # 9/ every frame, 10th 9/9: each spare frame 19, 10th 19 = 190.
    ("nine-spare game", [9, 1] * 10 + [9], 190, "9/ " * 9 + "9/9"),
    # Strike, then spare, then open: 20 + 19 + 9 ... every later frame 0.
    ("strike spare open", [10, 9, 1, 9, 0] + [0, 0] * 7, 48, "X 9/ 9- " + "-- " * 6 + "--"),
    # A foul on the first ball of frame 1, then all ten on the next ball is a spare
    # (10 + 5 bonus), then 5-0 = 20.
    ("foul then ten is a spare", [FOUL, 10, 5, 0] + [0, 0] * 8, 20, "F/ 5- " + "-- " * 7 + "--"),
    # A foul on a 10th-frame fill ball scores 0: X X F = 20 in the 10th.
    ("foul on a fill ball", [0, 0] * 9 + [10, 10, FOUL], 20, "-- " * 9 + "XXF"),
    # X then a foul on the second ball at the fresh rack: the third ball faces ten pins and
    # clearing them is a spare mark: 10 + 0 + 10.
    ("X F / in the 10th", [0, 0] * 9 + [10, FOUL, 10], 20, "-- " * 9 + "XF/"),
    # Split 7-10 converted in frame 1: 8/ then 9 = 19, then 9-0 = 28.
    (
        "split conversion",
        [split_ball(8, 7, 10), 2, 9, 0] + [0, 0] * 8,
        28,
        "S8/ 9- " + "-- " * 7 + "--",
    ),
]


@pytest.mark.parametrize(
    ("rolls", "total", "sheet"),
    [pytest.param(rolls, total, sheet, id=name) for name, rolls, total, sheet in WHOLE_GAMES],
)
def test_whole_game_scores_and_scoresheet(rolls, total, sheet):
    game = Game.from_rolls(rolls)
    assert game.is_complete
    assert game.score() == total
    assert game.scoresheet() == sheet
    assert game.frames[-1].score == total
    assert sum(frame.points for frame in game.frames) == total
    assert len(game.frames) == 10


def test_classic_sheet_running_totals():
    game = Game.from_rolls([10, 7, 3, 9, 0, 10, 0, 8, 8, 2, 0, 6, 10, 10, 10, 8, 1])
    assert [frame.score for frame in game.frames] == [20, 39, 48, 66, 74, 84, 90, 120, 148, 167]
    assert [frame.points for frame in game.frames] == [20, 19, 9, 18, 8, 10, 6, 30, 28, 19]


def test_running_totals_wait_for_bonus_balls():
    game = Game()
    game.roll(10)
    assert game.frames[0].score is None
    game.roll(10)
    assert [f.score for f in game.frames] == [None, None]
    game.roll(4)
    assert [f.score for f in game.frames] == [24, None, None]
    game.roll(5)
    assert [f.score for f in game.frames] == [24, 43, 52]
    game.roll(6)
    assert game.frames[-1].score is None  # open frame half thrown
    assert game.score_so_far() == 52
    game.roll(4)
    assert game.frames[-1].score is None  # spare awaits its bonus ball
    game.roll(0)
    assert [f.score for f in game.frames][3] == 62


# ---------------------------------------------------------------- the 10th frame


def test_tenth_frame_strike_gets_two_fill_balls_on_fresh_racks():
    game = Game.from_rolls([0, 0] * 9)
    first = game.roll(10)
    assert first.is_strike and not first.ends_frame
    assert game.standing_count == 10 and game.current_ball == 2
    second = game.roll(10)
    assert second.is_strike and second.full_rack and not second.ends_frame
    third = game.roll(10)
    assert third.is_strike and third.full_rack and third.ends_frame
    assert game.is_complete and game.current_frame is None


def test_tenth_frame_strike_then_count_leaves_the_rest_for_the_third_ball():
    game = Game.from_rolls([0, 0] * 9 + [10, 7])
    assert game.standing_count == 3
    with pytest.raises(BowlingError, match="frame 10 has only 3 pins standing; 4 cannot fall"):
        game.roll(4)
    third = game.roll(3)
    assert third.is_spare and not third.full_rack and third.ball == 3
    assert game.frames[-1].marks == ("X", "7", "/")


def test_tenth_frame_spare_gets_one_fill_ball_on_a_fresh_rack():
    game = Game.from_rolls([0, 0] * 9 + [6, 4])
    assert not game.is_complete
    assert game.standing_count == 10
    assert game.standing_pins == frozenset(range(1, 11))
    fill = game.roll(8, standing=[7, 10])
    assert fill.full_rack and fill.split and fill.ends_frame and fill.mark == "S8"
    assert game.score() == 18


def test_open_tenth_ends_the_game():
    game = Game.from_rolls([0, 0] * 9 + [3, 4])
    assert game.is_complete
    with pytest.raises(BowlingError, match="the game is over"):
        game.roll(0)


# ---------------------------------------------------------------- ball records


def test_ball_record_fields():
    game = Game()
    first = game.roll(8, standing=[7, 10])
    assert isinstance(first, Ball)
    assert (first.frame, first.ball, first.pins) == (1, 1, 8)
    assert first.standing == frozenset({7, 10})
    assert first.full_rack and first.split and not first.is_strike and not first.ends_frame
    second = game.roll(2)
    assert (second.frame, second.ball) == (1, 2)
    assert second.is_spare and second.is_split_conversion and second.ends_frame
    assert second.standing == frozenset()
    assert not second.full_rack and not second.split
    with pytest.raises(AttributeError):
        second.pins = 3  # records are immutable


def test_standing_pins_unknown_without_a_report_but_count_known():
    game = Game()
    game.roll(6)
    assert game.standing_pins is None
    assert game.standing_count == 4
    ball = game.roll(2, standing=[7, 10])
    assert ball.standing == frozenset({7, 10})
    assert not ball.split  # a second ball never leaves a split


def test_split_flag_from_the_scoring_system_wins_over_the_computation():
    game = Game()
    # 4-5-8 per the USBC wording is a split; a lane system that disagrees is the authority.
    ball = game.roll(7, standing=[4, 5, 8], split=False)
    assert not ball.split
    game.roll(0)
    flagged = game.roll(8, split=True)
    assert flagged.split and flagged.standing is None and flagged.mark == "S8"


def test_foul_scores_zero_and_respots_the_pins():
    game = Game()
    foul = game.roll(7, foul=True)
    assert foul.pins == 0 and foul.foul_pinfall == 7 and foul.mark == "F"
    assert foul.standing == frozenset(range(1, 11))
    assert game.standing_count == 10  # the next ball faces the same ten pins
    spare = game.roll(10)
    assert spare.is_spare and not spare.is_strike and spare.mark == "/"
    assert not spare.full_rack


def test_foul_on_second_ball_keeps_first_ball_count():
    game = Game.from_rolls([7, FOUL] + [0, 0] * 9)
    assert game.frames[0].marks == ("7", "F")
    assert game.frames[0].is_open
    assert game.score() == 7


def test_gutter_flag_marks_g_and_miss_marks_dash():
    game = Game.from_rolls([GUTTER, 7, 3, 0])
    assert game.scoresheet() == "G7 3-"


# ---------------------------------------------------------------- frames


def test_frame_flags():
    game = Game.from_rolls(
        [10, 7, 3, split_ball(8, 7, 10), 2, split_ball(8, 7, 10), 1, 3, 4]
        + [0, 0] * 4 + [10, 8, 2]
    )
    strike, spare, conversion, split_missed, open_frame = game.frames[:5]
    tenth = game.frames[9]
    assert isinstance(strike, Frame)
    assert strike.is_strike and not strike.is_spare and not strike.is_open
    assert spare.is_spare and not spare.is_split_conversion
    assert conversion.is_spare and conversion.is_split_conversion
    assert split_missed.is_open and not split_missed.is_split_conversion
    assert split_missed.marks == ("S8", "1")
    assert open_frame.is_open and open_frame.marks == ("3", "4")
    assert tenth.is_strike and not tenth.is_spare and not tenth.is_open
    assert tenth.balls[2].is_spare  # the 10th frame's spare conversion
    assert str(tenth) == "X8/"


# ---------------------------------------------------------------- series


def test_series_scratch_handicap_total():
    series = Series(handicap_per_game=15)
    series.add(Game.from_rolls([10] * 12))
    series.add(Game.from_rolls([5] * 21))
    series.add(Game.from_rolls([9, 0] * 10))
    assert series.game_scores == (300, 150, 90)
    assert series.scratch == 540
    assert series.handicap == 45
    assert series.total == 585
    assert len(series.games) == 3


def test_series_refuses_unfinished_game_and_keeps_its_games():
    series = Series(handicap_per_game=10, games=[Game.from_rolls([0] * 20)])
    with pytest.raises(BowlingError, match="only a finished game"):
        series.add(Game.from_rolls([10, 10]))
    assert len(series.games) == 1 and series.total == 10
    with pytest.raises(AttributeError):
        series.handicap_per_game = 50  # fixed by the league for the series


@pytest.mark.parametrize("bad", [-5, 2.5, "10", True])
def test_series_refuses_bad_handicap(bad):
    with pytest.raises(BowlingError, match="handicap"):
        Series(handicap_per_game=bad)


def test_reprs():
    assert repr(Game()) == "<Game no balls yet | frame 1 ball 1 next>"
    assert repr(Game.from_rolls([10, 7])) == "<Game X 7 | frame 2 ball 2 next>"
    assert repr(Game.from_rolls([9, 0] * 10)).endswith("= 90>")
    ball = Game().roll(8, standing=[7, 10])
    assert repr(ball) == "Ball(frame=1, ball=1, pins=8, standing='7-10', mark='S8')"
