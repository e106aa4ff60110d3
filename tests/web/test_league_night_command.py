"""``alley-poker league night start``: the desk's shell starts a night through the running
server's API with an API token (the server is the process that routes the scorer's balls)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.web.test_league_api import ROSTER, TUESDAY, Desk

REPO = Path(__file__).parents[2]


def league_night(live_server, token: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "alley_poker.cli", "league", "night", "start", "tue",
         "--server", live_server.url, *args],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "ALLEY_POKER_TOKEN": token})


def test_the_command_line_checks_in_and_starts_the_night(app, live_server, service):
    desk = Desk(app)
    assert desk.send("POST", "/leagues", TUESDAY).status_code == 201
    assert desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER}).status_code == 201
    token = app.extensions["api_tokens"].create("desk shell").secret

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
