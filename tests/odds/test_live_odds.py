"""The service's live odds: a first estimate at once, then refined until settled, and only
ever the newest state of a match (a real pool process computes them where it matters)."""

from __future__ import annotations

import threading
from itertools import pairwise
from pathlib import Path

import pytest

from alley_poker.config import OddsConfig
from alley_poker.odds.stopping import SETTLED_ERROR
from alley_poker.service.bus import InProcessBus
from alley_poker.service.live_odds import LiveOdds
from benchmarks._practice_match import PracticeMatch


class _Screen:
    """What a kiosk would be sent: every odds message, in order."""

    def __init__(self, bus: InProcessBus):
        self.messages: list[dict] = []
        self._lock = threading.Lock()
        bus.subscribe(self._heard)

    def _heard(self, topic: str, message: dict) -> None:
        if message.get("kind") == "odds":
            with self._lock:
                self.messages.append(message["odds"])


def _run_to_the_end(bus: InProcessBus, state, wait_s: float, **settings) -> LiveOdds:
    """``state``'s odds computed in this process (no pool) until there is nothing left to
    do; the LiveOdds, stopped."""
    odds = LiveOdds(bus, processes=0, **settings)
    try:
        odds.request("m1", state)
        assert odds.wait_idle(wait_s)
    finally:
        odds.stop()
    return odds


def test_a_first_estimate_comes_first_then_the_odds_settle():
    bus = InProcessBus()
    screen = _Screen(bus)
    state = PracticeMatch(("Ann", "Bob"), seed=3).play(8).state
    odds = _run_to_the_end(bus, state, 60, iterations=160, first_iterations=20)
    runs = [message["iterations"] for message in screen.messages]
    # The first estimate, then each time the runs (at least) double, then settled.  The exact
    # counts between depend on how chunks in flight finish (a loaded CI run published
    # 20, 40, 136, 160), not on the rule.
    assert runs[0] == 20 and runs[-1] == 160, runs
    assert all(later >= 2 * earlier for earlier, later in pairwise(runs[:-1])), runs
    assert runs[-1] > runs[-2] and len(runs) >= 3, runs
    settled = [message["settled"] for message in screen.messages]
    assert settled == [False] * (len(runs) - 1) + [True]
    for message in screen.messages:
        assert message["seq"] == state.seq and not message["exact"]
        assert abs(sum(b["win"] for b in message["bowlers"].values()) - 1) < 1e-3
    assert odds.latest("m1") == screen.messages[-1]


def test_a_long_match_gets_its_first_estimate_from_fewer_runs():
    # Six bowlers with three games each still to bowl: a run takes far longer than in a
    # short match, so the first estimate is the runs that fit in one short chunk.
    bus = InProcessBus()
    screen = _Screen(bus)
    names = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")
    state = PracticeMatch(names, games=3, seed=5).play(6).state
    _run_to_the_end(bus, state, 120, iterations=1000, first_iterations=1000)
    first, last = screen.messages[0], screen.messages[-1]
    assert first["iterations"] < 1000 and not first["settled"]
    assert last["iterations"] == 1000 and last["settled"]


@pytest.mark.slow
def test_a_newer_ball_replaces_the_odds_being_computed():
    bus = InProcessBus()
    screen = _Screen(bus)
    match = PracticeMatch(("Ann", "Bob", "Cy"), seed=8)
    before = match.play(6).state.clone()
    after = match.play(7).state.clone()
    odds = LiveOdds(bus, iterations=2000, first_iterations=40, processes=1)
    try:
        odds.request("m1", before)
        # Wait for the first estimate of the older state, then a ball comes.
        assert _wait(lambda: screen.messages, 60)
        odds.request("m1", after)
        assert odds.wait_idle(120)
    finally:
        odds.stop()
    seqs = [message["seq"] for message in screen.messages]
    assert seqs == sorted(seqs), "an older state's odds were published after a newer one's"
    assert screen.messages[-1]["seq"] == after.seq and screen.messages[-1]["settled"]
    assert not any(m["seq"] == before.seq and m["settled"] for m in screen.messages)


def _wait(condition, timeout: float) -> bool:
    done = threading.Event()
    for _ in range(int(timeout * 20)):
        if condition():
            return True
        done.wait(0.05)
    return bool(condition())


def test_the_pool_runs_below_the_balls_priority():
    # On a busy machine the kernel gives the balls' process the cores first.
    import multiprocessing
    import os

    bus = InProcessBus()
    odds = LiveOdds(bus, iterations=20, first_iterations=20, processes=1)
    try:
        odds.request("m1", PracticeMatch(("Ann", "Bob"), seed=1).play(4).state)
        assert odds.wait_idle(60)
        children = multiprocessing.active_children()
        assert children, "the pool started no process"
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert {os.getpriority(os.PRIO_PROCESS, child.pid) for child in children} == {
            min(ours + 10, 19)}
    finally:
        odds.stop()


@pytest.mark.slow
def test_a_nearly_certain_match_settles_early_and_a_close_one_runs_on():
    bus = InProcessBus()
    screen = _Screen(bus)
    state = PracticeMatch(("Ace", "Newbie"), seed=12).play(2).state
    _run_to_the_end(bus, state, 120, iterations=20_000, first_iterations=100,
                    averages=lambda _: {"Ace": 230, "Newbie": 100})
    settled = screen.messages[-1]
    assert settled["settled"] and settled["bowlers"]["Ace"]["win"] > 0.9
    assert settled["iterations"] < 5000  # ±0.40 points (one standard error) at ~98%
    screen.messages.clear()
    # Two unknown bowlers: about 60/40.
    _run_to_the_end(bus, state, 120, iterations=1600, first_iterations=100)
    assert screen.messages[-1]["iterations"] == 1600 and screen.messages[-1]["settled"]


def test_the_centres_default_settles_the_odds_where_the_service_does():
    assert OddsConfig().settled_points / 100 == pytest.approx(SETTLED_ERROR)


@pytest.mark.parametrize("settled_error", [0, -0.01, 0.5])
def test_odds_that_could_never_settle_or_always_would_are_refused(settled_error):
    with pytest.raises(ValueError, match="settled_error must be a standard error between 0"):
        LiveOdds(InProcessBus(), settled_error=settled_error, processes=0)


def test_the_pool_ends_with_a_server_killed_by_sigkill(tmp_path):
    # A server process with live odds, killed without a chance to stop its pool: the pool's
    # processes must not go on computing odds nobody will see.
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "server.py"
    script.write_text(
        "import multiprocessing, sys, time\n"
        "from benchmarks._practice_match import PracticeMatch\n"
        "from alley_poker.service.bus import InProcessBus\n"
        "from alley_poker.service.live_odds import LiveOdds\n"
        "if __name__ == '__main__':\n"
        "    odds = LiveOdds(InProcessBus(), iterations=200_000, first_iterations=20,\n"
        "                    processes=2)\n"
        "    odds.request('m1', PracticeMatch(('Ann', 'Bob'), seed=1).play(4).state)\n"
        "    while len(multiprocessing.active_children()) < 2:\n"
        "        time.sleep(0.05)\n"
        "    print(' '.join(str(p.pid) for p in multiprocessing.active_children()),\n"
        "          flush=True)\n"
        "    time.sleep(120)\n")
    # The practice match is a benchmark helper, not in the installed package: the checkout
    # goes on the server's path.
    checkout = str(Path(__file__).resolve().parents[2])
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                              text=True, cwd=os.getcwd(),
                              env={**os.environ, "PYTHONPATH": checkout})
    try:
        pool = [int(pid) for pid in server.stdout.readline().split()]
        assert len(pool) == 2 and all(_alive(pid) for pid in pool)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in pool) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in pool), "the odds pool outlived its server"
    finally:
        server.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] not in "ZX"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_on_a_busy_night_a_replaced_first_estimate_is_still_shown():
    # Balls come faster than a long match's first estimate: the estimate of the state a
    # ball ago is published (nothing newer is known), rather than nothing at all.
    bus = InProcessBus()
    screen = _Screen(bus)
    names = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")
    match = PracticeMatch(names, games=3, seed=5)
    before = match.play(6).state.clone()
    after = match.play(7).state.clone()
    odds = LiveOdds(bus, iterations=20, first_iterations=20, processes=0)
    # The first chunk of ``before`` is held until the newer ball has come (the engine is
    # fast enough now to finish it before a test could send the ball).
    running, release = threading.Event(), threading.Event()
    compute = odds._compute

    def held(state, *args):
        if state.seq == before.seq:
            running.set()
            release.wait(10)
        return compute(state, *args)

    odds._compute = held
    try:
        odds.request("m1", before)
        assert running.wait(10)  # its first chunk is running
        odds.request("m1", after)
        release.set()
        assert odds.wait_idle(120)
    finally:
        release.set()
        odds.stop()
    seqs = [message["seq"] for message in screen.messages]
    assert seqs[0] == before.seq and not screen.messages[0]["settled"]
    assert seqs[-1] == after.seq and screen.messages[-1]["settled"]
    assert seqs == sorted(seqs)


def test_the_odds_go_on_after_a_pool_process_is_killed():
    import multiprocessing
    import os
    import signal

    bus = InProcessBus()
    screen = _Screen(bus)
    match = PracticeMatch(("Ann", "Bob"), seed=2)
    odds = LiveOdds(bus, iterations=40, first_iterations=40, processes=1)
    try:
        odds.request("m1", match.play(4).state.clone())
        assert odds.wait_idle(60)
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)  # out of memory, or a careless operator
        later = match.play(6).state.clone()
        odds.request("m1", later)  # its chunk may be lost with the broken pool...
        assert odds.wait_idle(60)
        odds.request("m1", match.play(8).state.clone())  # ...but the next ball's odds come
        assert odds.wait_idle(60)
    finally:
        odds.stop()
    assert screen.messages[-1]["seq"] == match.state.seq and screen.messages[-1]["settled"]
