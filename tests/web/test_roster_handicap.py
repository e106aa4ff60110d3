"""The roster's "tonight's handicap" is the one a night's start records: for a bowler whose
basis is the league average, their league average once it counts, not their book average."""

from __future__ import annotations

import pytest

from alley_poker.cli.season_demo import LEAGUE_ID, demo_league, run_season
from alley_poker.league.roster import MIN_LEAGUE_GAMES
from alley_poker.service.league_nights import handicap_of
from alley_poker.web.centre_access import centre_of
from tests.conftest import centre_app
from tests.web.conftest import OPEN_NIGHT, PIN, open_service
from tests.web.test_league_api import Desk


@pytest.mark.slow
def test_after_a_four_week_season_the_roster_shows_the_rules_handicap(tmp_path):
    database = tmp_path / "season.sqlite3"
    season = run_season(weeks=4, seed=11, database=database, echo=lambda line: None)
    averages = {row.name: (row.games, row.average) for row in season.standings}
    service = open_service(database)
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret", **OPEN_NIGHT)
    try:
        roster = Desk(app).get(f"/leagues/{LEAGUE_ID}/bowlers").get_json()["bowlers"]
        rule = demo_league().handicap
        league_basis = [b for b in roster if b["handicap_basis"] == "league"]
        assert {b["name"] for b in league_basis} >= {"Dot Miller", "Jo Walsh"}
        for bowler in league_basis:
            games, average = averages[bowler["name"]]
            assert games >= MIN_LEAGUE_GAMES
            assert bowler["handicap"] == rule.for_average(average), bowler
        for bowler in roster:
            if bowler["handicap_basis"] == "book":
                assert bowler["handicap"] == rule.for_average(bowler["average"]), bowler
        # The roster and a night's start agree for everyone.
        records = {row.bowler_id: (row.games, row.average) for row in season.standings}
        desk = centre_of(app).league_desk
        for person in desk.store.bowlers(LEAGUE_ID):
            shown = next(b["handicap"] for b in roster if b["bowler_id"] == person.bowler_id)
            assert shown == handicap_of(person, demo_league(), records.get)
        # The season moved some league averages away from the book's: those show it.
        assert any(b["handicap"] != rule.for_average(b["average"]) for b in league_basis)
    finally:
        centre_of(app).league_desk.close()
        service.repository.store.close()
