"""Two services of one centre sharing PostgreSQL and a Redis bus (as a web process and the
worker do): each follows the other's commands and lane changes without a restart."""

from __future__ import annotations

import random
import time

import pytest

from alley_poker.ledger.commands import CommissionerUndoLastAction, DecideLoseCard, RecordBall
from alley_poker.service import open_service
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from alley_poker.service.scheduler import DecisionScheduler, job_id
from tests.scale.test_multi_process import start_match


def eventually(check, timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


@pytest.fixture
def web_and_worker(postgresql_url, redis_url, centre):
    buses = [RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre)) for _ in range(2)]
    # Seed 1 deals Ann no joker on her first strike, so her gutter opens a lose-card decision.
    rng = random.Random(1)
    services = [open_service(postgresql_url, centre=centre, bus=bus,
                             rng_factory=lambda: random.Random(rng.random())) for bus in buses]
    yield services
    for bus, service in zip(buses, services, strict=True):
        bus.close()
        service.repository.store.close()


def test_lane_changes_and_commands_reach_the_other_process(web_and_worker):
    web, worker = web_and_worker
    assert worker.state("m1").status == "new"  # cached as unknown, then created elsewhere
    start_match(web, "m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1)
    eventually(lambda: worker.lanes.bowler_at(1, 1) == ("m1", "Ann"))

    web.reassign_lanes("m1", {(1, 2): "Ann", (2, 1): "Bob"}, actor="commissioner:t",
                       reason="Ann moved to slot 2")
    eventually(lambda: worker.lanes.bowler_at(1, 2) == ("m1", "Ann"))
    assert worker.lanes.bowler_at(1, 1) is None

    # Read-your-writes whichever process took the command, bus or no bus.
    web.execute("m1", RecordBall("Ann", 1, 10, actor="commissioner:t"))
    assert worker.state("m1").seq == web.state("m1").seq
    worker.execute("m1", RecordBall("Bob", 1, 3, actor="feed:lane-2"))
    assert [b["pins"] for b in web.state("m1").balls["Bob"][0]] == [3]


@pytest.fixture
def worker_scheduler(web_and_worker):
    """The worker's deadline scheduler, running."""
    scheduler = DecisionScheduler(web_and_worker[1])
    scheduler.start()
    yield scheduler
    scheduler.shutdown()


def ann_must_lose_a_card(web) -> dict:
    """Match m1 started in the web process and bowled to Ann's lose-card decision (seed 1:
    her strike brings no joker, her gutter ball opens it); the decision."""
    start_match(web, "m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1)
    web.execute("m1", RecordBall("Ann", 1, 10, actor="commissioner:t"))
    web.execute("m1", RecordBall("Ann", 1, 0, gutter=True, actor="commissioner:t"))
    (decision,) = web.state("m1").decisions.values()
    return decision


def test_the_workers_deadlines_follow_decisions_opened_in_a_web_process(
        web_and_worker, worker_scheduler):
    web, worker = web_and_worker
    decision = ann_must_lose_a_card(web)
    eventually(lambda: worker_scheduler.pending_jobs() == [job_id("m1", decision["id"])])

    card = worker.state("m1").hands["Ann"][0]
    web.execute("m1", DecideLoseCard("Ann", card, actor="bowler:Ann"))
    eventually(lambda: worker_scheduler.pending_jobs() == [])


def test_an_undo_in_a_web_process_puts_the_workers_deadline_job_back(
        web_and_worker, worker_scheduler):
    """The worker keeps the jobs (in memory, rebuilt from the ledger when it takes over); a
    desk's undo taken by a web process reaches it on the bus and the job comes back."""
    web, worker = web_and_worker
    decision = ann_must_lose_a_card(web)
    expected = job_id("m1", decision["id"])
    eventually(lambda: worker_scheduler.pending_jobs() == [expected])

    card = web.state("m1").display_card(web.state("m1").hands["Ann"][0])
    web.execute("m1", DecideLoseCard("Ann", card, actor="commissioner:t"))
    eventually(lambda: worker_scheduler.pending_jobs() == [])
    web.execute("m1", CommissionerUndoLastAction(reason="wrong card",
                                                 actor="commissioner:t"))
    eventually(lambda: worker_scheduler.pending_jobs() == [expected])
    assert decision["id"] in worker.state("m1").decisions
