"""The internal event bus: how state changes reach the screens.

The service publishes one message per state change on a topic (``match:<id>``,
``lanes:<pair>``, ``feed:<name>``, ``alley``); the web layer turns messages into Socket.IO
pushes.  The bus is an interface: :class:`InProcessBus` for one process (``serve``) and
:class:`~alley_poker.service.redis_bus.RedisBus` when ``web`` and ``worker`` processes share
a centre.  Every delivered message carries ``origin``, the id of the process that published
it, so a process can tell its own changes (which it pushes to Socket.IO clients itself) from
other processes' (which only tell it that its cached state is behind).

>>> bus = InProcessBus()
>>> seen = []
>>> unsubscribe = bus.subscribe(lambda topic, message: seen.append((topic, message["kind"])))
>>> bus.publish("match:m1", {"kind": "cards_dealt"})
>>> unsubscribe(); bus.publish("match:m1", {"kind": "ignored"})
>>> seen
[('match:m1', 'cards_dealt')]
>>> bus.is_shared
False
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from typing import Any, Protocol

Message = dict[str, Any]
Subscriber = Callable[[str, Message], None]

log = logging.getLogger(__name__)


def new_origin() -> str:
    """A process-unique id stamped on every message this process publishes.

    >>> new_origin() != new_origin()
    True
    """
    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


class EventBus(Protocol):
    #: Who publishes through this bus (see :func:`new_origin`).
    origin: str
    #: True when other processes publish on the same bus (their changes reach the store
    #: without passing through this process).
    is_shared: bool

    def publish(self, topic: str, message: Message) -> None:
        """Deliver ``message`` (JSON-safe) to every subscriber, in publish order."""

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Register ``subscriber``; returns a function that unsubscribes it."""


class InProcessBus:
    """Synchronous fan-out within one process.

    Delivery happens in the publisher's thread, in order; a subscriber that raises is logged
    and skipped so one broken screen cannot stop dealing.
    """

    is_shared = False

    def __init__(self, origin: str | None = None) -> None:
        self.origin = origin or new_origin()
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def publish(self, topic: str, message: Message) -> None:
        self.deliver(topic, {**message, "origin": message.get("origin", self.origin)})

    def deliver(self, topic: str, message: Message) -> None:
        """Hand ``message`` to every subscriber of this process as it is (origin included)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(topic, message)
            except Exception:
                log.exception("bus subscriber %r failed on %s", subscriber, topic)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe
