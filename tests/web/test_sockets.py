"""Live pushes over a real network connection: a python-socketio client against the served app."""

from __future__ import annotations

import functools
import queue
import signal

import pytest
import socketio

from alley_poker.ledger import commands as c
from alley_poker.ledger.views import public_match_view
from tests.web.conftest import assert_no_pile_order, free_port, serve_in_process


class KioskClient:
    """A real Socket.IO client (websocket transport) that joins a lane pair like the kiosk."""

    def __init__(self, url: str, lanes: str = "1-2"):
        self.messages: queue.Queue = queue.Queue()
        self.client = socketio.Client(reconnection=True, reconnection_delay=0.1,
                                      reconnection_delay_max=0.5)
        self.join_answers: list = []

        @self.client.event
        def connect():
            # Like the kiosk page: (re)join on every connect, which brings a full state.
            self.client.emit("join", {"lanes": lanes}, callback=self.join_answers.append)

        @self.client.on("state")
        def on_state(message):
            self.messages.put(("state", message))

        @self.client.on("match_update")
        def on_update(message):
            self.messages.put(("match_update", message))

        self.client.connect(url, transports=["websocket"], wait_timeout=5)

    def next(self, timeout: float = 5.0):
        return self.messages.get(timeout=timeout)

    def close(self):
        # The development server never answers a websocket close frame, so websocket-client
        # would wait its full 3 s for one; the engine.io CLOSE packet has already said goodbye.
        ws = getattr(self.client.eio, "ws", None)
        if ws is not None:
            ws.close = functools.partial(ws.close, timeout=0.2)
        self.client.disconnect()


@pytest.fixture
def kiosk_client(live_server):
    client = KioskClient(live_server.url)
    yield client
    client.close()


def test_join_brings_the_full_public_state(kiosk_client, service):
    kind, message = kiosk_client.next()
    assert kind == "state" and message["match_id"] == "m1"
    assert message["state"]["seat_order"] == ["Ann", "Bob"]
    assert message["state"]["seq"] == service.state("m1").seq
    assert_no_pile_order(message, service.state("m1").pile)


def test_every_update_arrives_in_order_without_the_pile(kiosk_client, service):
    kiosk_client.next()  # the full state on joining
    balls = [("Ann", 10, None), ("Bob", 7, None), ("Bob", 3, None), ("Ann", 0, True),
             ("Bob", 10, None)]
    seqs = []
    for bowler, pins, gutter in balls:
        service.execute("m1", c.RecordBall(bowler, 1, pins, gutter=gutter, actor="feed:test"))
        seqs.append(service.state("m1").seq)
    received = []
    for _ in balls:
        kind, message = kiosk_client.next()
        assert kind == "match_update"
        received.append(message)
        assert_no_pile_order(message, service.state("m1").pile)
    assert [m["state"]["seq"] for m in received] == seqs
    first = received[0]
    assert first["events"][0]["type"] == "ball_recorded"
    assert first["events"][0]["data"]["mark"] == "strike"
    assert len(first["state"]["bowlers"]["Ann"]["hand"]) == 3
    assert received[-1]["state"] == public_match_view(service.state("m1"))


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
    assert message["state"]["bowlers"]["Ann"]["hand"] == [
        service.state("m1").display_card(card) for card in hand if card != hand[1]]
    assert message["state"]["bowlers"]["Ann"]["pending"] == []
    again = kiosk_client.client.call("decide_lose_card", {
        "match_id": "m1", "bowler": "Ann", "card": shown}, timeout=5)
    assert again["error"]["code"] == "command_refused"  # only while it is pending


def test_a_kiosk_cannot_decide_for_a_match_on_other_lanes(live_server, service):
    other = KioskClient(live_server.url, lanes="5-6")
    try:
        answer = other.client.call("decide_lose_card", {
            "match_id": "m1", "bowler": "Ann", "card": "2C"}, timeout=5)
        assert answer["error"]["code"] == "forbidden"
    finally:
        other.close()


def test_after_a_server_restart_the_client_reconnects_and_resyncs(database, service):
    """The server process is SIGKILLed, the ledger moves on, a new process serves again:
    the client reconnects by itself and gets a full state that includes the change."""
    port = free_port()
    server = serve_in_process(database, port)
    client = None
    try:
        client = KioskClient(f"http://127.0.0.1:{port}")
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
        assert len(message["state"]["bowlers"]["Ann"]["hand"]) == 3
    finally:
        if client is not None:
            client.close()
        server.kill()
        server.wait(timeout=5)
