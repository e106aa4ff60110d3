"""Failover: SIGKILL the active worker mid-game while the scorer keeps bowling.

Two ``alley-poker worker`` processes and one ``alley-poker web`` on PostgreSQL + Redis; the
scorer is the simulator listening on ``socket://`` like a serial device server, so the worker
that takes over connects to it exactly as the dead one did.  A python-socketio kiosk on the
web process follows both matches.  After the night: every ball the simulator bowled is in the
ledger once and dealt as the rules say, the card invariants hold, and the kiosk saw every
ledger event exactly once, in order, from its last full state on (it re-joins for a fresh
state if it ever notices a gap, as the kiosk page does), and the state its pushes built —
the full state, then each update's patch — is the ledger's public state exactly.
"""

from __future__ import annotations

import threading
import time

import pytest

from alley_poker.ledger import MatchState
from alley_poker.service import open_service
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from alley_poker.store.repository import MatchRepository
from alley_poker.web.public import public_match_view
from alley_poker.web.view_patch import MissedUpdate, take_update
from drivers.feed_writer import FeedWriter
from tests.scale.conftest import write_config
from tests.service.league_night_runner import (
    MATCH_LANES,
    Scorer,
    all_balls_recorded,
    audit,
    league_night,
    night_seconds,
    set_up_matches,
    wait_until,
)
from tests.socket_client import InOrderClient

pytestmark = pytest.mark.slow

SPEED = 30.0
TAKEOVER_BUDGET_S = 15  # generous for a loaded box; the printed figure is the measure


class FollowingKiosk:
    """A kiosk on one lane pair: every full ``state`` and every event seq it was sent."""

    def __init__(self, url: str, lanes: str, match_id: str):
        self.lanes, self.match_id = lanes, match_id
        self.lock = threading.Lock()
        self.state_seq: int | None = None  # seq of the last full state
        self.after_state: list[int] = []  # event seqs received since that state
        self.every_seq: list[int] = []  # all event seqs ever received, in arrival order
        self.resyncs = 0
        self.held: dict | None = None  # the public state as the pushes built it
        self.client = InOrderClient(reconnection=False)
        self.client.on("state", self._on_state)
        self.client.on("match_update", self._on_update)
        self.client.connect(url, transports=["websocket"], wait_timeout=10)

    def join(self) -> list[str]:
        return self.client.call("join", {"lanes": self.lanes}, timeout=10)["matches"]

    def _on_state(self, payload: dict) -> None:
        if payload["match_id"] != self.match_id:
            return
        with self.lock:
            self.state_seq = payload["state"]["seq"]
            self.after_state = []
            self.held = take_update(self.held, payload)

    def _on_update(self, payload: dict) -> None:
        if payload["match_id"] != self.match_id:
            return
        gap = False
        with self.lock:
            for event in payload["events"]:
                self.every_seq.append(event["seq"])
                if self.state_seq is not None and event["seq"] <= self.state_seq:
                    continue  # already in the full state it holds
                expected = (self.after_state[-1] if self.after_state else self.state_seq) + 1
                if event["seq"] != expected:
                    gap = True
                self.after_state.append(event["seq"])
            try:
                self.held = take_update(self.held, payload)
            except MissedUpdate:
                gap = True
        if gap:  # what the kiosk page does: ask for a fresh full state
            self.resyncs += 1
            threading.Thread(target=self.join, daemon=True).start()

    def last_seq(self) -> int | None:
        with self.lock:
            return self.after_state[-1] if self.after_state else self.state_seq

    def close(self) -> None:
        self.client.disconnect()


def test_standby_worker_takes_over_mid_game_and_every_mark_is_dealt_once(
        cluster, centre, postgresql_url, redis_url, tmp_path, report):
    night = league_night(seed=606, games=1)
    writer = FeedWriter("socket://127.0.0.1:0").start()
    host, port = writer.address
    config = write_config(tmp_path / "alley.toml", centre=centre,
                          feed_url=f"socket://{host}:{port}")
    first = cluster.worker(config)
    first.wait_for(r"active for centre")
    second = cluster.worker(config)
    second.wait_for(r"standing by for centre")
    _, web_url = cluster.web(config)

    desk_bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre))
    desk = open_service(postgresql_url, centre=centre, bus=desk_bus)

    def ledger_states() -> dict[str, MatchState]:
        """Both matches read afresh from the log (no cache: the worker writes them)."""
        repository = MatchRepository(desk.repository.store)
        return {match_id: repository.state(match_id) for match_id in MATCH_LANES}

    kiosks: list[FollowingKiosk] = []
    scorer = Scorer(night, writer, speed=SPEED, session="failover")
    try:
        set_up_matches(desk, night)  # the active worker learns the lanes by the bus
        for match_id, lanes in MATCH_LANES.items():
            kiosk = FollowingKiosk(web_url, f"{lanes[0]}-{lanes[1]}", match_id)
            kiosks.append(kiosk)
            assert wait_until(lambda kiosk=kiosk: kiosk.join() == [kiosk.match_id], 10), \
                "the web process never learned the match's lanes"
        assert writer.wait_connected(30), "the active worker's feed never connected"

        scorer.start()
        # Mid-game: about 40 % of the night's balls are in the ledger.
        bowled_target = int(0.4 * 17 * len(night.slots))
        assert wait_until(lambda: sum(
            len(game) for state in ledger_states().values()
            for games in state.balls.values() for game in games
        ) >= bowled_target, timeout=night_seconds(night, SPEED) + 30, poll=0.2)
        connections = writer.connections
        killed_at = time.monotonic()
        first.kill()
        second.wait_for(r"active for centre", timeout=TAKEOVER_BUDGET_S)
        took = time.monotonic() - killed_at
        assert wait_until(lambda: writer.connections > connections, TAKEOVER_BUDGET_S), \
            "the new active worker's feed never connected to the scorer"
        reading = time.monotonic() - killed_at

        assert scorer.join(timeout=night_seconds(night, SPEED) * 2 + 30), "scorer never done"
        assert writer.flush(30), "the new active worker never took the lines"
        assert wait_until(lambda: all_balls_recorded(ledger_states(), night), 60, 0.5)
        states = ledger_states()
        balls = audit(states, night)
        for kiosk in kiosks:
            final = states[kiosk.match_id].seq
            assert wait_until(lambda kiosk=kiosk, final=final: kiosk.last_seq() == final, 30), \
                f"kiosk {kiosk.lanes}: last seq {kiosk.last_seq()}, the ledger's {final}"
            assert wait_until(lambda kiosk=kiosk, final=final: kiosk.held["seq"] == final, 30)
            assert kiosk.held == public_match_view(states[kiosk.match_id]), \
                f"kiosk {kiosk.lanes}: the state its pushes built is not the ledger's"
    finally:
        scorer.halt()
        for kiosk in kiosks:
            kiosk.close()
        writer.stop()
        desk_bus.close()
        desk.repository.store.close()

    report(f"failover: standby active {took:.2f} s, its feed reading {reading:.2f} s after "
           f"the SIGKILL; {balls} balls audited")
    for kiosk in kiosks:
        with kiosk.lock:
            after = list(kiosk.after_state)
            every = list(kiosk.every_seq)
            state_seq = kiosk.state_seq
        print(f"kiosk {kiosk.lanes}: {len(every)} events, {kiosk.resyncs} resync(s)")
        assert state_seq is not None, "the kiosk never got a full state"
        assert after == list(range(state_seq + 1, state_seq + 1 + len(after))), \
            "events after the last full state are not contiguous (missing or repeated)"
        assert len(set(every)) == len(every), "the kiosk was sent an event twice"
