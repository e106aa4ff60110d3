"""Waiting on a feed's condition variable for something to become true, with a deadline.

The feeds and the test writer notify their condition on every change they make, but some of
what callers wait for also changes with time alone (a feed goes stale with no line at all),
so the wait wakes every ``poll_s`` to look again rather than trusting notifications only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


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
