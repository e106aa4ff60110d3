"""Two ``web`` processes and one ``worker`` over PostgreSQL and Redis, on loopback.

The worker reads the scorer's feed (a simulator writing into a real socat pty pair) into the
ledger; a kiosk connected to web process #2 — which ran none of it — must receive, in order,
an update for every ball, and the balls must be exactly what the simulator bowled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

from alley_poker.ledger.commands import ConsentToAnte, StartMatch
from alley_poker.service import AlleyService, open_service
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from drivers.feed_writer import FeedWriter, serve
from drivers.simulator import Simulator
from tests.scale.conftest import write_config
from tests.socket_client import InOrderClient

DESK = "commissioner:scale-test"


class Kiosk:
    """A python-socketio client on a lane pair, keeping every ``match_update`` it gets."""

    def __init__(self, url: str, lanes: str) -> None:
        self.updates: list[dict] = []
        self.changed = threading.Condition()
        self.client = InOrderClient(reconnection=False)
        self.client.on("match_update", self._on_update)
        self.client.connect(url, transports=["websocket"], wait_timeout=10)
        self.lanes = lanes

    def _on_update(self, payload: dict) -> None:
        with self.changed:
            self.updates.append(payload)
            self.changed.notify_all()

    def join(self) -> list[str]:
        return self.client.call("join", {"lanes": self.lanes}, timeout=10)["matches"]

    def wait(self, done, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: done(self.updates), timeout)

    def close(self) -> None:
        self.client.disconnect()


def start_match(service, match_id: str, slots: dict, games: int) -> None:
    service.create_match(match_id, slots, games=games, actor=DESK)
    for bowler in slots.values():
        service.execute(match_id, ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, StartMatch(actor=DESK))


def two_lane_game(seed: int) -> tuple[Simulator, dict]:
    """A simulator's one game on lanes 1-2, two bowlers a lane, and the match's slots for it."""
    simulator = Simulator([1, 2], seed=seed, games=1, bowlers_per_lane=2)
    return simulator, {(setup.lane, slot): profile.name
                       for setup in simulator.lanes
                       for slot, profile in enumerate(setup.bowlers, 1)}


@contextmanager
def desk_process(centre: str, postgresql_url: str, redis_url: str) -> Iterator[AlleyService]:
    """The desk: a service of its own over the centre's store, on the centre's Redis bus
    (``desk.bus``); both closed after."""
    desk = open_service(postgresql_url, centre=centre,
                        bus=RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre)))
    try:
        yield desk
    finally:
        desk.bus.close()
        desk.repository.store.close()


def wait_every_ball(desk: AlleyService, match_id: str, balls: int, deadline: float) -> None:
    """Until the ledger has recorded ``balls`` balls in ``match_id`` (by ``deadline``, a
    ``time.monotonic()``)."""
    while desk.state(match_id).balls_recorded < balls:
        assert time.monotonic() < deadline, "the worker never ran every ball"
        time.sleep(0.1)


def balls_in(updates: list[dict], match_id: str) -> list[tuple]:
    return [(e["data"]["bowler"], e["data"]["game"], e["data"]["frame"], e["data"]["ball"],
             e["data"]["pins"])
            for update in updates if update["match_id"] == match_id
            for e in update["events"] if e["type"] == "ball_recorded"]


@pytest.mark.slow
def test_a_kiosk_on_the_second_web_process_sees_every_ball_fed_to_the_worker_in_order(
        cluster, centre, postgresql_url, redis_url, pty_pair, tmp_path):
    config = write_config(tmp_path / "alley.toml", centre=centre, feed_url=pty_pair.reader_path)
    _web1, web2 = cluster.scaled_out(config)
    health = requests.get(f"{web2}/healthz", timeout=10)
    assert (health.status_code, health.json()) == (200, {
        "ok": True, "centre": centre, "database": "ok", "redis": "ok"})

    # The desk (a third process on the same bus) sets up the match; the lanes must reach the
    # worker's and both web processes' lane maps through Redis.
    simulator, slots = two_lane_game(seed=5)
    with desk_process(centre, postgresql_url, redis_url) as desk:
        kiosk = Kiosk(web2, "1-2")
        writer = FeedWriter(pty_pair.writer_path).start()
        try:
            start_match(desk, "m1", slots, games=1)
            deadline = time.monotonic() + 10
            while kiosk.join() != ["m1"]:
                assert time.monotonic() < deadline, "web #2 never learned the match's lanes"
                time.sleep(0.1)

            started = time.monotonic()
            serve(simulator, writer, speed=0)
            assert writer.flush(10)
            bowled = [(slots[(ball.lane, ball.bowler)], ball.game, ball.frame, ball.ball, ball.pins)
                      for ball in simulator.balls]
            kiosk.wait(lambda updates: len(balls_in(updates, "m1")) >= len(bowled), timeout=60)
            elapsed = time.monotonic() - started
            print(f"\n{len(bowled)} balls: feed → worker → Redis → web #2 → kiosk "
                  f"in {elapsed:.2f} s")

            assert balls_in(kiosk.updates, "m1") == bowled
            # Every event once, in ledger order, none missing, up to the ledger's last.
            seqs = [e["seq"] for update in kiosk.updates for e in update["events"]]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            assert seqs[-1] == desk.state("m1").seq
        finally:
            writer.stop()
            kiosk.close()
