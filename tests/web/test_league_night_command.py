"""``alley-poker league night start``: the desk's shell starts a night through the running
server's API with an API token (the server is the process that routes the scorer's balls)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from alley_poker.web.centre_access import centre_of
from tests.web.conftest import free_port
from tests.web.test_league_api import ROSTER, TUESDAY, Desk

REPO = Path(__file__).parents[2]


def league_night(live_server, token: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "alley_poker.cli", "league", "night", "start", "tue",
         "--server", live_server.url, *args],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "ALLEY_POKER_TOKEN": token})


@pytest.mark.slow
def test_the_command_line_checks_in_and_starts_the_night(app, live_server, service):
    desk = Desk(app)
    assert desk.send("POST", "/leagues", TUESDAY).status_code == 201
    assert desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER}).status_code == 201
    token = centre_of(app).api_tokens.create("desk shell").secret

    unknown = league_night(live_server, token, "--bowler", "ANN", "--bowler", "ZED",
                           "--date", "2026-11-24")
    assert unknown.returncode != 0
    assert "'ZED' is nobody on the roster" in unknown.stderr
    refused = league_night(live_server, "not-a-token", "--all", "--date", "2026-11-24")
    assert refused.returncode == 1 and "the server refused (401)" in refused.stderr
    assert service.lanes.matches_on(3) == []  # neither started anything

    started = league_night(live_server, token, "--bowler", "ann", "--bowler", "Bob Jones",
                           "--date", "2026-11-24")

    assert started.returncode == 0, started.stderr
    assert "night tue-2026-11-24 started with 2 bowlers" in started.stdout
    state = service.state("tue-2026-11-24-3-4")
    assert state.status == "playing" and sorted(state.bowlers) == ["Ann Smith", "Bob Jones"]
    again = league_night(live_server, token, "--all", "--date", "2026-11-24")
    assert again.returncode == 1 and "already started" in again.stderr


def test_with_no_server_the_command_says_so_in_one_line():
    port = free_port()  # nothing listens there
    run = subprocess.run(
        [sys.executable, "-m", "alley_poker.cli", "league", "night", "start", "tue", "--all",
         "--server", f"http://127.0.0.1:{port}"],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "ALLEY_POKER_TOKEN": "any"})

    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == [
        f"Error: cannot reach http://127.0.0.1:{port} — is `serve` running?"]


def test_a_retired_bowler_is_named_as_retired(app, live_server, service):
    desk = Desk(app)
    assert desk.send("POST", "/leagues", TUESDAY).status_code == 201
    roster = ROSTER + "Mae West,MAE,140,,\n"
    assert desk.send("POST", "/leagues/tue/roster", {"csv": roster}).status_code == 201
    bowlers = desk.get("/leagues/tue/bowlers").get_json()["bowlers"]
    mae = next(b["bowler_id"] for b in bowlers if b["name"] == "Mae West")
    assert desk.send("PATCH", f"/leagues/tue/bowlers/{mae}", {"active": False}).status_code \
        == 200
    token = centre_of(app).api_tokens.create("desk shell").secret

    run = league_night(live_server, token, "--bowler", "ANN", "--bowler", "mae",
                       "--date", "2026-11-24")

    assert run.returncode != 0
    assert "Mae West is retired — reactivate first" in run.stderr
    assert service.lanes.matches_on(3) == []
    everyone = league_night(live_server, token, "--all", "--date", "2026-11-24")
    assert everyone.returncode == 0, everyone.stderr
    assert "Mae West" not in everyone.stdout
