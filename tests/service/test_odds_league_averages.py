"""The live odds start a league bowler from their own average (the roster's, or the league's
once the season gives one), not from the centre's typical bowler."""

from __future__ import annotations

from datetime import time

import pytest

from alley_poker.league import BowlerDraft, League
from alley_poker.odds import win_odds
from alley_poker.service.bus import InProcessBus
from alley_poker.service.league_desk import bowler_averages
from alley_poker.service.live_odds import LiveOdds
from alley_poker.store import EventStore
from alley_poker.store.leagues import LeagueStore
from benchmarks._practice_match import PracticeMatch

LEAGUE = League("tue", "Tuesday Night", "house-rev-1.2", 100, weekday=1,
                start_time=time(19, 30), time_zone="UTC", lane_pairs=((1, 2),), games=1)


def _league_match(tmp_path):
    store = EventStore.open(f"sqlite:///{tmp_path / 'alley.sqlite3'}")
    leagues = LeagueStore(store.engine)
    leagues.create_league(LEAGUE)
    leagues.add_bowler("tue", BowlerDraft(name="Ace", scorer_name="ACE", average=230))
    leagues.add_bowler("tue", BowlerDraft(name="Newbie", scorer_name="NEW", average=100))
    leagues.add_bowler("tue", BowlerDraft(name="Elsewhere", scorer_name="ELS", average=180))
    state = PracticeMatch(("Ace", "Newbie"), seed=12).play(2).state.clone()
    state.league = {"league_id": "tue", "night_id": "tue-1", "night_date": "2026-11-24"}
    return store, leagues, state


def test_a_league_match_knows_its_bowlers_averages(tmp_path):
    store, leagues, state = _league_match(tmp_path)
    try:
        assert bowler_averages(leagues)(state) == {"Ace": 230, "Newbie": 100}
        outside = state.clone()
        outside.league = None
        assert bowler_averages(leagues)(outside) == {}
    finally:
        store.close()


@pytest.mark.slow
def test_the_odds_favour_the_bowler_with_the_better_average(tmp_path):
    store, leagues, state = _league_match(tmp_path)
    bus = InProcessBus()
    odds = LiveOdds(bus, iterations=600, first_iterations=600, processes=0,
                    averages=bowler_averages(leagues))
    try:
        odds.request("m1", state)
        assert odds.wait_idle(120)
        informed = odds.latest("m1")["bowlers"]
    finally:
        odds.stop()
        store.close()
    blind = win_odds(state, iterations=600, seed=4)
    # Unknown bowlers are both the centre's typical bowler after two balls; knowing that
    # one averages 230 and the other 100 moves the odds well beyond the runs' noise (±2 pp).
    assert informed["Ace"]["win"] > blind.bowlers["Ace"].win + 0.08
    assert informed["Ace"]["win"] > informed["Newbie"]["win"]
