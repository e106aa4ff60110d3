"""Feed health as the screens see it: the latest report of every scoreboard feed.

The process that runs the feeds (``serve``, or the centre's ``worker``) publishes a
``{"kind": "feed_health", "feeds": [...]}`` message on the ``alley`` topic whenever a feed's
health is checked; every process that serves screens keeps the latest report here, whatever
bus carried it.

>>> from alley_poker.service.bus import InProcessBus
>>> bus = InProcessBus()
>>> board = FeedStatusBoard(bus)
>>> board.current()
[]
>>> bus.publish("alley", {"kind": "feed_health",
...                       "feeds": [{"source": "lanes-1-4", "state": "amber"}]})
>>> board.current()
[{'source': 'lanes-1-4', 'state': 'amber'}]
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from alley_poker.service.bus import EventBus

TOPIC = "alley"
KIND = "feed_health"


class FeedStatusBoard:
    """Keeps the last ``feed_health`` report seen on the bus."""

    def __init__(self, bus: EventBus) -> None:
        self._feeds: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.unsubscribe = bus.subscribe(self._on_message)

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        if topic == TOPIC and message.get("kind") == KIND:
            with self._lock:
                self._feeds = copy.deepcopy(list(message.get("feeds", [])))

    def current(self) -> list[dict[str, Any]]:
        """Every feed's latest health report (a copy), in the order the worker reports them."""
        with self._lock:
            return copy.deepcopy(self._feeds)
