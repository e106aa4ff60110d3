"""The scoresheet dialect's diffing, the notation against bowling's own, and manual entry."""

from __future__ import annotations

import random

import pytest

from alley_poker.bowling import Game
from alley_poker.odds.ball_model import BowlerProfile
from drivers.base import (
    BallCorrected,
    BallRecorded,
    BallRetracted,
    DuplicateLine,
    FeedLineRejected,
    GameEnded,
    ScoresheetSnapshot,
    WrongLane,
)
from drivers.dialects.notation import SheetError, format_sheet, parse_sheet
from drivers.dialects.scoresheet import ScoresheetDialect
from drivers.manual import ManualEntry, ManualEntryError
from drivers.simulator import bowl_ball


def test_notation_reads_what_bowling_writes_for_many_simulated_games():
    rng = random.Random(3)
    for average in (110, 160, 230) * 20:
        profile, game = BowlerProfile.for_average("X", average), Game()
        while not game.is_complete:
            bowl_ball(profile, game, rng)
        sheet = game.scoresheet()
        frames = parse_sheet(sheet)
        assert format_sheet(frames) == sheet
        assert [ball.pins for frame in frames for ball in frame] == \
            [ball.pins for ball in game.balls]
        assert [ball.flags.split for frame in frames for ball in frame] == \
            [ball.split for ball in game.balls]


@pytest.mark.parametrize(("sheet", "problem"), [
    ("X4", "no second ball after a strike"),
    ("55", "clears the rack; write /"),
    ("/", "needs a first ball"),
    ("5X", "needs a full rack"),
    ("5S4", "split can only be left by a ball at a full rack"),
    ("9- " * 9 + "9-5", "third ball needs a strike or a spare"),
    ("9 9-", "unfinished but frames follow"),
    ("X " * 11, "11 frames"),
    ("7k", "not scoresheet notation"),
])
def test_impossible_sheets_are_refused_naming_the_frame(sheet, problem):
    with pytest.raises(SheetError, match=problem):
        parse_sheet(sheet)


def test_the_split_marker_may_also_be_written_in_parentheses():
    assert parse_sheet("(8)/")[0][0].flags.split


def test_scoresheet_lines_diff_into_balls_corrections_retractions_and_game_end():
    dialect = ScoresheetDialect(source="lanes")
    (first,) = dialect.parse(b"2 1 ANN 1 : 9")
    assert isinstance(first, BallRecorded) and first.pins == 9 and not first.recovered
    with pytest.raises(DuplicateLine):
        dialect.parse(b"2 1 ANN 1 : 9")  # re-sent after a reconnect
    two = dialect.parse(b"2 1 ANN 1 : 9/ X")  # a line was missed
    assert [(b.frame, b.ball, b.pins, b.recovered) for b in two] == \
        [(1, 2, 1, True), (2, 1, 10, False)]
    corrected = dialect.parse(b"2 1 ANN 1 : 8/ X")
    assert [type(e) for e in corrected] == [BallCorrected, BallCorrected]
    assert [e.pins for e in corrected] == [8, 2]
    erased = dialect.parse(b"2 1 ANN 1 : 8/")
    assert erased == [BallRetracted(lane=2, bowler=1, game=1, frame=2, ball=1, source="lanes")]
    events = dialect.parse(b"2 1 ANN 1 : 8/ X X X X X X X X XX9")
    assert isinstance(events[-1], GameEnded) and events[-1].scratch == 289
    with pytest.raises(FeedLineRejected, match="impossible sheet"):
        dialect.parse(b"2 1 ANN 2 : 9 8")
    with pytest.raises(FeedLineRejected, match="expected"):
        dialect.parse(b"lane two: X")


def test_the_first_sheet_seen_mid_game_comes_as_a_snapshot():
    (snapshot,) = ScoresheetDialect().parse(b"5 2 BOB 1 : X 7/ S8")
    assert isinstance(snapshot, ScoresheetSnapshot)
    assert [ball.pins for ball in snapshot.ball_events()] == [10, 7, 3, 8]
    assert snapshot.ball_events()[-1].flags.split


def test_manual_entry_deals_a_whole_game_from_pin_taps():
    events: list = []
    entry = ManualEntry(events.append, handicaps={(1, 1): 20})
    entry.open_lane(1, ["ANN"])
    for _ in range(12):
        entry.ball(1, 1, standing=[])  # a perfect game: every tap "no pins standing"
    assert isinstance(events[-1], GameEnded)
    assert (events[-1].scratch, events[-1].handicap) == (300, 20)
    assert [event.seq for event in events] == list(range(1, 15))
    with pytest.raises(ManualEntryError, match="finished"):
        entry.ball(1, 1, standing=[])


def test_manual_entry_refuses_bad_taps_and_changes_nothing():
    events: list = []
    entry = ManualEntry(events.append)
    with pytest.raises(ManualEntryError, match="not open"):
        entry.ball(9, 1, standing=[])
    entry.open_lane(2, ["ANN", "BOB"])
    with pytest.raises(ManualEntryError, match="no bowler 3"):
        entry.ball(2, 3, standing=[])
    with pytest.raises(ManualEntryError, match="numbered 1 to 10"):
        entry.ball(2, 1, standing=[11])
    with pytest.raises(ManualEntryError, match="tap the pins"):
        entry.ball(2, 1)
    assert len(events) == 1  # only the LaneOpened
    gutter = entry.ball(2, 1, gutter=True)
    assert gutter.flags.gutter and gutter.pins == 0 and gutter.standing == frozenset(range(1, 11))
    foul = entry.ball(2, 2, foul=True)
    assert foul.flags.foul and foul.ball == 1
    assert isinstance(entry.wrong_lane(2, 2), WrongLane)


def test_undo_retracts_the_last_ball_and_lets_it_be_entered_again():
    events: list = []
    entry = ManualEntry(events.append)
    entry.open_lane(4, ["ANN"])
    entry.ball(4, 1, standing=[6, 10])
    entry.ball(4, 1, standing=[10])
    undone = entry.undo(4, 1)
    assert isinstance(undone, BallRetracted) and (undone.frame, undone.ball) == (1, 2)
    again = entry.ball(4, 1, standing=[])
    assert (again.frame, again.ball, again.pins) == (1, 2, 2)
    entry.undo(4, 1)
    entry.undo(4, 1)
    with pytest.raises(ManualEntryError, match="no ball to undo"):
        entry.undo(4, 1)
