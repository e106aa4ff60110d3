"""A league night in one step, and matches seated from the scorer's names (real store)."""

from __future__ import annotations

from datetime import date

import pytest

from alley_poker.service.league_nights import LeagueNightError
from alley_poker.service.seating import SeatingError
from drivers.base import BallRecorded, BowlerSlot, Flags, LaneOpened
from tests.service.tuesday_league import tuesday_desk

ROSTER = """name,scorer_name,average,handicap_basis,team
Ann Smith,ANN,150,book,Reds
Bob Jones,BOB,200,book,Reds
Cal Ray,CAL,,book,Blues
Dee Long,DEE,180,book,Blues
Eve Park,EVE,120,book,
Fay Moss,FAY,170,book,
"""
TUESDAY = date(2026, 11, 24)
DESK = "commissioner:pat"


@pytest.fixture
def desk(store_service):
    yield from tuesday_desk(store_service, ROSTER, ante_cents=200, games=1)


def ids(desk, *names):
    roster = {b.name: b.bowler_id for b in desk.store.bowlers("tue", include_retired=True)}
    return [roster[name] for name in names]


def ball(lane, slot, frame, pins, *, number=1, standing=None):
    return BallRecorded(lane=lane, bowler=slot, game=1, frame=frame, ball=number, pins=pins,
                        standing=standing, flags=Flags(), source="scorer")


def test_one_action_starts_every_match_of_the_night(desk, store_service):
    everyone = ids(desk, "Ann Smith", "Bob Jones", "Cal Ray", "Dee Long", "Eve Park",
                   "Fay Moss")
    started = desk.nights.start("tue", everyone, actor=DESK, night_date=TUESDAY)

    assert started.matches == ("tue-2026-11-24-1-2", "tue-2026-11-24-3-4")
    first = store_service.state("tue-2026-11-24-1-2")
    assert first.status == "playing"
    assert first.bowlers == ["Ann Smith", "Cal Ray", "Bob Jones"]  # lane 1 slots, then lane 2
    assert first.pot_cents == 3 * 200
    assert first.league["people"]["Ann Smith"] == everyone[0]
    # 90% of (220 - average); no average yet: no handicap.
    assert first.handicaps == {"Ann Smith": 63, "Bob Jones": 18, "Cal Ray": 0}
    assert store_service.lanes.bowler_at(2, 1) == ("tue-2026-11-24-1-2", "Bob Jones")
    assert [n.night_id
 for n in desk.store.nights("tue")] == ["tue-2026-11-24"]


def test_a_night_that_cannot_start_writes_nothing(desk, store_service):
    everyone = ids(desk, "Ann Smith", "Bob Jones", "Cal Ray", "Dee Long")
    desk.store.retire(everyone[3])
    with pytest.raises(LeagueNightError, match=r"retired.*Dee Long"):
        desk.nights.start("tue", everyone, actor=DESK, night_date=TUESDAY)
    with pytest.raises(LeagueNightError, match="at least 2 bowlers"):
        desk.nights.start("tue", everyone[:1], actor=DESK, night_date=TUESDAY)
    with pytest.raises(LeagueNightError, match="no league 'wed'"):
        desk.nights.start("wed", everyone[:2], actor=DESK, night_date=TUESDAY)
    assert store_service.repository.store.match_ids() == []
    assert list(desk.store.nights("tue")) == []

    desk.nights.start("tue", everyone[:3], actor=DESK, night_date=TUESDAY)
    with pytest.raises(LeagueNightError, match="already started"):
        desk.nights.start("tue", everyone[:3], actor=DESK, night_date=TUESDAY)


def test_the_scorers_names_seat_the_match_and_its_balls_deal_to_the_right_people(
        desk, store_service):
    desk.nights.start("tue", ids(desk, "Ann Smith", "Bob Jones", "Cal Ray"), actor=DESK,
                      night_date=TUESDAY)
    match_id = "tue-2026-11-24-1-2"
    # The desk's plan had Ann and Cal on lane 1; the scorer has Cal first, and Bob beside.
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "cal"), BowlerSlot(2, "BOB")), game=1))
    store_service.handle_lane_event(LaneOpened(
        lane=2, bowlers=(BowlerSlot(1, "Ann Smith"),), game=1))

    assert store_service.lanes.assignment(match_id).slots == {
        (1, 1): "Cal Ray", (1, 2): "Bob Jones", (2, 1): "Ann Smith"}
    store_service.handle_lane_event(ball(1, 2, 1, 10, standing=()))
    assert len(store_service.state(match_id).balls["Bob Jones"][0]) == 1
    assert store_service.state(match_id).balls["Cal Ray"][0] == []


def test_a_name_the_roster_does_not_know_waits_for_the_desk(desk, store_service):
    desk.nights.start("tue", ids(desk, "Ann Smith", "Bob Jones", "Cal Ray"), actor=DESK,
                      night_date=TUESDAY)
    match_id = "tue-2026-11-24-1-2"
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "ANN"), BowlerSlot(2, "SUB")), game=1))
    requests = desk.store.open_seat_requests()
    assert [(r.lane, r.slot, r.scorer_name) for r in requests] == [(1, 2, "SUB")]
    # Nobody was guessed into slot 2: its ball is held, not dealt.
    store_service.handle_lane_event(ball(1, 2, 1, 10, standing=()))
    assert all(not games[0] for games in store_service.state(match_id).balls.values())
    assert [item["slot"] for item in store_service.held.open_items()] == [2]
    # The same OPEN again (the next game) raises no second request.
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "ANN"), BowlerSlot(2, "SUB")), game=1))
    assert len(desk.store.open_seat_requests()) == 1

    with pytest.raises(SeatingError, match="Dee Long is not a bowler of the match on lanes 1-2"):
        desk.seating.pick(requests[0].id, "Dee Long", actor=DESK)
    said = desk.seating.pick(requests[0].id, "Cal Ray", actor=DESK)

    assert "1 held ball(s) applied" in said
    assert store_service.lanes.bowler_at(1, 2) == (match_id, "Cal Ray")
    assert len(store_service.state(match_id).balls["Cal Ray"][0]) == 1
    assert desk.store.open_seat_requests() == []
    assert store_service.held.open_items() == []
    with pytest.raises(SeatingError, match="no longer open"):
        desk.seating.pick(requests[0].id, "Cal Ray", actor=DESK)


def test_a_night_started_after_the_scorer_opened_its_lanes_follows_the_scorer(
        desk, store_service):
    store_service.handle_lane_event(LaneOpened(
        lane=3, bowlers=(BowlerSlot(1, "EVE"), BowlerSlot(2, "ANN")), game=1))
    started = desk.nights.start(
        "tue", ids(desk, "Ann Smith", "Bob Jones", "Cal Ray", "Dee Long", "Eve Park"),
        actor=DESK, night_date=TUESDAY)

    assert started.seating["tue-2026-11-24-3-4"][(3, 1)] == "Eve Park"
    assert started.seating["tue-2026-11-24-3-4"][(3, 2)] == "Ann Smith"
    assert "Ann Smith" not in started.seating["tue-2026-11-24-1-2"].values()


def test_a_night_started_where_the_scorer_was_not_heard_is_seated_by_the_process_that_heard_it(
        desk, store_service):
    """Scaled out, a web process starts the night and the worker heard the scorer: the
    worker seats the new matches from the lines it heard, when the night's start reaches it."""
    store_service.handle_lane_event(LaneOpened(
        lane=1, bowlers=(BowlerSlot(1, "CAL"), BowlerSlot(2, "ANN")), game=1))
    desk.nights.announced = lambda: {}  # as a web process would: it never heard the line

    desk.nights.start("tue", ids(desk, "Ann Smith", "Bob Jones", "Cal Ray"), actor=DESK,
                      night_date=TUESDAY)

    slots = store_service.lanes.assignment("tue-2026-11-24-1-2").slots
    assert slots[(1, 1)] == "Cal Ray" and slots[(1, 2)] == "Ann Smith"
