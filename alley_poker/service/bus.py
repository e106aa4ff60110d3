"""The internal event bus: how state changes reach the screens.

The service publishes one message per state change on a topic (``match:<id>``,
``lanes:<pair>``, ``feed:<name>``, ``alley``); the web layer turns messages into Socket.IO
pushes.  The bus is an interface so a Redis implementation can stand beside this in-process
one when several processes share the work.

>>> bus = InProcessBus()
>>> seen = []
>>> unsubscribe = bus.subscribe(lambda topic, message: seen.append((topic, message["kind"])))
>>> bus.publish("match:m1", {"kind": "cards_dealt"})
>>> unsubscribe(); bus.publish("match:m1", {"kind": "ignored"})
>>> seen
[('match:m1', 'cards_dealt')]
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

Message = dict[str, Any]
Subscriber = Callable[[str, Message], None]

log = logging.getLogger(__name__)


class EventBus(Protocol):
    def publish(self, topic: str, message: Message) -> None:
        """Deliver ``message`` (JSON-safe) to every subscriber, in publish order."""

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Register ``subscriber``; returns a function that unsubscribes it."""


class InProcessBus:
    """Synchronous fan-out within one process.

    Delivery happens in the publisher's thread, in order; a subscriber that raises is logged
    and skipped so one broken screen cannot stop dealing.
    """

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def publish(self, topic: str, message: Message) -> None:
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
