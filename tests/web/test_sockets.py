"""Live pushes over a real network connection: a python-socketio client against the served app."""

from __future__ import annotations

import functools
import queue
import signal
import time

import pytest

from alley_poker.ledger import commands as c
from alley_poker.ledger.views import public_match_view
from alley_poker.web.view_patch import take_update
from drivers.base import BallRecorded
from drivers.simulator import Simulator
from tests.socket_client import InOrderClient
from tests.web.conftest import (
    DESK,
    assert_no_pile_order,
    free_port,
    pair_kiosk,
    serve_in_process,
)


class QueuedClient:
    """What the tests' Socket.IO clients share: the messages they got, in order of arrival
    (``next``), and a quick ``close``."""

    messages: queue.Queue
    client: InOrderClient

    def next(self, timeout: float = 5.0):
        return self.messages.get(timeout=timeout)

    def close(self):
        # The development server never answers a websocket close frame, so websocket-client
        # would wait its full 3 s for one; the engine.io CLOSE packet has already said goodbye.
        ws = getattr(self.client.eio, "ws", None)
        if ws is not None:
            ws.close = functools.partial(ws.close, timeout=0.2)
        self.client.disconnect()


class KioskClient(QueuedClient):
    """A real Socket.IO client (websocket transport) that joins a lane pair like the kiosk."""

    def __init__(self, url: str, lanes: str = "1-2", device_token: str | None = None):
        self.messages: queue.Queue = queue.Queue()
        self.client = InOrderClient(reconnection=True, reconnection_delay=0.1,
                                      reconnection_delay_max=0.5)
        self.join_answers: list = []

        @self.client.event
        def connect():
            # Like the kiosk page: (re)join on every connect, which brings a full state.
            self.client.emit("join", {"lanes": lanes, "device_token": device_token},
                             callback=self.join_answers.append)

        @self.client.on("state")
        def on_state(message):
            self.messages.put(("state", message))

        @self.client.on("match_update")
        def on_update(message):
            self.messages.put(("match_update", message))

        self.client.connect(url, transports=["websocket"], wait_timeout=5)
        # The server may handle events in parallel threads: a decision sent before the join
        # is answered could be judged before the kiosk's device is known.
        deadline = time.monotonic() + 5
        while not self.join_answers and time.monotonic() < deadline:
            time.sleep(0.01)


@pytest.fixture
def kiosk_client(live_server, app):
    client = KioskClient(live_server.url, device_token=pair_kiosk(app, "1-2"))
    yield client
    client.close()


def test_join_brings_the_full_public_state(kiosk_client, service):
    kind, message = kiosk_client.next()
    assert kind == "state" and message["match_id"] == "m1"
    assert message["state"]["seat_order"] == ["Ann", "Bob"]
    assert message["state"]["seq"] == service.state("m1").seq
    assert_no_pile_order(message, service.state("m1").pile)


def test_every_update_of_a_simulated_game_arrives_in_order_as_patches(kiosk_client, service):
    """A whole simulated game through the lane router: each update patches the state the
    kiosk holds, in ledger order, with no gap, and what the kiosk ends up holding is the
    ledger's public state exactly — without the pile's order ever leaving the server."""
    kind, message = kiosk_client.next()  # the full state on joining
    assert kind == "state"
    held = message["state"]
    seqs = []
    simulator = Simulator(lanes=[1, 2], bowlers_per_lane=1, seed=11, games=1)
    for timed in simulator.events():
        before = service.state("m1").seq
        service.handle_lane_event(timed.event)
        if service.state("m1").seq != before:
            seqs.append(service.state("m1").seq)
    assert len(seqs) >= 20, "a whole game's balls should have dealt"
    assert service.state("m1").status in ("ending", "settled"), "the game is over"
    received, event_seqs = [], []
    # In the socket's order: the client is an InOrderClient (tests/socket_client.py).
    for _ in seqs:
        kind, message = kiosk_client.next()
        assert kind == "match_update"
        assert_no_pile_order(message, service.state("m1").pile)
        if received:  # after the first push, only what changed travels
            assert "patch" in message and "state" not in message
        held = take_update(held, message)  # raises on a patch of a state not held
        received.append(held["seq"])
        event_seqs.extend(event["seq"] for event in message["events"])
    assert received == seqs
    assert event_seqs == list(range(event_seqs[0], seqs[-1] + 1)), "no event missing or twice"
    assert held == public_match_view(service.state("m1"))
    dealt = [r for r in service.repository.store.load("m1") if r["type"] == "ball_recorded"]
    assert len(dealt) == sum(isinstance(event, BallRecorded) for event in simulator.record)


def test_every_push_of_a_burst_carries_who_is_up_and_the_totals_of_its_own_state(
        kiosk_client, live_server, service):
    """A game's balls as fast as the router takes them (a back-fill burst): each push brings
    each bowler's lane, who is up and running total as the lane screen read says them at
    that very state, so a screen needs no read of its own to keep up."""
    kind, message = kiosk_client.next()
    assert kind == "state"
    assert message["screen"]["Ann"] == {"lane": 1, "up": True, "ball": 1, "score": 0,
                                        "score_at_least": 0, "held": 0}
    api = live_server.app.test_client()
    said: dict[int, dict] = {}
    simulator = Simulator(lanes=[1, 2], bowlers_per_lane=1, seed=11, games=1)
    for timed in simulator.events():
        before = service.state("m1").seq
        service.handle_lane_event(timed.event)
        if service.state("m1").seq != before:
            (match,) = api.get("/api/v1/lanes/1-2/screen").get_json()["matches"] or [None]
            said[service.state("m1").seq] = match["bowlers"] if match else None
    assert len(said) >= 20 and service.state("m1").status in ("ending", "settled")
    for _push in said:
        kind, message = kiosk_client.next()
        assert kind == "match_update"
        pushed_seq = message["seq"] if "seq" in message else message["state"]["seq"]
        if said[pushed_seq] is not None:  # the match still holds the lanes
            assert message["screen"] == said[pushed_seq], pushed_seq
    totals = [seat["score_at_least"] for bowlers in said.values() if bowlers
              for seat in bowlers.values()]
    assert len(set(totals)) > 10  # the totals moved with the balls, push by push


def test_a_ball_held_or_a_bowler_moved_is_pushed_to_the_screens(live_server, service):
    """Neither changes the match's state, so no match_update would tell a screen: each comes
    as match_screen, with the bowlers' held counts and lanes as they are now."""
    screens: queue.Queue = queue.Queue()
    client = InOrderClient(reconnection=False)
    client.on("match_screen", screens.put)
    client.connect(live_server.url, transports=["websocket"], wait_timeout=5)
    try:
        client.call("join", {"lanes": "1-2"}, timeout=5)
        service.router.handle(BallRecorded(lane=1, bowler=1, game=1, frame=2, ball=1, pins=9,
                                           source="scorer"))
        held = screens.get(timeout=5)
        assert held["match_id"] == "m1" and held["seq"] == service.state("m1").seq
        assert (held["screen"]["Ann"]["held"], held["screen"]["Bob"]["held"]) == (1, 0)
        service.reassign_lanes("m1", {(1, 1): "Bob", (2, 1): "Ann"}, actor=DESK,
                               reason="they swapped lanes")
        moved = screens.get(timeout=5)
        assert (moved["screen"]["Ann"]["lane"], moved["screen"]["Bob"]["lane"]) == (2, 1)
    finally:
        client.disconnect()


def test_a_strike_patch_carries_the_bowlers_new_cards(kiosk_client, service):
    held = kiosk_client.next()[1]["state"]
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    _, first = kiosk_client.next()
    service.execute("m1", c.RecordBall("Bob", 1, 7, actor="feed:test"))
    _, second = kiosk_client.next()
    assert first["events"][0]["type"] == "ball_recorded"
    assert first["events"][0]["data"]["mark"] == "strike"
    held = take_update(take_update(held, first), second)
    assert len(held["bowlers"]["Ann"]["hand"]) == 3
    assert set(second["patch"].get("bowlers", {})) == {"Bob"}, "Ann's panel did not change"
    assert held == public_match_view(service.state("m1"))


def test_the_kiosk_loses_a_card_for_the_bowler_whose_decision_is_pending(kiosk_client, service):
    kiosk_client.next()
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    kiosk_client.next(), kiosk_client.next()
    pending = service.state("m1").pending_for("Ann")
    assert [d["kind"] for d in pending] == ["lose_card"], "the seeded deal should open one"
    hand = service.state("m1").hands["Ann"]
    shown = service.state("m1").display_card(hand[1])
    refused = kiosk_client.client.call("decide_lose_card", {
        "match_id": "m1", "bowler": "Bob", "card": shown}, timeout=5)
    assert refused["error"]["code"] == "command_refused"  # Bob has nothing pending
    answer = kiosk_client.client.call("decide_lose_card", {
        "match_id": "m1", "bowler": "Ann", "card": shown}, timeout=5)
    assert answer == {"ok": True}
    kind, message = kiosk_client.next()
    assert kind == "match_update"
    ann = message["patch"]["bowlers"]["Ann"]
    assert ann["hand"] == [
        service.state("m1").display_card(card) for card in hand if card != hand[1]]
    assert ann["pending"] == []
    again = kiosk_client.client.call("decide_lose_card", {
        "match_id": "m1", "bowler": "Ann", "card": shown}, timeout=5)
    assert again["error"]["code"] == "command_refused"  # only while it is pending


def test_a_kiosk_cannot_decide_for_a_match_on_other_lanes(live_server, app, service):
    other = KioskClient(live_server.url, lanes="5-6", device_token=pair_kiosk(app, "5-6"))
    try:
        answer = other.client.call("decide_lose_card", {
            "match_id": "m1", "bowler": "Ann", "card": "2C"}, timeout=5)
        assert answer["error"]["code"] == "forbidden"
    finally:
        other.close()


def state_after_a_server_restart(service, database, connect) -> dict:
    """Serve ``database`` in a process, ``connect(url)`` a client and see its first state,
    SIGKILL the server, move the ledger on (Ann strikes in m1) and serve again: the state the
    client gets by itself once reconnected, checked to be the ledger's own."""
    port = free_port()
    server = serve_in_process(database, port)
    client = None
    try:
        client = connect(f"http://127.0.0.1:{port}")
        kind, message = client.next()
        assert kind == "state" and message["state"]["bowlers"]["Ann"]["hand"] == []
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=5)
        # While the server is down, the ledger moves on (another writer on the same file).
        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        server = serve_in_process(database, port)
        kind, message = client.next(timeout=15)
        assert kind == "state"
        assert message["state"] == public_match_view(service.state("m1"))
        return message["state"]
    finally:
        if client is not None:
            client.close()
        server.kill()
        server.wait(timeout=5)


@pytest.mark.slow
def test_after_a_server_restart_the_client_reconnects_and_resyncs(database, service):
    """The server process is SIGKILLed, the ledger moves on, a new process serves again:
    the client reconnects by itself and gets a full state that includes the change."""
    state = state_after_a_server_restart(service, database, KioskClient)
    assert len(state["bowlers"]["Ann"]["hand"]) == 3
