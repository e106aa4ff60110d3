"""``alley-poker simulate --names`` bowls a league night with the roster's scorer names: the
service reads its lines over TCP and the match is seated from the names, with no seat
request and no ball held."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, time
from pathlib import Path

import pytest

from alley_poker.league import HandicapRule, League
from alley_poker.service.league_desk import open_league_desk
from alley_poker.store.leagues import LeagueStore
from drivers.serial_feed import BackoffSchedule, SerialFeed
from tests.web.conftest import free_port, open_service

REPO = Path(__file__).parents[2]
ROSTER = """name,scorer_name,average
Ann Smith,ANN,150
Bob Jones,BOB,180
Cy Young,CY,
"""
MATCH = "tue-2026-11-24-3-4"


@pytest.mark.slow
def test_simulate_names_bowls_a_league_night_seated_from_the_scorers_names(tmp_path):
    service = open_service(tmp_path / "ledger.sqlite3")
    desk = open_league_desk(service, LeagueStore(
        service.repository.store.engine, centre=service.centre))
    desk.store.create_league(League(
        "tue", "Tuesday Poker", "house-rev-1.2", ante_cents=200, weekday=1,
        start_time=time(19), time_zone="America/Chicago", lane_pairs=((3, 4),), games=1,
        handicap=HandicapRule(90, 220)))
    desk.store.import_roster("tue", ROSTER)
    started = desk.nights.start("tue", [b.bowler_id for b in desk.store.bowlers("tue")],
                                actor="commissioner:pat", night_date=date(2026, 11, 24))
    assert started.matches == (MATCH,)
    planned = started.seating[MATCH]
    port = free_port()
    # The scorer has them otherwise than the desk's plan: Bob and Cy on lane 3, Ann on 4.
    simulate = subprocess.Popen(
        [sys.executable, "-m", "alley_poker.cli", "simulate", "--lanes", "3-4",
         "--names", "BOB,CY", "--names", "ann", "--games", "1", "--speed", "0",
         "--seed", "5", "--url", f"socket://127.0.0.1:{port}"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    feed = SerialFeed(f"socket://127.0.0.1:{port}", "apf1", service.handle_lane_event,
                      source="scorer", backoff=BackoffSchedule(initial=0.05, maximum=0.2),
                      read_timeout=0.05)
    feed.start()
    try:
        out, err = simulate.communicate(timeout=120)
        assert simulate.returncode == 0, err
        written = int(out.split("wrote ")[1].split(" lines")[0])
        assert feed.wait_for(lambda h: h.lines_ok + h.lines_rejected >= written, 20)
        assert feed.health().lines_rejected == 0
    finally:
        feed.stop()
        if simulate.poll() is None:
            simulate.kill()
    try:
        slots = service.lanes.assignment(MATCH).slots
        assert slots == {(3, 1): "Bob Jones", (3, 2): "Cy Young", (4, 1): "Ann Smith"}
        assert slots != planned
        assert desk.store.open_seat_requests() == []
        assert service.held.open_items() == []
        balls = service.state(MATCH).balls
        assert {name: len(balls[name][0]) >= 11 for name in balls} == {
            "Ann Smith": True, "Bob Jones": True, "Cy Young": True}  # a whole game each
    finally:
        desk.close()
        service.repository.store.close()


def test_a_roster_file_is_bowled_as_a_night_lays_it_out(tmp_path):
    from alley_poker.league.night_plan import plan_night
    from drivers.named_lanes import named_lanes, roster_names

    roster = tmp_path / "roster.csv"
    roster.write_text("\ufeffname,scorer_name,average,active\nAnn Smith,ANN,150,yes\n"
                      "Bob Jones,BOB,300,yes\nCy Young,CY,,yes\nDee Long,DEE,170,no\n"
                      "Eve Park,EVE,120,\n", encoding="utf-8")
    names = roster_names(roster)
    assert [name for name, _average in names] == ["ANN", "BOB", "CY", "EVE"]  # Dee retired
    lanes = named_lanes([1, 2, 3, 4], [names], seed=3)
    night = plan_night([(1, 2), (3, 4)], [
        type("B", (), {"name": n, "scorer_name": n}) for n, _average in names])
    assert {(s.lane, slot): b.name for s in lanes for slot, b in enumerate(s.bowlers, 1)} == {
        key: name for pair in night.pairs for key, name in pair.slots.items()}
    assert lanes[0].bowlers[0].average == 150 and lanes[1].bowlers[0].average == 240

    bad = tmp_path / "bad.csv"
    bad.write_text("name,scorer_name\nAnn,A;N\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: scorer_name"):
        roster_names(bad)
