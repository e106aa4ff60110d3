"""From live-board snapshots to balls: a night seen through random polls is the serial feed's
night, ball for ball; re-polls deal nothing twice; late changes go to correction review; what
cannot be placed is reported, not guessed."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from alley_poker.bowling import Game
from drivers.base import BallCorrected, BallRecorded, BallRetracted, Flags
from drivers.board_server import BoardState
from drivers.dialects import make_dialect
from drivers.dialects.live_board import decode_board, encode_board, game_slots
from drivers.feed_writer import encode_lines
from drivers.simulator import Simulator
from drivers.snapshot_diff import SnapshotDiffer


def _per_lane(balls: list[BallRecorded]) -> dict[int, list[tuple]]:
    lanes: dict[int, list[tuple]] = defaultdict(list)
    for ball in balls:
        lanes[ball.lane].append((*ball.key, ball.pins, ball.flags))
    return dict(lanes)


def _serial_feed_balls(timed_events) -> list[BallRecorded]:
    """What the apf1 serial feed yields for the night: every line through the real dialect."""
    dialect = make_dialect("apf1", source="scorer")
    balls = []
    for timed in encode_lines(iter(timed_events), "apf1"):
        balls.extend(event for event in dialect.parse(timed.line.rstrip(b"\r\n"))
                     if type(event) is BallRecorded)
    return balls


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lanes=st.integers(1, 3), bowlers=st.integers(1, 4),
       games=st.integers(1, 2), data=st.data())
def test_a_night_seen_through_random_polls_is_the_serial_feeds_night(seed, lanes, bowlers,
                                                                     games, data):
    timed_events = list(Simulator(list(range(1, lanes + 1)), seed=seed, games=games,
                                  bowlers_per_lane=bowlers).events())
    # Poll moments: after any events at all, from every event to a few polls a night.
    moments = data.draw(st.lists(st.integers(0, len(timed_events)), max_size=40), "polls")
    state, differ, seen = BoardState(clock=lambda: 0.0), SnapshotDiffer(source="page"), []
    applied = 0
    for moment in [*sorted(moments), len(timed_events)]:
        for timed in timed_events[applied:moment]:
            state.apply(timed.event)
        applied = max(applied, moment)
        diff = differ.diff(decode_board(state.body()))
        assert diff.problems == [] and diff.held == {}
        assert not any(isinstance(event, BallCorrected | BallRetracted) for event in diff.events)
        seen.extend(diff.balls)
    serial = _serial_feed_balls(timed_events)
    assert len(seen) == len(serial) > 0
    # Per lane, ball for ball in bowling order (across lanes a poll's balls come lane by lane:
    # a page does not say which lane bowled first between two polls).
    assert _per_lane(seen) == _per_lane(serial)


def _board(*bowlers, lane=1, **kwargs):
    return decode_board(encode_board({lane: list(bowlers)}, **kwargs))


def test_a_repoll_deals_nothing_twice_and_new_balls_come_in_bowling_order():
    differ = SnapshotDiffer(source="page")
    first = differ.diff(_board(("ANN", [Game.from_rolls([10])]), ("BO", [Game()])))
    assert [ball.key for ball in first.balls] == [(1, 1, 1, 1, 1)]
    assert differ.diff(_board(("ANN", [Game.from_rolls([10])]), ("BO", [Game()]))).events == []
    # Three balls between polls, on two slots: they come out as they were bowled.
    later = differ.diff(_board(("ANN", [Game.from_rolls([10, 9])]),
                               ("BO", [Game.from_rolls([7, 2])])))
    assert [ball.key for ball in later.balls] == [(1, 2, 1, 1, 1), (1, 2, 1, 1, 2),
                                                 (1, 1, 1, 2, 1)]


def test_a_split_bit_filled_in_late_is_a_correction_not_a_new_deal():
    differ = SnapshotDiffer(source="page")
    plain = Game.from_rolls([{"pins": 8, "split": False}])
    differ.diff(_board(("ANN", [plain])))
    late = differ.diff(_board(("ANN", [Game.from_rolls([{"pins": 8, "split": True}])])))
    assert [type(event) for event in late.events] == [BallCorrected]
    assert late.events[0].flags == Flags(split=True) and late.events[0].key == (1, 1, 1, 1, 1)


def test_a_substitute_who_bowls_two_slots_is_two_bowlers():
    differ = SnapshotDiffer(source="page")
    diff = differ.diff(_board(("SUB", [Game.from_rolls([3])]), ("ANN", [Game.from_rolls([4])]),
                              ("SUB", [Game.from_rolls([5])])))
    assert [(ball.bowler, ball.pins) for ball in diff.balls] == [(1, 3), (2, 4), (3, 5)]


def test_a_lane_that_vanishes_is_reported_once_and_resumes_where_it_was():
    differ = SnapshotDiffer(source="page")
    two_lanes = {1: [("ANN", [Game.from_rolls([5])])], 2: [("BO", [Game.from_rolls([6])])]}
    differ.diff(decode_board(encode_board(two_lanes)))
    gone = differ.diff(decode_board(encode_board({1: two_lanes[1]})))
    assert [(p.lane, p.kind) for p in gone.problems] == [(2, "lane_vanished")]
    assert differ.diff(decode_board(encode_board({1: two_lanes[1]}))).problems == []
    back = differ.diff(decode_board(encode_board(
        {**two_lanes, 2: [("BO", [Game.from_rolls([6, 3])])]})))
    assert [ball.key for ball in back.balls] == [(2, 1, 1, 1, 2)] and back.problems == []


def test_a_restarted_game_is_reported_and_its_vanished_balls_are_retracted():
    differ = SnapshotDiffer(source="page")
    differ.diff(_board(("ANN", [Game.from_rolls([10, 7, 2])])))
    restarted = differ.diff(_board(("ANN", [Game.from_rolls([6])])))
    assert [p.kind for p in restarted.problems] == ["game_restarted"]
    kinds = [(type(event).__name__, event.frame, event.ball) for event in restarted.events]
    # The re-bowled 6 goes to the router as a ball (held there: the ledger has a strike).
    assert kinds == [("BallRetracted", 2, 2), ("BallRetracted", 2, 1), ("BallRecorded", 1, 1)]


def test_totals_that_do_not_rescore_hold_the_lanes_new_balls_until_they_do():
    differ = SnapshotDiffer(source="page")
    differ.diff(_board(("ANN", [Game.from_rolls([10])])))
    body = encode_board({1: [("ANN", [Game.from_rolls([10, 7, 2])])]})
    wrong = body.replace(b'"totals":[[19,', b'"totals":[[20,')  # the page says 20, not 19
    assert wrong != body
    held = differ.diff(decode_board(wrong))
    assert held.events == [] and "frame 1: the page's running total is 20" in held.held[1]
    released = differ.diff(decode_board(body))
    assert [ball.key for ball in released.balls] == [(1, 1, 1, 2, 1), (1, 1, 1, 2, 2)]


def test_the_tenth_frame_uses_all_three_slots_and_a_strikes_pad_is_ignored():
    game = Game.from_rolls([10] * 12)
    slots, totals = game_slots(game, pad=-1)
    assert slots == [10, -1] * 9 + [10, 10, 10] and totals[-1] == 300
    for pad in (0, 99):
        board = decode_board(encode_board({1: [("ANN", [game])]}).replace(
            b"[10,0,", f"[10,{pad},".encode()))
        assert len(board.lanes[1].bowlers[0].games[0].balls) == 12
