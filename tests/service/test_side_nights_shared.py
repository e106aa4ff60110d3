"""Side games kept in the database: two processes of a centre (two services over one store)
decide on the same night in turn and every event is kept once, in order; a stale append is
refused whole (real store: SQLite, and PostgreSQL when present)."""

from __future__ import annotations

from datetime import date, time

import pytest

from alley_poker.league import HandicapRule, League
from alley_poker.service import open_service
from alley_poker.service.league_desk import open_league_desk
from alley_poker.service.side_nights import SideNightError, SideNights
from alley_poker.side_games import BracketSettings, RecordEntry, SetSideGame, SideGameError
from alley_poker.store.leagues import LeagueStore
from alley_poker.store.store_errors import ConcurrencyConflict

DESK = "commissioner:pat"


@pytest.fixture
def two_processes(store_url):
    first, second = open_service(store_url), open_service(store_url)
    desk = open_league_desk(first, LeagueStore(
        first.repository.store.engine, centre=first.centre))
    desk.store.create_league(League(
        "tue", "Tuesday Poker", "house-rev-1.2", ante_cents=100, weekday=1,
        start_time=time(19, 0), time_zone="America/Chicago", lane_pairs=((1, 2),),
        games=3, handicap=HandicapRule()))
    other = SideNights(second)
    yield desk, other
    other.close()
    desk.close()
    for service in (first, second):
        service.repository.store.close()


def test_two_processes_take_turns_on_one_night(two_processes):
    desk, other = two_processes
    mine = desk.side_games
    night_id = mine.open(desk.store.league("tue"), date(2026, 11, 24), actor=DESK)
    mine.run(night_id, SetSideGame("hdcp", BracketSettings(
        games=(1, 2, 3), scoring="handicap", entry_cents=500, payouts_cents=(3000, 1000))),
        actor=DESK)
    assert other.night(night_id).seq == 2          # the other process reads the store
    mine.run(night_id, RecordEntry("hdcp", 1, 2, 1000), actor=DESK)
    other.run(night_id, RecordEntry("hdcp", 2, 1, 500), actor="commissioner:lee")
    mine.run(night_id, RecordEntry("hdcp", 1, 1, 500), actor=DESK)   # its copy was behind
    for process in (mine, other):
        night = process.night(night_id)
        assert night.book("hdcp").entries == {1: 3, 2: 1} and night.seq == 5
    assert [r["seq"] for r in mine.records(night_id)] == [1, 2, 3, 4, 5]

    # Refused: the domain's rule, and an append at a seq another writer took.
    with pytest.raises(SideGameError, match="paid"):
        other.run(night_id, RecordEntry("hdcp", 3, 1, 400), actor=DESK)
    with pytest.raises(ConcurrencyConflict):
        mine.log.append(night_id, mine.records(night_id)[-1:], expected_seq=4)
    with pytest.raises(SideNightError, match="has no side games"):
        other.run("tue-2026-12-01", RecordEntry("hdcp", 1, 1, 500), actor=DESK)
    assert mine.night(night_id).seq == 5
