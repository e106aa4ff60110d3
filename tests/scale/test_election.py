"""Two workers for one centre: one active, one standing by; SIGKILL the active one.

The standby must take over within a few seconds (the time is printed) and the feed must keep
dealing: every ball the simulator bowled ends up in the ledger once.
"""

from __future__ import annotations

import time

import sqlalchemy as sa

from alley_poker.service import open_service
from alley_poker.service.election import lock_key
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from alley_poker.worker import LOST_LOCK
from drivers.feed_writer import FeedWriter, encode_lines
from drivers.simulator import Simulator
from tests.scale.conftest import write_config
from tests.scale.test_multi_process import start_match

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


def test_the_standby_worker_takes_over_when_the_active_one_is_killed(
        cluster, centre, postgresql_url, redis_url, pty_pair, tmp_path, report):
    config = write_config(tmp_path / "alley.toml", centre=centre, feed_url=pty_pair.reader_path)
    active = cluster.worker(config)
    active.wait_for(r"active for centre")
    standby = cluster.worker(config)
    standby.wait_for(r"standing by for centre")

    simulator = Simulator([1, 2], seed=8, games=1, bowlers_per_lane=2)
    slots = {(setup.lane, slot): profile.name
             for setup in simulator.lanes for slot, profile in enumerate(setup.bowlers, 1)}
    desk_bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre))
    desk = open_service(postgresql_url, centre=centre, bus=desk_bus)
    lines = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="fo")]
    half = len(lines) // 2
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

        for line in lines[half:]:
            writer.write(line)
        assert writer.flush(10)
        bowled = sorted((slots[(ball.lane, ball.bowler)], ball.game, ball.frame, ball.ball,
                         ball.pins) for ball in simulator.balls)
        assert wait_for_balls(desk, "m1", len(bowled), timeout=30) == bowled
    finally:
        writer.stop()
        desk_bus.close()
        desk.repository.store.close()


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
