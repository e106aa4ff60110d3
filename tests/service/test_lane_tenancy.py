"""Lanes that change hands: a ball belongs to the match seated when it was bowled, never to
the next match on the lanes because it was left over (docs/service.md)."""

from __future__ import annotations

import pytest

from alley_poker.ledger.commands import CommissionerVoidMatch, ConsentToAnte, StartMatch
from alley_poker.service import AlleyService
from drivers.base import BallRecorded, BowlerSlot, LaneOpened, ScoresheetSnapshot, SheetBall
from drivers.dialects.apf1 import Apf1Dialect, frame_line
from tests.service.test_router import MemoryRepository, ball
from tests.web.conftest import open_service

DESK = "commissioner:pat"
#: A whole game of 9-0 frames (90), as (frame, ball, pins).
NINES = [(frame, number, pins) for frame in range(1, 11) for number, pins in ((1, 9), (2, 0))]


def start(service: AlleyService, match_id: str, slots: dict) -> None:
    service.create_match(match_id, slots, games=1, actor=DESK)
    for bowler in slots.values():
        service.execute(match_id, ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, StartMatch(actor=DESK))


def bowl(service: AlleyService, balls, **where) -> list[bool]:
    return [service.handle_lane_event(ball(frame, number, pins, **where))
            for frame, number, pins in balls]


def pins_of(service: AlleyService, match_id: str, bowler: str) -> list[int]:
    return [b["pins"] for b in service.state(match_id).balls[bowler][0]]


@pytest.fixture
def early():
    """The early league's match on lanes 1-2 (Ann in lane 1 slot 1) has bowled three
    frames of its game and is then voided: its lanes are free for the late league."""
    service = AlleyService(MemoryRepository())
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    bowl(service, NINES[:6])
    service.execute("early", CommissionerVoidMatch(reason="the early night is over",
                                                   actor=DESK))
    return service


def test_a_left_over_ball_of_the_early_match_never_deals_into_the_late_one(early):
    start(early, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    # The scorer's line for Ann's 4th frame comes late (a re-send after a restart).
    refused = early.handle_lane_event(ball(4, 1, 9))
    assert refused, "the early match is over: the ball is refused there"
    (item,) = early.held.open_items()
    assert item["match_id"] == "early" and item["bowler"] == "Ann"
    assert pins_of(early, "late", "Ivy") == []
    # The late league's scorer opens the lane and Ivy bowls her game: strikes all the way.
    early.handle_lane_event(LaneOpened(lane=1, bowlers=(BowlerSlot(1, "IVY"),), game=1))
    bowl(early, [(frame, 1, 10) for frame in range(1, 10)] + [(10, 1, 10), (10, 2, 10),
                                                             (10, 3, 10)])
    assert pins_of(early, "late", "Ivy") == [10] * 12, "Ann's 9 never reaches Ivy's frame 4"
    assert early.held.open_items("late") == []
    assert pins_of(early, "early", "Ann") == [9, 0] * 3


def test_a_left_over_line_heard_before_the_late_game_opens_waits_for_nobody(early):
    """The reader restarted after the lanes changed hands (it remembers no scorer game), and
    the scorer re-sends its last lines: the early game's 4th frame, then the late league's
    OPEN. The early ball is never dealt when Ivy's game reaches its frame."""
    restarted = AlleyService(early.repository)
    start(restarted, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    restarted.handle_lane_event(ball(4, 1, 9))  # Ann's, re-sent: held waiting in "late"
    restarted.handle_lane_event(LaneOpened(lane=1, bowlers=(BowlerSlot(1, "IVY"),), game=1))
    bowl(restarted, [(frame, 1, 10) for frame in range(1, 6)])
    assert pins_of(restarted, "late", "Ivy") == [10] * 5
    (item,) = restarted.held.open_items()
    assert (item["ball"]["frame"], item["ball"]["pins"]) == (4, 9), "kept for the desk"


def test_a_first_ball_unlike_the_old_games_is_a_new_game_even_without_an_open(early):
    start(early, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    assert bowl(early, [(1, 1, 7), (1, 2, 2)]) == [False, False]
    assert pins_of(early, "late", "Ivy") == [7, 2]
    assert early.held.open_items() == []


def test_an_exact_resend_of_the_early_matchs_ball_is_a_harmless_duplicate(early):
    start(early, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    duplicates = early.router.stats.duplicates
    assert early.handle_lane_event(ball(3, 2, 0)) is False  # Ann's last ball, again
    assert early.router.stats.duplicates == duplicates + 1
    assert pins_of(early, "late", "Ivy") == [] and early.held.open_items() == []


def test_a_sheet_of_the_early_game_is_not_recovered_into_the_late_match(early):
    start(early, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    sheet = ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer", frames=tuple(
        (SheetBall(9), SheetBall(0)) for _frame in range(4)))
    early.handle_lane_event(sheet)
    assert pins_of(early, "late", "Ivy") == []
    assert pins_of(early, "early", "Ann") == [9, 0] * 3


def nines_sheet(frames: int) -> ScoresheetSnapshot:
    return ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer", frames=tuple(
        (SheetBall(9), SheetBall(0)) for _frame in range(frames)))


def test_the_sheet_of_a_finished_early_game_stays_with_the_early_match():
    """The scorer sends a sheet after a game's last frame; read after the early match
    settled and the late league took the lanes (a busy reader), it is the early game's
    whole sheet, not a new game: Ivy, seated where Ann bowled, is dealt none of it."""
    service = AlleyService(MemoryRepository())
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    bowl(service, NINES)
    service.execute("early", CommissionerVoidMatch(reason="over", actor=DESK))
    start(service, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    service.handle_lane_event(nines_sheet(10))
    assert pins_of(service, "late", "Ivy") == []
    assert pins_of(service, "early", "Ann") == [9, 0] * 10
    assert service.held.open_items() == []
    # Ivy's own game then counts from its first ball.
    service.handle_lane_event(LaneOpened(lane=1, bowlers=(BowlerSlot(1, "IVY"),), game=1))
    bowl(service, [(1, 1, 10), (2, 1, 7), (2, 2, 3)])
    assert pins_of(service, "late", "Ivy") == [10, 7, 3]


def test_a_sheet_of_another_game_under_the_old_number_is_the_late_matchs():
    """A reader that missed the late game's OPEN and first lines (a cable out) learns them
    from the sheet: its balls are not the early game's, so they are the late match's."""
    service = AlleyService(MemoryRepository())
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    bowl(service, NINES)
    service.execute("early", CommissionerVoidMatch(reason="over", actor=DESK))
    start(service, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    service.handle_lane_event(ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer",
                                                 frames=((SheetBall(7), SheetBall(2)),)))
    assert pins_of(service, "late", "Ivy") == [7, 2]
    assert pins_of(service, "early", "Ann") == [9, 0] * 10


@pytest.fixture
def restarted(tmp_path):
    """The early match bowled Ann's whole game (lane 1 slot 1) and is over; then the reader
    restarts (it remembers no scorer game) and the late match takes the lanes, Ivy seated
    where Ann bowled."""
    database = tmp_path / "ledger.sqlite3"
    service = open_service(database)
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    bowl(service, NINES)
    service.execute("early", CommissionerVoidMatch(reason="over", actor=DESK))
    again = open_service(database)
    start(again, "late", {(1, 1): "Ivy", (2, 1): "Jo"})
    return again


def test_a_reader_restarted_between_the_leagues_keeps_the_early_games_last_sheet(restarted):
    """The scorer re-sends the early game's last sheet before it opens the lane for the late
    league: the assignment log says who held the slot last, and that match recorded the game
    as the sheet shows it, so Ivy is dealt none of it."""
    restarted.handle_lane_event(nines_sheet(10))
    assert pins_of(restarted, "late", "Ivy") == []
    assert restarted.held.open_items("late") == []
    restarted.handle_lane_event(LaneOpened(lane=1, bowlers=(BowlerSlot(1, "IVY"),), game=1))
    bowl(restarted, [(1, 1, 10), (2, 1, 7), (2, 2, 3)])
    assert pins_of(restarted, "late", "Ivy") == [10, 7, 3]


def test_a_reader_restarted_between_the_leagues_takes_a_late_sheet_unlike_the_early_game(
        restarted):
    """The sheet is not the early game's (the cable was out while Ivy bowled her first
    frame): her frame is recovered from it."""
    restarted.handle_lane_event(ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer",
                                                   frames=((SheetBall(7), SheetBall(2)),)))
    assert pins_of(restarted, "late", "Ivy") == [7, 2]


def test_balls_of_a_slot_nobody_held_stay_with_the_match_on_the_lane():
    service = AlleyService(MemoryRepository())
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    service.handle_lane_event(ball(1, 1, 10, slot=2))  # slot 2: nobody of the early match
    (item,) = service.held.open_items()
    assert item["match_id"] == "early" and item["bowler"] is None
    service.execute("early", CommissionerVoidMatch(reason="over", actor=DESK))
    start(service, "late", {(1, 2): "Ivy", (2, 1): "Jo"})
    outcome = service.router.apply_held(item["id"], actor=DESK)
    assert not outcome.done and "stays with that match" in outcome.message
    assert pins_of(service, "late", "Ivy") == []
    assert [i["id"] for i in service.held.open_items()] == [item["id"]]


def test_a_strangers_late_line_never_reaches_the_late_bowler_in_that_slot():
    """The early scorer's stranger (slot 2, nobody of the early match) bowled two frames;
    the late match seats Jo in that slot; the scorer, restarted, re-sends the stranger's
    last ball: it stays on the early match's list, and Jo's game is her own."""
    service = AlleyService(MemoryRepository())
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    bowl(service, NINES[:4], slot=2)
    held = {item["id"] for item in service.held.open_items()}
    assert len(held) == 4
    service.execute("early", CommissionerVoidMatch(reason="over", actor=DESK))
    start(service, "late", {(1, 1): "Ivy", (1, 2): "Jo"})
    service.handle_lane_event(ball(2, 2, 0, slot=2))  # re-sent under a new number
    service.handle_lane_event(ball(1, 1, 9, slot=2))  # and its first: a repeat, not Jo's
    assert {item["id"] for item in service.held.open_items()} == held
    assert service.held.open_items("late") == []
    # The scorer opens the lane for the late league: Jo's own game, whatever her first ball.
    service.handle_lane_event(LaneOpened(lane=1, game=1, bowlers=(BowlerSlot(1, "IVY"),
                                                                  BowlerSlot(2, "JO"))))
    bowl(service, [(1, 1, 9), (1, 2, 0), (2, 1, 7)], slot=2)
    assert pins_of(service, "late", "Jo") == [9, 0, 7]
    assert service.held.open_items("late") == []


def test_balls_held_before_a_match_took_the_lanes_are_its_past_once_it_is_over():
    service = AlleyService(MemoryRepository())
    service.handle_lane_event(ball(1, 1, 10, lane=2, slot=2))  # no match on lanes 1-2 yet
    (item,) = service.held.open_items()
    assert item["match_id"] is None
    start(service, "early", {(1, 1): "Ann", (2, 1): "Bob"})
    service.execute("early", CommissionerVoidMatch(reason="over", actor=DESK))
    (item,) = service.held.open_items()
    assert item["match_id"] == "early", "the early match's lanes 1-2 keep it"
    start(service, "late", {(2, 2): "Ivy", (1, 1): "Jo"})
    assert not service.router.apply_held(item["id"], actor=DESK).done
    assert pins_of(service, "late", "Ivy") == []


def test_a_match_still_in_play_follows_the_desks_seating():
    """Only a match that is over keeps its games: while one plays, the desk's seating
    decides whose a slot's balls are (a bowler moved to another slot)."""
    service = AlleyService(MemoryRepository())
    start(service, "m1", {(1, 1): "Ann", (1, 2): "Bob"})
    bowl(service, NINES[:2])
    service.reassign_lanes("m1", {(1, 2): "Ann", (1, 1): "Bob"}, actor=DESK, reason="swap")
    bowl(service, NINES[:2])
    assert pins_of(service, "m1", "Bob") == [9, 0]


def test_the_reader_takes_a_new_game_numbered_as_an_old_one():
    """The apf1 reader's own check: a scorer that opens the lane again (or simply bowls a
    first ball once the game is over) starts a new game under the same number."""
    dialect = Apf1Dialect(source="scorer")
    seq = iter(range(1, 100))

    def parse(record: str) -> list:
        return dialect.parse(frame_line(f"APF1,{next(seq)},{record}"))

    for frame in range(1, 11):
        parse(f"BALL,1,1,1,{frame},1,9,10,-")
        parse(f"BALL,1,1,1,{frame},2,0,10,-")
    (first,) = parse("BALL,1,1,1,1,1,7,8.9.10,-")  # no OPEN: the game was over
    assert isinstance(first, BallRecorded) and first.pins == 7
    parse("OPEN,1,1,1=IVY")  # the lane opened again mid-game: a new game 1
    (again,) = parse("BALL,1,1,1,1,1,10,-,-")
    assert again.pins == 10
