"""The decision scheduler for real: APScheduler jobs over a SQLite ledger, one-second deadlines."""

from __future__ import annotations

import logging
import random
import threading
import time
from pathlib import Path

import pytest

from alley_poker.ledger import commands as c
from alley_poker.service import AlleyService, open_service
from alley_poker.service.scheduler import DecisionScheduler, job_id

# An exception in APScheduler's own thread (it ends the scheduler's loop) fails the test.
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")

DESK = "commissioner:test-desk"
#: The shortest deadline a rule book allows: one second.
QUICK = {"lose_card_deadline_s": 1}


def service_over(database: Path) -> AlleyService:
    """Seed 1 deals Ann no joker on her first strike, so her gutter opens a lose-card decision."""
    rng = random.Random(1)
    return open_service(f"sqlite:///{database}", rng_factory=lambda: random.Random(rng.random()))


def gutter_after_a_strike(service: AlleyService, rules: dict | None = None) -> str:
    """Start m1 (Ann, Bob); Ann strikes then throws a gutter ball: the new decision's id."""
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, rules=rules,
                         actor=DESK)
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m1", c.StartMatch(actor=DESK))
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    (decision,) = service.state("m1").decisions.values()
    assert decision["kind"] == "lose_card"
    return decision["id"]


def wait_until(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


@pytest.fixture
def running(database: Path):
    """A service and a started scheduler over it; both shut down afterwards."""
    service = service_over(database)
    scheduler = DecisionScheduler(service)
    scheduler.start()
    yield service, scheduler
    scheduler.shutdown()
    service.repository.store.close()


def test_a_passed_deadline_makes_the_automatic_choice(running):
    service, scheduler = running
    decision_id = gutter_after_a_strike(service, QUICK)
    hand_before = list(service.state("m1").hands["Ann"])
    assert scheduler.pending_jobs() == [job_id("m1", decision_id)]

    assert wait_until(lambda: not service.state("m1").decisions, timeout=4)
    state = service.state("m1")
    assert len(state.hands["Ann"]) == len(hand_before) - 1, "one card went back automatically"
    records = service.repository.store.load("m1")
    (closed,) = [r for r in records if r["type"] == "decision_closed"]
    assert closed["data"]["decision_id"] == decision_id
    assert closed["data"]["outcome"] == "expired"
    assert scheduler.pending_jobs() == []


def test_a_restart_rebuilds_the_job_and_still_expires_the_decision(database):
    first = service_over(database)
    decision_id = gutter_after_a_strike(first, QUICK)
    first.repository.store.close()  # the server stops before the deadline, with no scheduler

    service = service_over(database)
    scheduler = DecisionScheduler(service)
    scheduler.start()
    try:
        assert scheduler.pending_jobs() == [job_id("m1", decision_id)]
        assert wait_until(lambda: not service.state("m1").decisions, timeout=4)
        expired = [r for r in service.repository.store.load("m1")
                   if r["type"] == "decision_closed"]
        assert [r["data"]["outcome"] for r in expired] == ["expired"]
    finally:
        scheduler.shutdown()
        service.repository.store.close()


def test_a_deadline_missed_while_down_expires_once_on_start(database):
    first = service_over(database)
    gutter_after_a_strike(first, QUICK)
    first.repository.store.close()
    time.sleep(1.3)  # the deadline passes while nothing runs

    service = service_over(database)
    scheduler = DecisionScheduler(service)
    scheduler.start()
    try:
        assert wait_until(lambda: not service.state("m1").decisions, timeout=3)
        scheduler.rebuild()  # a second rebuild (or a duplicate) finds nothing left to run
        assert scheduler.pending_jobs() == []
        closed = [r for r in service.repository.store.load("m1")
                  if r["type"] == "decision_closed"]
        assert len(closed) == 1
    finally:
        scheduler.shutdown()
        service.repository.store.close()


def test_an_answered_decision_loses_its_job_and_is_not_expired(running):
    service, scheduler = running
    decision_id = gutter_after_a_strike(service, QUICK)
    card = service.state("m1").display_card(service.state("m1").hands["Ann"][0])
    service.execute("m1", c.DecideLoseCard("Ann", card, decision_id=decision_id,
                                           actor="bowler:Ann"))
    assert scheduler.pending_jobs() == []
    time.sleep(1.4)  # past the deadline: nothing else happens
    closed = [r for r in service.repository.store.load("m1") if r["type"] == "decision_closed"]
    assert [r["data"]["outcome"] for r in closed] != ["expired"]
    assert len(closed) == 1
    assert decision_id not in service.state("m1").decisions


def test_a_duplicate_decision_keeps_one_job_and_a_refused_expiry_is_only_logged(running, caplog):
    caplog.set_level(logging.INFO, logger="alley_poker.service.scheduler")
    service, scheduler = running
    decision_id = gutter_after_a_strike(service)  # the house deadline: two minutes away
    scheduler.rebuild()
    scheduler.rebuild()
    assert scheduler.pending_jobs() == [job_id("m1", decision_id)]
    # Not due yet: the ledger refuses, the scheduler logs it and carries on.
    assert scheduler.expire("m1", decision_id) is False
    assert "not due" in caplog.text
    assert decision_id in service.state("m1").decisions


def centre_config(database: Path):
    from alley_poker.config import AlleyConfig, BackupConfig, CentreConfig, DatabaseConfig

    return AlleyConfig(centre=CentreConfig(name="Jobs Lanes", lanes=2),
                       database=DatabaseConfig(url=f"sqlite:///{database}"),
                       backup=BackupConfig(folder=str(database.parent / "backups")))


def test_the_centre_scheduler_expires_decisions_beside_its_standing_jobs(database):
    from alley_poker.service.scheduler import BACKUP_JOB, centre_scheduler

    service = service_over(database)
    scheduler = centre_scheduler(service, centre_config(database), None)
    scheduler.start()
    try:
        decision_id = gutter_after_a_strike(service, QUICK)
        assert scheduler.pending_jobs() == [job_id("m1", decision_id)]
        assert BACKUP_JOB in scheduler.job_ids()
        assert wait_until(lambda: not service.state("m1").decisions, timeout=4)
        assert scheduler.pending_jobs() == []
    finally:
        scheduler.shutdown()
        service.repository.store.close()


def test_standing_jobs_added_again_are_still_one_job_each(database):
    from alley_poker.service.scheduler import (
        BACKUP_CATCH_UP_JOB,
        BACKUP_JOB,
        NIGHT_CLOSE_JOB,
        CentreScheduler,
    )

    service = service_over(database)
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor=DESK)
    scheduler = CentreScheduler(service, centre_config(database), None, catch_up_delay_s=30)
    scheduler.start()
    try:
        scheduler.add_standing_jobs()  # a second code path (or a restart hook) adds them again
        scheduler.add_standing_jobs()
        ids = scheduler.job_ids()
        assert sorted(ids) == sorted({BACKUP_JOB, BACKUP_CATCH_UP_JOB, NIGHT_CLOSE_JOB}), ids
    finally:
        scheduler.shutdown()
        service.repository.store.close()


def test_a_shutdown_while_an_expiry_is_being_dealt_with_does_not_hang(database):
    # The expiry's own decision_closed reaches the scheduler on the job's thread; a listener
    # that subscribed first holds that thread until shutdown has begun, which is when APScheduler
    # holds its job-store lock and waits for the job (before the fix: for ever).
    service = service_over(database)
    expiring, shutting_down = threading.Event(), threading.Event()

    def slow_listener(topic, message):
        if any(event.get("type") == "decision_closed" for event in message.get("events", [])):
            expiring.set()
            shutting_down.wait(5)
            time.sleep(0.5)  # shutdown is now inside APScheduler, joining this thread

    service.bus.subscribe(slow_listener)
    scheduler = DecisionScheduler(service)
    scheduler.start()
    gutter_after_a_strike(service, QUICK)
    try:
        assert expiring.wait(5), "the decision was not expired"
        stopping = threading.Thread(target=scheduler.shutdown, daemon=True)
        stopping.start()
        shutting_down.set()
        stopping.join(10)
        assert not stopping.is_alive(), "shutdown hung waiting for the expiry"
        closed = [r for r in service.repository.store.load("m1")
                  if r["type"] == "decision_closed"]
        assert [r["data"]["outcome"] for r in closed] == ["expired"]
    finally:
        service.repository.store.close()
