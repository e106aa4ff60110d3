"""The end-of-match deadlines are the league's house rules: a league whose rule book shortens
the end draw and the buys gets those deadlines on its night, and their jobs are scheduled at
them; a rule book with a deadline that makes no sense stops the night with the key named."""

from __future__ import annotations

from datetime import date, time, timedelta
from pathlib import Path

import pytest

from alley_poker.league import HandicapRule, League
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import parse_iso
from alley_poker.service.league_desk import open_league_desk
from alley_poker.service.league_nights import LeagueNightError
from alley_poker.service.scheduler import GRACE, DecisionScheduler, job_id
from alley_poker.store.leagues import LeagueStore

TUESDAY = date(2026, 11, 24)
DESK = "commissioner:pat"
ROSTER = """name,scorer_name,average
Ann,ANN,150
Bob,BOB,180
Cal,CAL,120
"""
QUICK_END = """name = "tuesday-quick-end"
# The Tuesday league goes home early: a minute for the lowest-score draw, 30 s for a buy.
end_draw_deadline_s = 60
buy_deadline_s = 30
"""


@pytest.fixture
def league_with_rules(store_service, tmp_path_factory):
    """A Tuesday league on lanes 1-2 whose rule book is a file the test writes."""
    folder = tmp_path_factory.mktemp("rules")
    desk = open_league_desk(store_service, LeagueStore(
        store_service.repository.store.engine, centre=store_service.centre))

    def make(text: str) -> Path:
        book = folder / "tue.toml"
        book.write_text(text, encoding="utf-8")
        desk.store.create_league(League(
            "tue", "Tuesday Poker", str(book), ante_cents=200, weekday=1,
            start_time=time(19, 0), time_zone="America/Chicago", lane_pairs=((1, 2),),
            games=1, handicap=HandicapRule(0, 220)))
        desk.store.import_roster("tue", ROSTER)
        return book

    yield desk, make
    desk.close()


def opened(service, match_id: str, kind: str) -> list[tuple[str, timedelta]]:
    """Each open decision of ``kind``: its id and how long it was given."""
    records = service.repository.store.load(match_id)
    found = []
    for record in records:
        data = record["data"]
        if record["type"] == "decision_opened" and data["kind"] == kind \
                and data["id"] in service.state(match_id).decisions:
            found.append((data["id"], parse_iso(data["deadline"]) - parse_iso(record["at"])))
    return found


def test_a_league_rule_book_shortens_the_end_draw_and_the_buys(league_with_rules,
                                                               store_service):
    desk, make = league_with_rules
    make(QUICK_END)
    roster = [b.bowler_id for b in desk.store.bowlers("tue")]
    (match_id,) = desk.nights.start("tue", roster, actor=DESK, night_date=TUESDAY).matches
    scheduler = DecisionScheduler(store_service)
    scheduler.start()
    try:
        for _frame in range(10):
            for bowler, pins in (("Ann", 7), ("Bob", 8), ("Cal", 2)):
                for count in (pins, 0):
                    store_service.execute(match_id, c.RecordBall(bowler, 1, count,
                                                                 actor="feed:t"))
        state = store_service.state(match_id)
        assert state.rules.end_draw_deadline_s == 60 and state.rules.buy_deadline_s == 30
        draws = opened(store_service, match_id, "end_draw")
        assert draws == [(draws[0][0], timedelta(seconds=60))], "Cal, lowest, for a minute"
        assert scheduler.pending_deadlines() == {
            job_id(match_id, draws[0][0]):
                parse_iso(state.decisions[draws[0][0]]["deadline"]) + GRACE}

        store_service.execute(match_id, c.DecideEndDraw("Cal", False, actor="bowler:Cal"))
        buys = opened(store_service, match_id, "buy")
        assert [length for _id, length in buys] == [timedelta(seconds=30)] * 3
        assert sorted(scheduler.pending_jobs()) == sorted(job_id(match_id, i) for i, _ in buys)
    finally:
        scheduler.shutdown()


@pytest.mark.parametrize("line, shown", [("buy_deadline_s = 0", "not 0"),
                                         ('end_draw_deadline_s = "5 minutes"',
                                          "not '5 minutes'")])
def test_a_deadline_that_makes_no_sense_stops_the_night_naming_the_key(
        league_with_rules, store_service, line, shown):
    desk, make = league_with_rules
    key = line.split(" =")[0]
    book = make("\n".join(line if old.startswith(key) else old
                          for old in QUICK_END.splitlines()))
    roster = [b.bowler_id for b in desk.store.bowlers("tue")]
    with pytest.raises(LeagueNightError) as refused:
        desk.nights.start("tue", roster, actor=DESK, night_date=TUESDAY)
    assert str(refused.value) == (
        f"the league's rule book {str(book)!r} does not load: {book}: {key}: a deadline is a "
        f"whole number of seconds from 1 to 604800 (a week), e.g. 60 for a minute; {shown}")
    assert refused.value.field == "rule_book"
    assert store_service.repository.store.match_ids() == []
    assert list(desk.store.nights("tue")) == []
