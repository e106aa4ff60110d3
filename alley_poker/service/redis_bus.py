"""The event bus across processes: Redis pub/sub, one channel per centre.

When a centre runs several ``web`` processes and a ``worker``, a change made in one process
(a ball from the feed in the worker, a commissioner's tap in a web process) must reach the
others: their deadline scheduler, their lane maps, their cached matches.  :class:`RedisBus`
does that with redis-py pub/sub:

- ``publish`` stamps the message with this process's ``origin``, hands it at once to this
  process's own subscribers (in the publisher's thread, like :class:`InProcessBus`), then
  publishes it as JSON on ``<channel_prefix>:bus``;
- one listener thread receives every message on the channel in Redis's order (so each
  publisher's messages arrive in the order it published them), drops its own (already
  delivered) and hands the others to the subscribers;
- a Redis blip is survived: publishing logs and carries on (the ledger already holds the
  change; every process reads current state from the store), and the listener reconnects
  with backoff and then announces ``{"kind": "bus_reconnected"}`` on ``alley`` so
  subscribers can reload what they may have missed;
- a subscriber that raises is logged and skipped.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from alley_poker.service.bus import InProcessBus, Message, Subscriber, new_origin

log = logging.getLogger(__name__)

#: The ``alley`` message a listener delivers after it lost Redis and got it back.
RECONNECTED = "bus_reconnected"

_REDIS_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)


class BusUnavailable(RuntimeError):
    """Redis cannot be reached when the bus is opened; the message names the URL."""


def centre_channel_prefix(centre: str) -> str:
    """The channel prefix of a centre's bus.

    >>> centre_channel_prefix("north")
    'alley:north'
    """
    return f"alley:{centre}"


class _ConnectFlag(threading.Event):
    def on_connect(self, _connection: Any) -> None:
        self.set()


class RedisBus:
    """Publish/subscribe between the processes of one centre (see the module docstring)."""

    is_shared = True

    def __init__(self, url: str, *, channel_prefix: str = "alley:default",
                 origin: str | None = None, connect_timeout_s: float = 5.0) -> None:
        self.url = url
        self.origin = origin or new_origin()
        self.channel = f"{channel_prefix}:bus"
        self._local = InProcessBus(self.origin)
        self._redis = redis.Redis.from_url(
            url, socket_connect_timeout=2, socket_keepalive=True, health_check_interval=10,
            client_name=f"alley-bus-{self.origin}",  # findable in CLIENT LIST
            retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), 3),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError])
        try:
            self._redis.ping()
        except _REDIS_DOWN as error:
            self._redis.close()
            raise BusUnavailable(f"cannot reach Redis at {url}: {error}") from None
        self._publish_lock = threading.Lock()
        self._stop = threading.Event()
        self._subscribed = threading.Event()
        self._thread = threading.Thread(target=self._listen, name=f"bus {self.channel}",
                                        daemon=True)
        self._thread.start()
        # Subscribed before the constructor returns: nothing published afterwards is missed.
        if not self._subscribed.wait(connect_timeout_s):
            self.close()
            raise BusUnavailable(f"could not subscribe to {self.channel} on {url}")

    # ------------------------------------------------------------------------------- bus

    def publish(self, topic: str, message: Message) -> None:
        stamped = {**message, "origin": self.origin}
        self._local.deliver(topic, stamped)
        body = json.dumps({"topic": topic, "message": stamped}, separators=(",", ":"))
        try:
            with self._publish_lock:  # one publisher, one order
                self._redis.publish(self.channel, body)
        except _REDIS_DOWN as error:
            log.warning("bus: could not publish %s to Redis (%s); other processes will read "
                        "the change from the ledger", topic, error)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        return self._local.subscribe(subscriber)

    def ping(self) -> None:
        """Raises when Redis does not answer (for health checks)."""
        self._redis.ping()

    def close(self) -> None:
        """Stop listening and disconnect (idempotent)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._redis.close()

    # -------------------------------------------------------------------------- listener

    def _listen(self) -> None:
        delay = 0.1
        lost = False
        while not self._stop.is_set():
            pubsub = self._redis.pubsub()
            # redis-py reconnects a dropped subscription by itself (and subscribes again);
            # this callback on the connection is how the listener learns that it happened.
            reconnected = _ConnectFlag()  # held here: redis-py keeps only a weak reference
            try:
                pubsub.subscribe(self.channel)
                self._await_subscription(pubsub)
                pubsub.connection.register_connect_callback(reconnected.on_connect)
                self._subscribed.set()
                if lost:
                    self._announce_reconnection()
                    lost, delay = False, 0.1
                while not self._stop.is_set():
                    raw = pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
                    if reconnected.is_set():
                        reconnected.clear()
                        self._announce_reconnection()
                    if raw is not None and raw.get("type") == "message":
                        self._receive(raw["data"])
            except _REDIS_DOWN as error:
                if not lost:
                    log.warning("bus: lost Redis on %s (%s); reconnecting", self.channel, error)
                lost = True
                self._stop.wait(delay)
                delay = min(delay * 2, 2.0)
            except Exception:
                log.exception("bus: listener failed; restarting it")
                self._stop.wait(delay)
            finally:
                with contextlib.suppress(Exception):  # the connection may be gone already
                    pubsub.close()

    def _announce_reconnection(self) -> None:
        # Messages published while the subscription was down are lost: tell subscribers to
        # reload what they keep (the ledger and the lane assignments are in the database).
        log.warning("bus: Redis is back; listening on %s again", self.channel)
        self._local.deliver("alley", {"kind": RECONNECTED, "origin": self.origin})

    def _await_subscription(self, pubsub: Any) -> None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not self._stop.is_set():
            reply = pubsub.get_message(timeout=0.5)
            if reply is not None and reply.get("type") == "subscribe":
                return
        raise redis.TimeoutError(f"no subscription confirmation for {self.channel}")

    def _receive(self, data: bytes | str) -> None:
        try:
            envelope = json.loads(data)
            topic, message = envelope["topic"], envelope["message"]
            if not isinstance(topic, str) or not isinstance(message, dict):
                raise TypeError("topic must be text and message an object")
        except (ValueError, KeyError, TypeError) as problem:
            log.warning("bus: ignored a malformed message on %s: %s", self.channel, problem)
            return
        if message.get("origin") == self.origin:
            return  # delivered to this process's subscribers when it was published
        self._local.deliver(topic, message)
