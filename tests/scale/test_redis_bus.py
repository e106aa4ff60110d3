"""The Redis bus between a centre's processes (real Redis; in one test process)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis

from alley_poker.service.redis_bus import RECONNECTED, BusUnavailable, RedisBus


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[str, dict]] = []
        self.arrived = threading.Condition()

    def __call__(self, topic: str, message: dict) -> None:
        with self.arrived:
            self.messages.append((topic, message))
            self.arrived.notify_all()

    def wait_for(self, count: int, timeout: float = 5) -> list[tuple[str, dict]]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.messages) >= count, timeout), \
                f"{len(self.messages)} of {count} messages arrived: {self.messages}"
            return list(self.messages)


@pytest.fixture
def prefix() -> str:
    return f"alley:test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def buses(redis_url, prefix):
    opened = [RedisBus(redis_url, channel_prefix=prefix) for _ in range(2)]
    yield opened
    for bus in opened:
        bus.close()


def test_other_processes_get_every_message_once_in_publish_order_with_its_origin(buses):
    web, worker = buses
    at_web, at_worker = Inbox(), Inbox()
    web.subscribe(at_web)
    worker.subscribe(at_worker)
    for n in range(200):
        worker.publish("match:m1", {"kind": "events", "n": n})
    received = at_web.wait_for(200)
    assert [message["n"] for _, message in received] == list(range(200))
    assert {message["origin"] for _, message in received} == {worker.origin} != {web.origin}
    # The publisher's own subscribers got theirs at once, in its thread, and only once.
    assert [message["n"] for _, message in at_worker.messages] == list(range(200))
    time.sleep(0.2)
    assert len(at_worker.messages) == 200 and len(at_web.messages) == 200


def test_a_failing_subscriber_is_skipped_and_a_malformed_message_ignored(buses, redis_url):
    web, worker = buses

    def broken(topic: str, message: dict) -> None:
        raise RuntimeError("a broken screen")

    inbox = Inbox()
    web.subscribe(broken)
    web.subscribe(inbox)
    client = redis.Redis.from_url(redis_url)
    client.publish(web.channel, b"{not json")
    client.publish(web.channel, b'{"topic": 3, "message": []}')
    client.close()
    worker.publish("alley", {"kind": "feed_health", "feeds": []})
    assert inbox.wait_for(1) == [("alley", {"kind": "feed_health", "feeds": [],
                                            "origin": worker.origin})]


def test_centres_do_not_hear_each_other(redis_url, prefix):
    north = RedisBus(redis_url, channel_prefix=f"{prefix}-north")
    south = RedisBus(redis_url, channel_prefix=f"{prefix}-south")
    south_inbox = Inbox()
    south.subscribe(south_inbox)
    try:
        north.publish("match:m1", {"kind": "events"})
        time.sleep(0.3)
        assert south_inbox.messages == []
    finally:
        north.close()
        south.close()


def test_the_listener_reconnects_after_redis_drops_it(buses, redis_url):
    web, worker = buses
    inbox = Inbox()
    web.subscribe(inbox)
    admin = redis.Redis.from_url(redis_url)
    try:
        killed = admin.client_kill_filter(_type="pubsub", skipme=True,
                                          _id=_client_id(admin, web))
        assert killed == 1
        deadline = time.monotonic() + 10
        while not any(m.get("kind") == RECONNECTED for _, m in inbox.messages):
            assert time.monotonic() < deadline, "the listener never came back"
            time.sleep(0.05)
        worker.publish("match:m1", {"kind": "events", "after": "blip"})
        assert ("match:m1", {"kind": "events", "after": "blip", "origin": worker.origin}) in \
            inbox.wait_for(2)
    finally:
        admin.close()


def _client_id(admin: redis.Redis, bus: RedisBus) -> str:
    for client in admin.client_list(_type="pubsub"):
        if client.get("name") == f"alley-bus-{bus.origin}":
            return client["id"]
    raise AssertionError("the bus's listener is not connected")


def test_an_unreachable_redis_is_named_at_once():
    with pytest.raises(BusUnavailable, match=r"cannot reach Redis at redis://127\.0\.0\.1:1/0"):
        RedisBus("redis://127.0.0.1:1/0")
