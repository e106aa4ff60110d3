"""Two leagues on the same lanes the same evening (an early and a late league): the late
night is laid out and seated from its own bowlers, never from the scorer lines the early
league's games left behind."""

from __future__ import annotations

from datetime import date

import pytest

from alley_poker.ledger import commands as c
from drivers.base import BowlerSlot, LaneOpened
from tests.service.tuesday_league import early_and_late_desk

EARLY = """name,scorer_name,average
Ed Hall,ED,150
Fay Moss,FAY,170
Gus Pike,GUS,160
Hal Rowe,HAL,140
"""
LATE = """name,scorer_name,average
Ivy Lane,IVY,150
Jo King,JO,170
Kim Cole,KIM,160
Lou Reed,LOU,140
"""
NIGHT = date(2026, 11, 24)
DESK = "commissioner:pat"


@pytest.fixture
def desk(store_service):
    desk = early_and_late_desk(store_service, EARLY, LATE, lane_pairs=((1, 2), (3, 4)))
    yield desk
    desk.close()


def everyone(desk, league_id):
    return [b.bowler_id for b in desk.store.bowlers(league_id)]


def test_a_late_league_is_not_seated_from_the_early_leagues_scorer_lines(desk, store_service):
    early = desk.nights.start("early", everyone(desk, "early"), actor=DESK, night_date=NIGHT)
    assert early.matches == ("early-2026-11-24-1-2", "early-2026-11-24-3-4")
    # The scorer opens the early league's games with its bowlers' names.
    for lane, names in ((1, ("ED",)), (2, ("FAY",)), (3, ("GUS",)), (4, ("HAL",))):
        store_service.handle_lane_event(LaneOpened(
            lane=lane, bowlers=tuple(BowlerSlot(i, n) for i, n in enumerate(names, 1)),
            game=1))
    for match_id in early.matches:
        store_service.execute(match_id, c.CommissionerVoidMatch(reason="early done",
                                                                actor=DESK))

    late = desk.nights.start("late", everyone(desk, "late"), actor=DESK, night_date=NIGHT)

    # Laid out as a night with no scorer line: two matches, each on its pair of lanes.
    assert late.matches == ("late-2026-11-24-1-2", "late-2026-11-24-3-4")
    for match_id, pair in zip(late.matches, ((1, 2), (3, 4)), strict=True):
        lanes = {lane for lane, _slot in store_service.lanes.assignment(match_id).slots}
        assert lanes == set(pair), (match_id, lanes)
        assert sorted(store_service.state(match_id).bowlers) == sorted(
            late.seating[match_id].values())
    # Nobody is asked who "ED" or "FAY" is: they bowled in the other league.
    assert desk.store.open_seat_requests() == []


def test_the_late_leagues_own_scorer_lines_still_seat_it(desk, store_service):
    early = desk.nights.start("early", everyone(desk, "early"), actor=DESK, night_date=NIGHT)
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "ED"), BowlerSlot(2, "FAY")), game=1))
    for match_id in early.matches:
        store_service.execute(match_id, c.CommissionerVoidMatch(reason="early done",
                                                                actor=DESK))
    # Before the late night starts, the scorer opens lane 1 for the late league.
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "LOU"), BowlerSlot(2, "IVY")), game=1))

    late = desk.nights.start("late", everyone(desk, "late"), actor=DESK, night_date=NIGHT)

    slots = store_service.lanes.assignment(late.matches[0]).slots
    assert slots[(1, 1)] == "Lou Reed" and slots[(1, 2)] == "Ivy Lane"
    assert desk.store.open_seat_requests() == []


def test_a_line_the_early_night_was_laid_out_from_is_not_used_again(desk, store_service):
    # The scorer opened lane 1 for the early league before its night started.
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "GUS"), BowlerSlot(2, "ED")), game=1))
    early = desk.nights.start("early", everyone(desk, "early"), actor=DESK, night_date=NIGHT)
    assert early.seating["early-2026-11-24-1-2"][(1, 1)] == "Gus Pike"
    for match_id in early.matches:
        store_service.execute(match_id, c.CommissionerVoidMatch(reason="early done",
                                                                actor=DESK))

    late = desk.nights.start("late", everyone(desk, "late"), actor=DESK, night_date=NIGHT)

    lanes = {lane for lane, _slot in store_service.lanes.assignment(late.matches[0]).slots}
    assert lanes == {1, 2}
    assert desk.store.open_seat_requests() == []
