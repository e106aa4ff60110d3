"""The worker reads its matches from memory on the ball path (no PostgreSQL catch-up per
read, a service opened with ``reads_catch_up=False``): a change made by a web process still reaches
what it decides, even when the bus message announcing that change never comes."""

from __future__ import annotations

import pytest

from alley_poker.ledger.commands import RecordBall
from alley_poker.service import open_service
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from drivers.base import BallRecorded
from tests.scale.test_multi_process import start_match


@pytest.fixture
def web_and_deaf_worker(postgresql_url, redis_url, centre):
    # The worker's bus is another centre's channel: it hears nothing the web process says,
    # as if every bus message were lost.
    web_bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre))
    worker_bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(f"{centre}-deaf"))
    web = open_service(postgresql_url, centre=centre, bus=web_bus)
    worker = open_service(postgresql_url, centre=centre, bus=worker_bus, reads_catch_up=False)
    yield web, worker
    for bus, service in ((web_bus, web), (worker_bus, worker)):
        bus.close()
        service.repository.store.close()


def test_a_ball_after_another_process_changed_the_match_is_decided_on_the_real_log(
        web_and_deaf_worker):
    web, worker = web_and_deaf_worker
    start_match(web, "m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1)
    assert worker.shared_state("m1").status == "playing"
    web.execute("m1", RecordBall("Ann", 1, 10, actor="commissioner:t"))
    assert worker.shared_state("m1").balls["Ann"][0] == []  # unheard, so not read yet

    # Appended at the seq it was decided on: the store refuses that, the worker catches up
    # and decides again — Ann's strike stays, Bob's ball follows it.
    worker.execute("m1", RecordBall("Bob", 1, 3, actor="feed:lane-2"))
    mine, theirs = worker.shared_state("m1"), web.state("m1")
    assert mine.seq == theirs.seq
    assert [b["pins"] for b in theirs.balls["Ann"][0]] == [10]
    assert [b["pins"] for b in theirs.balls["Bob"][0]] == [3]


def test_the_scorers_ball_after_the_desk_changed_the_match_is_recorded_not_held(
        web_and_deaf_worker):
    # The desk starts the match and enters Ann's first ball through a web process; the
    # scorer's next line reaches the worker before (here: instead of) the bus message.
    web, worker = web_and_deaf_worker
    start_match(web, "m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1)
    worker.reload_lanes()
    assert worker.shared_state("m1").status == "playing"  # read (and kept) before the desk's ball
    web.execute("m1", RecordBall("Ann", 1, 7, actor="commissioner:t"))
    worker.handle_lane_event(BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=2, pins=2,
                                          standing=frozenset({10})))
    assert [b["pins"] for b in web.state("m1").balls["Ann"][0]] == [7, 2]
    assert worker.router.stats.held == 0 and worker.router.stats.recorded == 1


def test_the_scorers_first_ball_of_a_match_the_worker_has_not_heard_of_is_recorded_not_held(
        web_and_deaf_worker):
    # The desk starts the match through a web process; the scorer's first ball reaches the
    # worker before (here: instead of) the bus message that gives the match its lanes.  It
    # was held as "no match is on lane 1" (a loaded CI run held 33 of 71 balls so).
    web, worker = web_and_deaf_worker
    start_match(web, "m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1)
    assert worker.lanes.bowler_at(1, 1) is None  # unheard
    worker.handle_lane_event(BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=10,
                                          standing=frozenset()))
    assert [b["pins"] for b in web.state("m1").balls["Ann"][0]] == [10]
    assert worker.router.stats.held == 0 and worker.router.stats.recorded == 1
