"""Two workers for one centre: one active, one standing by; SIGKILL the active one.

The standby must take over within a few seconds (the time is printed) and the feed must keep
dealing: every ball the simulator bowled ends up in the ledger once.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from alley_poker.cli.centre_worker import LOST_LOCK
from alley_poker.ledger import commands as c
from alley_poker.service.election import lock_key
from drivers.feed_writer import FeedWriter, encode_lines
from tests.scale.conftest import write_config
from tests.scale.test_multi_process import DESK, desk_process, start_match, two_lane_game

TAKEOVER_BUDGET_S = 10  # generous for a loaded CI box; the printed figure is the measure


def ledger_balls(service, match_id: str) -> list[tuple]:
    state = service.state(match_id)
    return sorted((bowler, game, ball["frame"], ball["ball"], ball["pins"])
                  for bowler, games in state.balls.items()
                  for game, balls in enumerate(games, 1) for ball in balls)


def wait_for_balls(service, match_id: str, count: int, timeout: float) -> list[tuple]:
    deadline = time.monotonic() + timeout
    while len(balls := ledger_balls(service, match_id)) < count:
        assert time.monotonic() < deadline, f"ledger holds {len(balls)} of {count} balls"
        time.sleep(0.1)
    return balls


def wait_reading(worker, timeout: float = 30) -> None:
    """Until ``worker`` has the scorer's line open.  It says it is active once its feeds are
    started, a moment before the port is open; lines written in between go down a serial line
    nobody reads and are lost, as on a real cable (a loaded run lost 9 of 36 balls so)."""
    deadline = time.monotonic() + timeout
    while "feed scorer: connected to" not in worker.log_path.read_text(errors="replace"):
        assert time.monotonic() < deadline, "the worker never opened the scorer's line"
        time.sleep(0.05)


@pytest.mark.slow
def test_the_standby_worker_takes_over_when_the_active_one_is_killed(
        cluster, centre, postgresql_url, redis_url, pty_pair, tmp_path, report):
    config = write_config(tmp_path / "alley.toml", centre=centre, feed_url=pty_pair.reader_path)
    active = cluster.worker(config)
    active.wait_for(r"active for centre")
    wait_reading(active)
    standby = cluster.worker(config)
    standby.wait_for(r"standing by for centre")

    simulator, slots = two_lane_game(seed=8)
    lines = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="fo")]
    half = len(lines) // 2
    with desk_process(centre, postgresql_url, redis_url) as desk:
        writer = FeedWriter(pty_pair.writer_path).start()
        try:
            start_match(desk, "m1", slots, games=1)  # the active worker learns the lanes by bus
            for line in lines[:half]:
                writer.write(line)
            assert writer.flush(10)
            wait_for_balls(desk, "m1", sum(b",BALL," in line for line in lines[:half]), timeout=30)

            killed_at = time.monotonic()
            active.kill()
            standby.wait_for(r"active for centre", timeout=TAKEOVER_BUDGET_S)
            took = time.monotonic() - killed_at
            report(f"standby active {took:.2f} s after the active worker was SIGKILLed")
            wait_reading(standby)

            for line in lines[half:]:
                writer.write(line)
            assert writer.flush(10)
            bowled = sorted((slots[(ball.lane, ball.bowler)], ball.game, ball.frame, ball.ball,
                             ball.pins) for ball in simulator.balls)
            assert wait_for_balls(desk, "m1", len(bowled), timeout=30) == bowled
        finally:
            writer.stop()


@pytest.mark.slow
def test_a_worker_that_loses_its_lock_session_stops_and_the_standby_takes_over(
        cluster, centre, postgres_admin_engine, tmp_path):
    config = write_config(tmp_path / "alley.toml", centre=centre)
    active = cluster.worker(config)
    active.wait_for(r"active for centre")
    standby = cluster.worker(config)
    standby.wait_for(r"standing by for centre")

    # PostgreSQL restarted, or a firewall cut the session: the lock is gone with it.
    with postgres_admin_engine.connect() as connection:
        ended = connection.execute(sa.text(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
            "AND granted AND objsubid = 1 "
            "AND objid = CAST(CAST(:key AS bigint) & 4294967295 AS oid) "
            "AND classid = CAST((CAST(:key AS bigint) >> 32) & 4294967295 AS oid)"),
            {"key": lock_key(centre)}).scalars().all()
    assert ended == [True]
    active.wait_for(r"lost the worker lock")
    assert active.popen.wait(10) == LOST_LOCK
    standby.wait_for(r"active for centre")



DEADLINE_S = 4  # the match's own rule book: the lose-card choice after a gutter ball, 4 s


def wait_for_record(store, match_id: str, kind: str, timeout: float) -> dict:
    """The match's first ledger record of type ``kind``, waited for."""
    deadline = time.monotonic() + timeout
    while not (found := [r for r in store.load(match_id) if r["type"] == kind]):
        assert time.monotonic() < deadline, f"no {kind} in the ledger after {timeout} s"
        time.sleep(0.1)
    return found[0]


@pytest.mark.slow
def test_a_decision_deadline_opened_under_the_active_worker_is_kept_by_the_standby(
        cluster, centre, postgresql_url, redis_url, tmp_path, report):
    config = write_config(tmp_path / "alley.toml", centre=centre)
    active = cluster.worker(config)
    active.wait_for(r"active for centre")
    standby = cluster.worker(config)
    standby.wait_for(r"standing by for centre")

    with desk_process(centre, postgresql_url, redis_url) as desk:
        store = desk.repository.store
        # Ann strikes (three cards, stacked: no joker), then throws a gutter ball: she has
        # DEADLINE_S to pick the card to lose.  The active worker hears of it by the bus.
        desk.execute("m1", c.CreateMatch("m1", ["Ann", "Bob"], games=1, test_mode=True,
                                         rules={"lose_card_deadline_s": DEADLINE_S},
                                         actor=DESK))
        for bowler in ("Ann", "Bob"):
            desk.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        desk.execute("m1", c.StartMatch(actor=DESK))
        desk.execute("m1", c.StackPile(["AS", "AH", "2C"], actor=DESK))
        desk.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        desk.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
        (decision,) = desk.state("m1").pending_for("Ann")
        assert decision["kind"] == "lose_card"
        deadline = datetime.fromisoformat(decision["deadline"].replace("Z", "+00:00"))

        active.kill()
        killed_at = datetime.now(UTC)
        assert killed_at < deadline, "too slow: the deadline passed before the SIGKILL"
        took_over = standby.wait_for(r"active for centre .*?(\d+) deadline job",
                                     timeout=TAKEOVER_BUDGET_S)
        active_at = datetime.now(UTC)
        assert took_over.group(1) == "1", "the standby did not rebuild the deadline"

        closed = wait_for_record(store, "m1", "decision_closed",
                                 timeout=DEADLINE_S + TAKEOVER_BUDGET_S)
        records = store.load("m1")
        hand = desk.state("m1").hands["Ann"]

    assert closed["data"]["decision_id"] == decision["id"]
    assert (closed["data"]["outcome"], closed["data"]["actor"]) == ("expired", "scheduler")
    expired_at = datetime.fromisoformat(closed["at"].replace("Z", "+00:00"))
    assert expired_at >= deadline, "expired before its deadline"
    # The automatic choice, made once: of AS AH 2C she loses the 2C and keeps the pair.
    assert [r["data"]["choice"] for r in records if r["type"] == "decision_closed"] == ["2C"]
    assert [r["data"]["card"] for r in records if r["type"] == "card_returned"] == ["2C"]
    assert sorted(hand) == ["AH", "AS"]
    report(f"decision deadline across a takeover: standby active "
           f"{(active_at - killed_at).total_seconds():.2f} s after the SIGKILL, "
           f"{(deadline - active_at).total_seconds():.2f} s before the deadline; expired "
           f"{(expired_at - deadline).total_seconds():.2f} s after it")
