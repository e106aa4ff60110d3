"""Waiting on a feed's condition variable for something to become true, with a deadline.

The feeds and the test writer notify their condition on every change they make, but some of
what callers wait for also changes with time alone (a feed goes stale with no line at all),
so the wait wakes every ``poll_s`` to look again rather than trusting notifications only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, Self, TypeVar

Health = TypeVar("Health")


def wait_until(changed: threading.Condition, holds: Callable[[], bool], timeout: float,
               poll_s: float) -> bool:
    """Wait, holding ``changed``, until ``holds()``; False if ``timeout`` passes first."""
    deadline = time.monotonic() + timeout
    with changed:
        while not holds():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            changed.wait(min(remaining, poll_s))
    return True


class WatchedFeed(Generic[Health]):
    """What the feeds (serial, polled page) share: ``start()`` and ``stop()`` as a context
    manager, and waiting on their condition ``_changed`` for a ``health()`` (notified with
    ``_notify()`` on every change)."""

    _changed: threading.Condition

    def start(self) -> None:
        raise NotImplementedError

    def stop(self, timeout: float = 5.0) -> None:
        raise NotImplementedError

    def health(self) -> Health:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def wait_for(self, condition: Callable[[Health], bool], timeout: float) -> bool:
        """Wait until ``condition(health())`` holds; False if ``timeout`` passes first."""
        return wait_until(self._changed, lambda: condition(self.health()), timeout, 0.1)

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()
