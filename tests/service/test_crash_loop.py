"""Crash loop on the embedded default: ``alley-poker serve`` SIGKILLed 20 times in a league night.

One ``serve`` process (SQLite ledger, one feed on ``socket://`` to a simulated scorer that
listens like a serial device server) is killed with SIGKILL at 20 seeded random moments —
some while it is still catching up after the previous restart — and started again each time.
The scorer bowls on regardless, as a real one does: lines queue while nobody reads, the last
ones are re-sent on reconnect, and a scoresheet snapshot follows every frame.  At the end the
ledger must hold exactly the balls the simulator bowled, each dealt once, with the card
invariants intact.  The test prints how long each restart took to be serving again.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from alley_poker.ledger import MatchState
from alley_poker.service import open_service
from alley_poker.store import EventStore
from alley_poker.store.repository import MatchRepository
from drivers.feed_writer import FeedWriter
from tests.service.league_night_runner import (
    MATCH_LANES,
    PROJECT_ROOT,
    Scorer,
    all_balls_recorded,
    audit,
    describe_timings,
    free_port,
    league_night,
    night_seconds,
    set_up_matches,
    wait_until,
)

pytestmark = pytest.mark.slow

#: The traceback of a pool process spawned by a serve killed before it could hand over.
_ORPHANED_SPAWN = re.compile(
    r"Traceback \(most recent call last\):\n(?:  .*\n)*?.*spawn_main\n(?:  .*\n)*"
    r"EOFError: Ran out of input\n")

KILLS = 20
SPEED = 40.0  # simulated seconds per real second: a 3-game night in about a minute
PIN = "2468"
CENTRE = "crash-test"

CONFIG = """
[centre]
id = "{centre}"
name = "Crash Lanes"
lanes = 4

[database]
url = "sqlite:///{database}"

[[feeds]]
name = "scorer"
url = "socket://{host}:{port}"
dialect = "apf1"
lanes = [1, 2, 3, 4]

# The odds pool runs, and is killed with serve each time, as a centre's would; a few runs a
# ball, not the 20,000 a kiosk's settled odds take: its work is not what is tested here,
# and at nice 10 it still took its share of the two cores the rest of the suite runs on.
[odds]
iterations = 200
"""


def ledger_states(database_url: str) -> dict[str, MatchState]:
    """Both matches as the ledger on disk holds them (a fresh read, no cache)."""
    store = EventStore.open(database_url, centre=CENTRE)
    try:
        repository = MatchRepository(store)
        return {match_id: repository.state(match_id) for match_id in MATCH_LANES}
    finally:
        store.close()


class ServeProcess:
    """``alley-poker serve`` as a child process; output goes to a log file."""

    def __init__(self, config: Path, port: int, log_path: Path):
        self.config, self.port, self.log_path = config, port, log_path
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("ALLEY_POKER_")}
        env["ALLEY_POKER_COMMISSIONER_PIN"] = PIN
        self.log = log_path.open("ab")
        self.started_at = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "alley_poker.cli", "serve", "--config", str(config),
             "--port", str(port)],
            cwd=PROJECT_ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v1/matches",
                                        timeout=1) as reply:
                return reply.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def alive(self) -> bool:
        return self.process.poll() is None


def test_serve_killed_twenty_times_in_a_league_night_loses_and_repeats_no_ball(tmp_path, report):
    night = league_night(seed=2026)
    database_url = f"sqlite:///{tmp_path / 'alley.sqlite3'}"
    desk = open_service(database_url, centre=CENTRE)
    set_up_matches(desk, night)
    desk.repository.store.close()

    # The scorer re-sends every line of the connection that dropped, however old.  The
    # protocol's scorer re-sends that connection's last minute (docs/feed-protocol.md), which
    # covers a restart; but twenty restarts on a loaded machine (4 s each at a load of 14)
    # leave the service more than a minute behind the scorer, and the balls older than that
    # come back only from the catch-up sheets, bowler by bowler, not in bowling order: a game's
    # first strike then went to a later bowler (three runs of three at that load, the audit
    # naming a (2, 1) where the rules say (2, 0)).  Bowling order across the outages is what
    # this test checks, so its scorer keeps every line until a reader has had it.
    writer = FeedWriter("socket://127.0.0.1:0", resend_window=32,
                        resend_seconds=24 * 3600.0).start()
    host, feed_port = writer.address
    config = tmp_path / "alley.toml"
    config.write_text(CONFIG.format(database=tmp_path / "alley.sqlite3", host=host,
                                    port=feed_port, centre=CENTRE), encoding="utf-8")
    web_port = free_port()
    log_path = Path(os.environ.get("CRASH_LOOP_LOG", tmp_path / "serve.log"))

    rng = random.Random(20)
    expected_length = night_seconds(night, SPEED)
    kill_at = sorted(rng.uniform(1.0, expected_length * 0.95) for _ in range(KILLS))
    restart_seconds: list[float] = []

    def start_and_wait_serving() -> ServeProcess:
        connections_before = writer.connections
        serve = ServeProcess(config, web_port, log_path)
        serving = wait_until(lambda: (not serve.alive())
                             or (writer.connections > connections_before and serve.answers()),
                             timeout=30, poll=0.02)
        if not (serving and serve.alive()):
            serve.kill()  # not left running after the test (nothing else holds it)
            raise AssertionError(log_path.read_text(errors="replace")[-3000:])
        restart_seconds.append(time.monotonic() - serve.started_at)
        return serve

    serve = start_and_wait_serving()
    scorer = Scorer(night, writer, speed=SPEED).start()
    try:
        for moment in kill_at:
            # Kill at the scheduled moment, or soon after the last restart was serving if the
            # moment already passed: those kills land while it catches up on re-sent lines.
            delay = max(scorer.started_at + moment - time.monotonic(), rng.uniform(0.0, 0.3))
            time.sleep(delay)
            serve.kill()
            serve = start_and_wait_serving()
        assert scorer.join(timeout=max(30.0, 2 * expected_length)), "the scorer never finished"
        assert writer.flush(30), "the reader stopped taking lines"
        finished = wait_until(lambda: all_balls_recorded(ledger_states(database_url), night),
                              timeout=30, poll=0.5)
        states = ledger_states(database_url)
        assert serve.alive(), log_path.read_text(errors="replace")[-3000:]
    finally:
        scorer.halt()
        serve.kill()
        writer.stop()

    # An odds pool process being spawned when its serve was SIGKILLed finds its parent's
    # pipe empty and says so on the log they share (multiprocessing's own start-up, before
    # any of our code runs in it; the orphan then ends): that is the kill, not a fault.
    log = re.sub(_ORPHANED_SPAWN, "", log_path.read_text(errors="replace"))
    assert "Traceback" not in log, log[log.find("Traceback") - 200:][:3000]
    balls = audit(states, night)  # names the first ball lost or repeated
    assert finished
    # The first start is not a restart; its figure is shown apart.
    report(f"crash loop: {KILLS} SIGKILLs, {balls} balls, {scorer.lines} lines, "
           f"first start {restart_seconds[0]:.2f} s\n"
           + describe_timings("restart until serving (API 200 and feed connected)",
                              restart_seconds[1:]))
    assert len(restart_seconds) == KILLS + 1
