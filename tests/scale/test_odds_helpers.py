"""The odds pool's work shared through the centre's Redis: ``alley-poker odds-helper``
processes (real subprocesses, one killed with SIGKILL) take chunks that a
:class:`~alley_poker.service.live_odds.LiveOdds` hands out
(:mod:`alley_poker.service.odds_helpers`), over the real Redis."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import redis

from alley_poker.config import load_config_text
from alley_poker.service.bus import InProcessBus
from alley_poker.service.live_odds import LiveOdds
from alley_poker.service.odds_helpers import SharedChunkLost, SharedChunks, queue_keys
from alley_poker.service.odds_pool import odds_chunk
from benchmarks._practice_match import PracticeMatch
from tests.scale.conftest import Process, write_config

# Helper processes start (and import the odds engine): the slow tier.
pytestmark = pytest.mark.slow


def _state(number: int, balls: int = 6):
    match = PracticeMatch(("Ann", "Bob", "Cy"), seed=40_000 + number, match_id=f"m{number}",
                          averages={"Ann": 190, "Bob": 150, "Cy": 120})
    match.play(balls)
    return match.state


class Helpers:
    """``alley-poker odds-helper`` processes of one centre; kills them all at the end."""

    def __init__(self, tmp_path: Path, redis_url: str) -> None:
        self.tmp_path, self.redis_url = tmp_path, redis_url
        self.env = {**os.environ, "ALLEY_POKER_REDIS_URL": redis_url,
                    "PYTHONUNBUFFERED": "1"}
        self.started: list[Process] = []

    def start(self, centre: str) -> Process:
        config = write_config(self.tmp_path / f"{centre}-{len(self.started)}.toml",
                              centre=centre)
        helper = Process(["odds-helper", "--config", str(config)], self.env,
                         self.tmp_path / f"helper-{len(self.started)}.log")
        self.started.append(helper)
        helper.wait_for(r"taking chunks for centre " + centre, timeout=60)
        return helper

    def stop(self) -> None:
        for helper in self.started:
            helper.kill()


@pytest.fixture
def helpers(tmp_path: Path, redis_url: str):
    started = Helpers(tmp_path, redis_url)
    yield started
    started.stop()


@pytest.fixture
def shared(redis_url: str, centre: str):
    made: list[SharedChunks] = []

    def make(for_centre: str = centre, timeout_s: float = 2.0) -> SharedChunks:
        made.append(SharedChunks(redis_url, for_centre, timeout_s=timeout_s))
        return made[-1]

    yield make
    for chunks in made:
        chunks.close()


def _until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.02)


def _helper_chunks(redis_url: str, centre: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return sum(int(count) for count in
                   client.hvals(queue_keys(centre)["helper_chunks"]))
    finally:
        client.close()


def test_a_helper_runs_a_chunk_as_the_pool_does(helpers, shared, centre):
    """The same chunks (state, runs, chunk number: the seed) in the same order give the same
    runs in a helper as in a pool process: the odds do not depend on where they ran."""
    helper = helpers.start(centre)
    # Below the balls, as the pool's processes are.
    assert os.getpriority(os.PRIO_PROCESS, helper.popen.pid) == min(
        19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
    chunks = shared()
    _until(lambda: chunks.live_helpers() >= 1, 10, "the helper's heartbeat")
    work = [(_state(1), 300, 0), (_state(1), 600, 1), (_state(2, balls=20), 500, 0)]
    by_helper = [chunks.run(state.match_id, state, runs, number, 150, {}, "fast", None)
                 for state, runs, number in work]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        by_pool = [pool.submit(odds_chunk, state, runs, number, 150, {}, "fast", None).result()
                   for state, runs, number in work]
    for helped, pooled in zip(by_helper, by_pool, strict=True):
        assert (helped["iterations"], helped["wins"], helped["cents"]) == (
            pooled["iterations"], pooled["wins"], pooled["cents"])
    assert len(chunks.overheads) == 3


def test_live_odds_share_their_chunks_with_a_helper(helpers, shared, centre):
    helpers.start(centre)
    chunks = shared()
    _until(lambda: chunks.live_helpers() >= 1, 10, "the helper's heartbeat")
    bus = InProcessBus()
    published: list[dict] = []
    bus.subscribe(lambda topic, message: published.append(message["odds"]))
    states = [_state(number) for number in range(6)]
    with_helper = LiveOdds(bus, iterations=8000, first_iterations=400, processes=1,
                           shared=chunks)
    alone = LiveOdds(InProcessBus(), iterations=8000, first_iterations=400, processes=0)
    try:
        for state in states:
            with_helper.request(state.match_id, state)
            alone.request(state.match_id, state)
        assert with_helper.wait_idle(120) and alone.wait_idle(120)
        assert with_helper.shared_chunks > 0 and with_helper.shared_redone == 0
        for state in states:
            helped, local = with_helper.latest(state.match_id), alone.latest(state.match_id)
            assert helped["settled"] and helped["seq"] == state.seq
            # Both within a standard error of ±0.4 points of the truth: far closer than 3.
            for name in state.bowlers:
                assert abs(helped["bowlers"][name]["win"] - local["bowlers"][name]["win"]) < 0.03
    finally:
        with_helper.stop()
        alone.stop()
    assert _helper_chunks(helpers.redis_url, centre) == with_helper.shared_chunks


def test_a_helper_killed_mid_chunk_costs_a_timeout_not_the_chunk(helpers, shared, centre):
    helper = helpers.start(centre)
    chunks = shared(timeout_s=1.0)
    _until(lambda: chunks.live_helpers() >= 1, 10, "the helper's heartbeat")
    client = redis.Redis.from_url(helpers.redis_url)
    outcome: list[object] = []
    state = _state(3)

    def hand_out() -> None:  # about a second of runs: the helper is surely in it
        try:
            outcome.append(chunks.run(state.match_id, state, 150_000, 0, 150, {}, "fast",
                                      None))
        except SharedChunkLost as lost:
            outcome.append(lost)

    waiting = threading.Thread(target=hand_out)
    started = time.monotonic()
    waiting.start()
    _until(lambda: chunks.outstanding == 1 and client.llen(chunks.keys["chunks"]) == 0, 10,
           "the helper taking the chunk")
    time.sleep(0.1)
    helper.kill()
    waiting.join(15)
    assert not waiting.is_alive(), "the chunk's owner still waits: a hang, not a timeout"
    assert isinstance(outcome[0], SharedChunkLost) and outcome[0].taken
    assert time.monotonic() - started < 20  # the timeout, and the hold lapsing (5 s)
    client.close()


def test_live_odds_survive_a_helper_killed_under_them(helpers, shared, centre):
    helper = helpers.start(centre)
    chunks = shared(timeout_s=1.0)
    _until(lambda: chunks.live_helpers() >= 1, 10, "the helper's heartbeat")
    client = redis.Redis.from_url(helpers.redis_url)
    odds = LiveOdds(InProcessBus(), iterations=20_000, first_iterations=400, processes=1,
                    shared=chunks)
    states = [_state(10 + number) for number in range(12)]
    try:
        for state in states:
            odds.request(state.match_id, state)
        _until(lambda: chunks.outstanding and client.llen(chunks.keys["chunks"]) == 0, 30,
               "the helper running a chunk")
        helper.kill()
        killed = time.monotonic()
        assert odds.wait_idle(120), "the odds hang on the killed helper's chunk"
        assert time.monotonic() - killed < 120
        # The killed helper's chunk is noticed lost, and run again in the pool only if its
        # state still wanted it (the pool's own chunks may have settled it meanwhile).
        _until(lambda: chunks.outstanding == 0, 30, "the lost chunk noticed")
        assert odds.shared_lost >= 1
        for state in states:
            latest = odds.latest(state.match_id)
            assert latest["settled"] and latest["seq"] == state.seq
    finally:
        odds.stop()
        client.close()


def test_two_centres_on_one_redis_never_take_each_others_chunks(helpers, shared, centre):
    other = f"{centre}-other"
    helpers.start(other)
    ours, theirs = shared(centre, timeout_s=1.0), shared(other)
    _until(lambda: theirs.live_helpers() >= 1, 10, "the other centre's helper")
    assert ours.live_helpers() == 0
    state = _state(4)
    with pytest.raises(SharedChunkLost) as lost:
        ours.run(state.match_id, state, 200, 0, 150, {}, "fast", None)
    assert not lost.value.taken  # still in our queue: taken back
    assert theirs.run(state.match_id, state, 200, 0, 150, {}, "fast", None)["iterations"] == 200
    assert _helper_chunks(helpers.redis_url, centre) == 0
    assert _helper_chunks(helpers.redis_url, other) == 1


def _queued(chunks) -> int:
    """Chunks in the centre's Redis queue: counted there, not by ``outstanding``, which
    rises before the hand-out's write reaches Redis (a loaded host's CI saw the owner's
    entry deleted before it was written, and the chunk run)."""
    return chunks._redis.llen(chunks.keys["chunks"])


def test_a_chunk_of_a_superseded_state_is_dropped_unrun(helpers, shared, centre):
    chunks = shared(timeout_s=30)
    older, newer = _state(5, balls=6), _state(5, balls=7)
    replies: dict[str, dict] = {}
    threads = [threading.Thread(target=lambda key=key, state=state: replies.__setitem__(
        key, chunks.run(state.match_id, state, 300, 0, 150, {}, "fast", None)))
        for key, state in (("older", older), ("newer", newer))]
    threads[0].start()
    _until(lambda: _queued(chunks) == 1, 10, "the older chunk queued")
    threads[1].start()  # the match's next ball: queued behind it, before any helper runs
    _until(lambda: _queued(chunks) == 2, 10, "the newer chunk queued")
    helper = helpers.start(centre)
    for thread in threads:
        thread.join(30)
    assert replies["older"].get("dropped") and "wins" not in replies["older"]
    assert replies["newer"]["iterations"] == 300
    helper.popen.terminate()
    helper.wait_for(r"stopped: 1 chunks run .* 1 dropped unrun", timeout=20)


def test_without_the_setting_nothing_is_shared():
    config = load_config_text('[centre]\nname = "X"\nlanes = 2\n', env={})
    assert config.odds.shared is False
    assert load_config_text('[centre]\nname = "X"\nlanes = 2\n[odds]\nshared = true\n',
                            env={}).odds.shared is True
    odds = LiveOdds(InProcessBus(), iterations=40, first_iterations=20, processes=0)
    try:
        assert odds.shared is None
        assert not [thread for thread in odds._threads if "shared" in thread.name]
    finally:
        odds.stop()


def test_a_scaled_out_workers_odds_are_shared_with_a_helper(
        cluster, helpers, centre, postgresql_url, redis_url, pty_pair, tmp_path):
    """``[odds] shared = true``: the active worker's odds of a fed game settle, part of
    their runs made by an ``alley-poker odds-helper`` process through the centre's Redis."""
    from drivers.feed_writer import FeedWriter, serve
    from tests.scale.test_multi_process import (
        desk_process,
        start_match,
        two_lane_game,
        wait_every_ball,
    )

    config = write_config(tmp_path / "alley.toml", centre=centre, feed_url=pty_pair.reader_path,
                          odds="enabled = true\niterations = 4000\nfirst_iterations = 400\n"
                               "processes = 0\nshared = true")
    helpers.start(centre)
    worker = cluster.worker(config)
    worker.wait_for(r"active for centre")
    simulator, slots = two_lane_game(seed=7)
    with desk_process(centre, postgresql_url, redis_url) as desk:
        odds: list[dict] = []
        desk.bus.subscribe(lambda topic, message: odds.append(message["odds"])
                           if message.get("kind") == "odds" else None)
        writer = FeedWriter(pty_pair.writer_path).start()
        try:
            start_match(desk, "m1", slots, games=1)
            serve(simulator, writer, speed=0)
            assert writer.flush(10)
            deadline = time.monotonic() + 120
            wait_every_ball(desk, "m1", len(simulator.balls), deadline)
            last = desk.state("m1").seq
            _until(lambda: any(o["seq"] == last and o["settled"] for o in odds), 60,
                   f"the settled odds of the last event (#{last})")
            assert _helper_chunks(redis_url, centre) > 0
        finally:
            writer.stop()


def test_a_chunk_whose_owner_is_gone_is_dropped_unrun(helpers, shared, centre, redis_url):
    """A worker killed with chunks still queued: a helper that pops them later finds no
    owner's entry for the match and runs nothing for nobody."""
    chunks = shared(timeout_s=30)
    state = _state(6)
    replies: list[dict] = []
    waiting = threading.Thread(target=lambda: replies.append(
        chunks.run(state.match_id, state, 300, 0, 150, {}, "fast", None)))
    waiting.start()
    _until(lambda: _queued(chunks) == 1, 10, "the chunk queued")
    client = redis.Redis.from_url(redis_url)
    client.delete(chunks._latest)  # what the owner's close (or its entries' expiry) does
    client.close()
    helper = helpers.start(centre)
    waiting.join(30)
    assert replies and replies[0].get("dropped")
    helper.popen.terminate()
    helper.wait_for(r"stopped: 0 chunks run .* 1 dropped unrun", timeout=20)


def test_an_owner_waits_for_its_chunk_past_the_redis_clients_socket_timeout(
        helpers, shared, centre):
    """redis-py ends any read after 5 s (its default socket timeout); an owner given longer
    (a slow chunk's ten expected durations) still gets the runs of a helper that starts
    late, not the client's TimeoutError (which lost the chunk on a loaded CI host)."""
    chunks = shared(timeout_s=30)
    state = _state(7)
    outcome: list[object] = []

    def hand_out() -> None:
        try:
            outcome.append(chunks.run(state.match_id, state, 300, 0, 150, {}, "fast", None))
        except Exception as problem:  # the assertion below says which
            outcome.append(problem)

    waiting = threading.Thread(target=hand_out)
    waiting.start()
    _until(lambda: _queued(chunks) == 1, 10, "the chunk queued")
    time.sleep(6.5)  # past the client's 5 s, no helper yet
    helpers.start(centre)
    waiting.join(30)
    assert outcome and isinstance(outcome[0], dict), outcome
    assert outcome[0]["iterations"] == 300
