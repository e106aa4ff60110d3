"""The season demo: a league bowls its nights on the simulator, and the money reconciles."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from alley_poker.cli.season_demo import ABSENT, run_season
from alley_poker.service import open_service
from alley_poker.service.league_desk import open_league_desk
from alley_poker.store.leagues import LeagueStore


@pytest.mark.slow
def test_three_league_nights_settle_and_reconcile(tmp_path):
    lines: list[str] = []
    result = run_season(weeks=3, seed=5, database=tmp_path / "season.sqlite3",
                        echo=lines.append)

    assert result.unsettled == []
    assert result.reconciliation.balanced and result.reconciliation.in_play_cents == 0
    assert len(result.nights) == 3 and len(result.standings) == 12
    nights = {row.name: row.nights for row in result.standings}
    assert nights.pop(ABSENT[3][0]) == 2 and set(nights.values()) == {3}
    assert sum(row.matches_won for row in result.standings) >= 6
    assert any("the money reconciles to $0.00" in line for line in lines)

    # The standings are a projection of the log: a fresh process rebuilds the same figures.
    service = open_service(f"sqlite:///{result.database}")
    desk = open_league_desk(service, LeagueStore(
        service.repository.store.engine, centre=service.centre))
    try:
        with desk.standings.reading() as projection:
            assert projection.standings(result.league_id) == result.standings
        # Every ball dealt to the person the scorer named: each bowler bowled 3 games a night.
        assert {row.games for row in result.standings if row.nights == 3} == {9}
    finally:
        desk.close()
        service.repository.store.close()


@pytest.mark.slow
def test_the_league_demo_command_runs_a_four_week_season(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "alley_poker.cli", "league", "demo", "--weeks", "4",
         "--seed", "11", "--database", str(tmp_path / "season.sqlite3")],
        capture_output=True, text=True, timeout=600, cwd=Path(__file__).parents[1],
        env={**os.environ, "PYTHONUNBUFFERED": "1"})

    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "Season standings after 4 nights" in run.stdout
    assert "the money reconciles to $0.00" in run.stdout
