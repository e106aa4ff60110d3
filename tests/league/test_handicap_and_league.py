"""Handicaps and the league's own settings."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from datetime import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alley_poker.league import Bowler, HandicapRule, League, LeagueError, parse_start_time
from alley_poker.ledger.rules import RuleBook

TUESDAY = League("tue", "Tuesday Night", "house-rev-1.2", ante_cents=200, weekday=1,
                 start_time=time(19, 0), time_zone="America/Chicago",
                 lane_pairs=((1, 2), (3, 4)))


@given(percent=st.integers(0, 100), basis=st.integers(0, 300),
       average=st.integers(0, 300))
def test_a_handicap_is_the_floored_share_of_the_gap_and_never_negative(percent, basis, average):
    pins = HandicapRule(percent, basis).for_average(average)
    assert pins >= 0
    exact = (basis - average) * percent / 100
    assert pins == (int(exact) if exact > 0 else 0)


def test_a_league_average_replaces_the_book_one_only_after_nine_games():
    ann = Bowler(1, "tue", "Ann", "ANN", 150, "league", None)
    rule = HandicapRule(90, 220)
    assert ann.handicap(rule, league_average=180, league_games=8) == 63
    assert ann.handicap(rule, league_average=180, league_games=9) == 36
    book = replace(ann, handicap_basis="book")
    assert book.handicap(rule, league_average=180, league_games=30) == 63


@pytest.mark.parametrize(("changes", "field"), [
    ({"league_id": ""}, "league_id"),
    ({"league_id": "a" * 33}, "league_id"),
    ({"name": " "}, "name"),
    ({"name": "x" * 61}, "name"),
    ({"ante_cents": 0}, "ante_cents"),
    ({"weekday": 7}, "weekday"),
    ({"start_time": "19:00"}, "start_time"),
    ({"time_zone": "Mars/Olympus"}, "time_zone"),
    ({"lane_pairs": ()}, "lane_pairs"),
    ({"lane_pairs": ((2, 3),)}, "lane_pairs"),
    ({"games": 0}, "games"),
    ({"lowest_draw_by": "average"}, "lowest_draw_by"),
])
def test_a_bad_league_is_refused_naming_its_field(changes, field):
    with pytest.raises(LeagueError) as raised:
        replace(TUESDAY, **changes)
    assert raised.value.field == field


def test_a_league_below_its_rule_books_ante_is_refused():
    TUESDAY.check_rule_book(RuleBook.default())
    with pytest.raises(LeagueError, match=r"below the rule book house-rev-1\.2.s ante of 100"):
        replace(TUESDAY, ante_cents=50).check_rule_book(RuleBook.default())


def test_leagues_are_hashable_values():
    same = League("tue", "Tuesday Night", "house-rev-1.2", 200, 1, time(19), "America/Chicago",
                  [[1, 2], [3, 4]])
    assert same == TUESDAY and hash(same) == hash(TUESDAY)
    assert parse_start_time("19:00") == TUESDAY.start_time


def test_the_league_package_is_pure_domain():
    code = ("import sys, alley_poker.league; bad = sorted(m for m in sys.modules if "
            "m.split('.')[0] in ('flask', 'sqlalchemy', 'serial') or "
            "m.startswith(('alley_poker.web', 'alley_poker.store', 'alley_poker.service'))); "
            "print(bad)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
