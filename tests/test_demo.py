"""The README's main job: the demo alley runs a whole simulated night end to end."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests
import socketio
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.cli.demo_alley import MATCH_LANES, run_demo
from alley_poker.ledger import check_invariants
from alley_poker.ledger import commands as c
from alley_poker.store import EventStore
from alley_poker.store.repository import MatchRepository
from tests.web.conftest import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_night_deals_settles_and_pays_every_pot(tmp_path):
    lines: list[str] = []
    result = run_demo(speed=0, seed=5, database=tmp_path / "demo.sqlite3", echo=lines.append)
    assert result.balls > 100
    for match_id in MATCH_LANES:
        view = result.views[match_id]
        assert view["status"] == "settled", match_id
        paid = sum(bowler["paid_cents"] for bowler in view["bowlers"].values())
        won = sum(bowler["won_cents"] for bowler in view["bowlers"].values())
        assert won == paid > 0, "the whole pot is paid out, not a cent more"
        assert view["pot_cents"] == 0
    assert any("STRIKE" in line for line in lines)
    assert any("SHOWDOWN" in line for line in lines)
    assert result.unsettled == []
    assert lines[-1] == "the night is over: every match is settled or void"
    with EventStore.open(f"sqlite:///{tmp_path / 'demo.sqlite3'}") as store:
        assert sorted(store.match_ids()) == sorted(MATCH_LANES)


def test_a_match_left_unfinished_is_settled_at_the_demo_close(tmp_path):
    from alley_poker.cli.demo_alley import close_the_night
    from alley_poker.service import open_service

    service = open_service(f"sqlite:///{tmp_path / 'close.sqlite3'}")
    for match_id, (first, second) in MATCH_LANES.items():
        names = (f"A{first}", f"B{second}")
        service.create_match(match_id, {(first, 1): names[0], (second, 1): names[1]},
                             games=1, actor="commissioner:demo")
        for name in names:
            service.execute(match_id, c.ConsentToAnte(name, actor=f"bowler:{name}"))
        service.execute(match_id, c.StartMatch(actor="commissioner:demo"))
    service.execute("lanes-1-2", c.RecordBall("A1", 1, 10, actor="feed:demo"))
    service.execute("lanes-3-4", c.CommissionerVoidMatch(reason="lane down",
                                                         actor="commissioner:demo"))
    lines: list[str] = []
    close_the_night(service, lines.append)
    assert service.state("lanes-1-2").status == "settled"
    assert sum(service.state("lanes-1-2").won.values()) == 200
    assert service.state("lanes-3-4").status == "void"
    assert lines == ["[lanes-1-2] the night's close: still playing; the commissioner settles "
                     "it as the hands stand"]
    service.repository.store.close()


def test_the_demo_command_prints_the_evaluator_and_the_night(tmp_path):
    outcome = CliRunner().invoke(main, ["demo", "--speed", "0", "--seed", "9", "--port", "0",
                                        "--exit-when-done",
                                        "--database", str(tmp_path / "night.sqlite3")])
    assert outcome.exit_code == 0, outcome.output
    assert "the evaluator on a sample hand" in outcome.output
    assert "result confirmed by the commissioner" in outcome.output
    assert "the night is over: every match is settled or void" in outcome.output
    assert "/kiosk/1-2" in outcome.output and "PIN" in outcome.output


def _alley_poker_command() -> list[str]:
    """The installed ``alley-poker`` script beside this Python, as a newcomer runs it."""
    script = Path(sys.executable).with_name("alley-poker")
    return [str(script)] if script.exists() else [sys.executable, "-m", "alley_poker.cli"]


class _Output:
    """A subprocess's stdout lines, read on a thread so they can be waited for."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        regex = re.compile(pattern)
        found: list[re.Match[str]] = []

        def seen() -> bool:
            found.extend(m for line in self.lines if (m := regex.search(line)))
            return bool(found)

        with self.changed:
            assert self.changed.wait_for(seen, timeout), \
                f"no line matching {pattern!r} in {timeout} s: {self.lines[-10:]}"
        return found[0]


def stop_process(process: subprocess.Popen, stop_signal: int, timeout: float) -> int:
    """Send ``stop_signal`` (unless it has ended) and wait for its exit status; a process
    that does not stop in ``timeout`` s is killed and the wait's timeout raised."""
    if process.poll() is None:
        process.send_signal(stop_signal)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
        raise


def _deals_a_card(message: dict) -> bool:
    """A live push about a ball recorded or a card dealt."""
    return any(event.get("type") in ("ball_recorded", "card_drawn")
               for event in message.get("events") or [])


@pytest.mark.slow
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_demo_deals_live_to_a_kiosk_and_stops_cleanly_on_a_signal(tmp_path, stop_signal):
    port = free_port()
    database = tmp_path / "demo.sqlite3"
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [*_alley_poker_command(), "demo", "--port", str(port), "--speed", "40",
             "--seed", "11", "--database", str(database)],
            cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output = _Output(process.stdout)
    kiosk = socketio.Client(reconnection=False)
    try:
        base = output.wait_for(r"kiosks: (http://127\.0\.0\.1:\d+)/kiosk/1-2", 30).group(1)
        assert base == f"http://127.0.0.1:{port}"
        page = requests.get(f"{base}/kiosk/1-2", timeout=10)
        assert page.status_code == 200
        assert page.headers["Content-Type"].startswith("text/html")
        assert 'data-lane-pair="1-2"' in page.text

        states: list[dict] = []
        full_state, dealt = threading.Event(), threading.Event()
        kiosk.on("state", lambda message: (states.append(message), full_state.set()))
        kiosk.on("match_update", lambda message: (
            message.get("match_id") == "lanes-1-2" and _deals_a_card(message) and dealt.set()))
        kiosk.connect(base, transports=["websocket"], wait_timeout=10)
        joined = kiosk.call("join", {"lanes": "1-2"}, timeout=10)
        assert joined["matches"] == ["lanes-1-2"]
        assert full_state.wait(10), "joining brought no full state"
        assert [state["match_id"] for state in states] == ["lanes-1-2"]
        assert dealt.wait(60), "the kiosk of lanes 1-2 was never pushed a ball or a card"
    finally:
        kiosk.disconnect()
        status = stop_process(process, stop_signal, 20)
    errors = stderr_path.read_text(encoding="utf-8")
    assert status == 0, f"exit status {status}; stderr:\n{errors}"
    assert "Traceback" not in errors and "Aborted" not in errors, errors
    output.wait_for(r"ledger stored in", 5)
    # Stopped mid-night: the demo does not pretend the night is over; it names what is open.
    verdict = output.wait_for(r"the night is (NOT )?over.*", 5).group(0)
    assert verdict.startswith("the night is NOT over: not settled: lanes-"), verdict
    with EventStore.open(f"sqlite:///{database}") as store:
        repository = MatchRepository(store)
        for match_id in MATCH_LANES:
            state = repository.state(match_id)
            assert state.status != "new"
            check_invariants(state)
