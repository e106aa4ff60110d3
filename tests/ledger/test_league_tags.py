"""League matches in the ledger: the league tag and handicaps on ``CreateMatch``, recorded in
``match_created``, the handicapped lowest-score draw, the view, and old logs staying valid."""

from __future__ import annotations

import pytest

from alley_poker.ledger import (
    EventFormatError,
    MatchState,
    event_from_record,
    event_to_record,
    replay,
)
from alley_poker.ledger import commands as c
from alley_poker.ledger.rules import RuleBook, RuleBookError
from alley_poker.ledger.views import public_match_view
from tests.ledger.helpers import DESK, Match

LEAGUE = {"league_id": "tue", "night_id": "tue-2026-11-24", "night_date": "2026-11-24",
          "people": {"Ann": 17, "Bob": 18}}


def _bowl_game(match: Match, frames: dict[str, tuple[int, int]]) -> None:
    """Every bowler bowls ten frames of the same two balls (an open game)."""
    for _ in range(10):
        for bowler, balls in frames.items():
            match.balls(bowler, *balls)


def test_the_tags_are_recorded_and_folded():
    match = Match(["Ann", "Bob", "Cy"], league=LEAGUE, handicaps={"Ann": 31, "Bob": 0})
    created = match.events[0]
    assert created.data["league"] == LEAGUE
    assert created.data["handicaps"] == {"Ann": 31, "Bob": 0}
    assert match.state.league == LEAGUE and match.state.handicaps == {"Ann": 31, "Bob": 0}
    assert match.replayed() == match.state            # the tags survive the record round trip


def test_a_date_object_is_recorded_as_iso_text():
    import datetime
    match = Match(league={**LEAGUE, "night_date": datetime.date(2026, 11, 24)})
    assert match.events[0].data["league"]["night_date"] == "2026-11-24"


def test_a_match_outside_a_league_records_neither_key():
    match = Match()
    assert "league" not in match.events[0].data and "handicaps" not in match.events[0].data
    view = public_match_view(match.state)
    assert "league" not in view and "handicap" not in view["bowlers"]["Ann"]


def test_an_old_match_created_record_still_loads_and_replays():
    """A record stored before the league existed (no league, no handicaps, and a rule book
    without ``lowest_score_draw_by``) is valid and replays as a scratch match."""
    match = Match()
    match.balls("Ann", 9, 0)
    records = [event_to_record(e) for e in match.events]
    old_rules = {k: v for k, v in records[0]["data"]["rules"].items()
                 if k != "lowest_score_draw_by"}
    records[0] = {**records[0], "data": {**records[0]["data"], "rules": old_rules}}
    assert set(records[0]["data"]) == {"bowlers", "games", "ante_cents", "rules", "test_mode",
                                       "actor", "command", "action"}
    state = replay("m1", [event_from_record(r) for r in records])
    assert state.league is None and state.handicaps == {}
    assert state.rules.lowest_score_draw_by == "scratch"
    assert state.hands == match.state.hands and state.seq == match.state.seq


def test_unknown_keys_are_still_refused_on_read():
    record = event_to_record(Match().events[0])
    with pytest.raises(EventFormatError, match="unexpected \\['team'\\]"):
        event_from_record({**record, "data": {**record["data"], "team": "x"}})


@pytest.mark.parametrize(("league", "handicaps", "reason"), [
    ("tue", None, "league: league must be a table"),
    ({**LEAGUE, "extra": 1}, None, "unknown key(s) 'extra'"),
    ({k: v for k, v in LEAGUE.items() if k != "people"}, None, "missing people"),
    ({**LEAGUE, "league_id": "Tue Night"}, None, "league_id must be 1-32 lower-case"),
    ({**LEAGUE, "night_id": ""}, None, "night_id must be 1-64"),
    ({**LEAGUE, "night_date": "24/11/2026"}, None, "night_date must be a date as YYYY-MM-DD"),
    ({**LEAGUE, "people": {"Zed": 3}}, None, "people names 'Zed'"),
    ({**LEAGUE, "people": {"Ann": "17"}}, None, "Ann's bowler id must be a positive"),
    ({**LEAGUE, "people": {"Ann": True}}, None, "Ann's bowler id must be a positive"),
    ({**LEAGUE, "people": {"Ann": 5, "Bob": 5}}, None, "seats one roster bowler twice"),
    (None, ["Ann"], "handicaps: handicaps must map seat names"),
    (None, {"Zed": 3}, "handicaps: 'Zed' is not a bowler of this match"),
    (None, {"Ann": 301}, "Ann's handicap must be a whole number of pins from 0 to 300"),
    (None, {"Ann": -1}, "from 0 to 300"),
    (None, {"Ann": 3.5}, "from 0 to 300"),
])
def test_bad_tags_are_refused_naming_the_field(league, handicaps, reason):
    empty = Match(start=False)
    fresh = MatchState.empty("m1")
    empty.state = fresh
    refused = empty.refused(c.CreateMatch("m1", ["Ann", "Bob"], actor=DESK, league=league,
                                          handicaps=handicaps), reason)
    assert refused.field == ("league" if league is not None else "handicaps")
    assert fresh.status == "new"


def test_the_rule_book_key_takes_scratch_or_handicap_only():
    assert RuleBook.default().lowest_score_draw_by == "scratch"
    assert RuleBook.from_dict({"lowest_score_draw_by": "handicap"}).lowest_score_draw_by \
        == "handicap"
    with pytest.raises(RuleBookError, match="lowest_score_draw_by"):
        RuleBook.from_dict({"lowest_score_draw_by": "net"})


def test_the_lowest_scratch_series_draws_by_default_even_with_handicaps():
    # Ann bowls 80 (with her handicap of 31: 111), Bob 90: Ann is lowest by scratch.
    match = Match(["Ann", "Bob"], handicaps={"Ann": 31, "Bob": 0})
    _bowl_game(match, {"Ann": (8, 0), "Bob": (9, 0)})
    assert match.state.series == {"Ann": 80, "Bob": 90} and match.state.lowest == ["Ann"]
    offer = match.state.pending_for("Ann")[0]
    assert (offer["kind"], offer["reason"]) == ("end_draw", "lowest scratch series (80)")
    assert match.state.pending_for("Bob") == []


def test_a_league_may_draw_on_the_handicapped_series():
    # The same games, but the league's rule book judges 80 + 31 = 111 against Bob's 90.
    match = Match(["Ann", "Bob"], rules={"lowest_score_draw_by": "handicap"},
                  handicaps={"Ann": 31})
    _bowl_game(match, {"Ann": (8, 0), "Bob": (9, 0)})
    assert match.state.series == {"Ann": 80, "Bob": 90}     # the event keeps the scratch series
    assert match.state.lowest == ["Bob"]
    assert match.state.pending_for("Ann") == []
    offer = match.state.pending_for("Bob")[0]
    assert (offer["kind"], offer["reason"]) == ("end_draw", "lowest handicapped series (90)")


def test_a_handicapped_tie_offers_both_draws():
    match = Match(["Ann", "Bob"], rules={"lowest_score_draw_by": "handicap"},
                  handicaps={"Ann": 10})
    _bowl_game(match, {"Ann": (8, 0), "Bob": (9, 0)})       # 80 + 10 == 90
    assert match.state.lowest == ["Ann", "Bob"]


def test_the_view_shows_handicap_and_handicapped_total_beside_the_scratch_score():
    match = Match(["Ann", "Bob"], games=2, league=LEAGUE, handicaps={"Ann": 31})
    view = public_match_view(match.state)
    assert view["league"] == {"league_id": "tue", "night_id": "tue-2026-11-24",
                              "night_date": "2026-11-24"}
    assert view["handicaps"] == {"Ann": 31}
    assert (view["bowlers"]["Ann"]["handicap"], view["bowlers"]["Ann"]["scratch_series"],
            view["bowlers"]["Ann"]["handicap_series"]) == (31, 0, 0)   # no game begun yet
    match.balls("Ann", 7, 2)
    ann = public_match_view(match.state)["bowlers"]["Ann"]
    assert (ann["scratch_series"], ann["handicap_series"]) == (9, 40)
    bob = public_match_view(match.state)["bowlers"]["Bob"]
    assert (bob["handicap"], bob["scratch_series"], bob["handicap_series"]) == (0, 0, 0)
    for _ in range(9):
        match.balls("Ann", 7, 2)
    match.balls("Ann", 8, 0)                           # game 2 begun: two handicaps count
    ann = public_match_view(match.state)["bowlers"]["Ann"]
    assert (ann["scratch_series"], ann["handicap_series"]) == (98, 98 + 62)
