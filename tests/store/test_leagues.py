"""The league store on SQLite and PostgreSQL: what a commissioner does to leagues and rosters,
and that bad input changes nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, time

import pytest

from alley_poker.league import (
    BowlerDraft,
    HandicapRule,
    League,
    LeagueError,
    LeagueNotFound,
    RosterImportError,
)
from alley_poker.store import EventStore
from alley_poker.store.leagues import LeagueStore

TUESDAY = League("tue", "Tuesday Night", "house-rev-1.2", 200, weekday=1,
                 start_time=time(19, 30), time_zone="America/Chicago",
                 lane_pairs=((1, 2), (3, 4)), games=3, handicap=HandicapRule(80, 210),
                 lowest_draw_by="handicap")
ROSTER = """name,scorer_name,average,handicap_basis,team
Ann Smith,ANN,152,book,Pin Pals
Bob Jones,BOB,,league,
Cal Ray,CAL,201,,Pin Pals
"""


@pytest.fixture
def leagues(store: EventStore) -> LeagueStore:
    made = LeagueStore(store.engine)
    made.create_league(TUESDAY)
    return made


def test_a_league_comes_back_as_it_was_made_and_as_edited(leagues):
    assert leagues.league("tue") == TUESDAY
    later = replace(TUESDAY, name="Tuesday Late", start_time=time(21, 0), ante_cents=300,
                    lane_pairs=((5, 6),))
    leagues.update_league(later)
    assert leagues.league("tue") == later
    assert leagues.leagues() == [later]
    with pytest.raises(LeagueError, match="already a league 'tue'"):
        leagues.create_league(TUESDAY)
    with pytest.raises(LeagueNotFound):
        leagues.league("wed")


def test_centres_do_not_see_each_others_leagues(leagues, store):
    north = LeagueStore(store.engine, centre="north")
    assert north.leagues() == []
    north.create_league(TUESDAY)      # the same id in another centre is another league
    north.import_roster("tue", ROSTER)
    assert len(leagues.bowlers("tue")) == 0


def test_a_roster_import_adds_every_bowler(leagues):
    added = leagues.import_roster("tue", ROSTER)
    assert [(b.name, b.scorer_name, b.average, b.handicap_basis, b.team) for b in added] == [
        ("Ann Smith", "ANN", 152, "book", "Pin Pals"), ("Bob Jones", "BOB", None, "league", None),
        ("Cal Ray", "CAL", 201, "book", "Pin Pals")]
    assert leagues.bowlers("tue") == added
    assert leagues.bowler(added[1].bowler_id) == added[1]


def test_a_roster_with_a_bad_row_imports_nothing(leagues):
    leagues.add_bowler("tue", BowlerDraft("Dot Lee", "DOT", 140))
    bad = ROSTER + "dot lee,DL,130,,\nEve,EVE,abc,,\n"
    with pytest.raises(RosterImportError) as raised:
        leagues.import_roster("tue", bad)
    assert [line for line, _ in raised.value.problems] == [5, 6]
    assert [b.name for b in leagues.bowlers("tue")] == ["Dot Lee"]


def test_add_edit_retire_and_reactivate_a_bowler(leagues):
    ann = leagues.add_bowler("tue", BowlerDraft("Ann Smith", "ANN", 152))
    bob = leagues.add_bowler("tue", BowlerDraft("Bob Jones", "BOB"))
    edited = leagues.update_bowler(ann.bowler_id, average=160, team="Pin Pals")
    assert (edited.average, edited.team, edited.name) == (160, "Pin Pals", "Ann Smith")
    assert leagues.bowler(ann.bowler_id) == edited

    retired = leagues.retire(bob.bowler_id)
    assert not retired.active
    assert [b.name for b in leagues.bowlers("tue")] == ["Ann Smith"]
    assert [b.name for b in leagues.bowlers("tue", include_retired=True)] == [
        "Ann Smith", "Bob Jones"]
    # A retired bowler's name is still theirs: a newcomer may not take it.
    with pytest.raises(LeagueError, match="retired: reactivate them instead"):
        leagues.add_bowler("tue", BowlerDraft("BOB JONES", "BJ"))
    assert leagues.reactivate(bob.bowler_id).active
    assert [b.name for b in leagues.bowlers("tue")] == ["Ann Smith", "Bob Jones"]


def test_a_bad_edit_is_refused_and_changes_nothing(leagues):
    ann = leagues.add_bowler("tue", BowlerDraft("Ann Smith", "ANN", 152))
    leagues.add_bowler("tue", BowlerDraft("Bob Jones", "BOB"))
    for changes, field in [({"name": "bob jones"}, "name"), ({"scorer_name": "bob"}, "scorer_name"),
                           ({"average": 301}, "average"), ({"nickname": "Annie"}, "nickname"),
                           ({"handicap_basis": "guess"}, "handicap_basis")]:
        with pytest.raises(LeagueError) as raised:
            leagues.update_bowler(ann.bowler_id, **changes)
        assert raised.value.field == field
    assert leagues.bowler(ann.bowler_id) == ann
    with pytest.raises(LeagueNotFound):
        leagues.update_bowler(9999, average=100)
    with pytest.raises(LeagueNotFound):
        leagues.add_bowler("wed", BowlerDraft("Eve", "EVE"))


def test_a_night_records_who_checked_in_once(leagues):
    ann, bob, cal = leagues.import_roster("tue", ROSTER)
    leagues.retire(cal.bowler_id)
    with pytest.raises(LeagueError, match="Cal Ray is retired"):
        leagues.record_night("tue", date(2026, 11, 24), [ann.bowler_id, cal.bowler_id],
                             actor="desk:pat")
    with pytest.raises(LeagueError, match="not on the tue roster"):
        leagues.record_night("tue", date(2026, 11, 24), [ann.bowler_id, 9999], actor="desk:pat")
    assert leagues.nights("tue") == []

    night = leagues.record_night("tue", date(2026, 11, 24), [bob.bowler_id, ann.bowler_id],
                                 actor="desk:pat")
    assert night == "tue-2026-11-24"
    [kept] = leagues.nights("tue")
    assert (kept.night_date, kept.checked_in, kept.started_by) == (
        date(2026, 11, 24), (bob.bowler_id, ann.bowler_id), "desk:pat")
    assert kept.started_at.utcoffset().total_seconds() == 0
    assert leagues.night(night) == kept
    with pytest.raises(LeagueError, match=r"already started by the desk$"):  # not desk:pat
        leagues.record_night("tue", date(2026, 11, 24), [ann.bowler_id], actor="desk:sam")


def test_a_name_the_roster_cannot_place_waits_for_the_desk(leagues):
    ann, *_ = leagues.import_roster("tue", ROSTER)
    request = leagues.raise_seat_request("tue-2026-11-24-1-2", lane=1, slot=3,
                                         scorer_name="ANNIE")
    again = leagues.raise_seat_request("tue-2026-11-24-1-2", lane=1, slot=3,
                                       scorer_name="ANNIE")
    assert again == request and request.open
    assert leagues.open_seat_requests() == [request]
    assert leagues.open_seat_requests("another-match") == []

    resolved = leagues.resolve_seat_request(request.id, ann.bowler_id, actor="desk:pat")
    assert (resolved.resolved_bowler, resolved.resolved_by, resolved.open) == (
        ann.bowler_id, "desk:pat", False)
    assert leagues.open_seat_requests() == []
    with pytest.raises(LeagueError, match="already answered at another tablet"):
        leagues.resolve_seat_request(request.id, ann.bowler_id, actor="desk:sam")
