"""A centre-wide ceiling on PINs tried by devices the centre does not know, and the count of
failed sign-ins that ``/metrics`` shows.

The per-device staircase and the per-address cap (:mod:`alley_poker.web.sign_in_limits`)
hold one device and one address; twenty addresses on the guest Wi-Fi made 600 guesses in
54 s with nothing over them (issue 38).  So every PIN tried by a device that has not signed in
here before counts against a staircase for the whole centre (``[sign_in] centre_wide``, by
default 50 per 10 minutes, 100 an hour, 200 a day): the more guesses, the longer the wait (up
to a day), and at most 200 a day are ever checked, whatever the number of addresses.  A known
device (a tablet that signed in with the right PIN before) is not held by it: the desk keeps
signing in during an attack, under its own per-device staircase only.

The ceiling is taken *before* the PIN is checked (an atomic count in the limiter's storage,
memory or Redis), so parallel guesses cannot slip past it; a right PIN from a new device
therefore costs one place too (once per tablet: afterwards it is known).  A guess refused by
the ceiling costs nothing, so a flood of refused guesses does not push the wait further out.

>>> failures = SignInFailures()
>>> failures.count("pin"); failures.count("centre"); failures.count("centre")
>>> failures.counts()
{'pin': 1, 'device': 0, 'address': 0, 'centre': 2}
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask
from flask_limiter import Limiter
from limits import RateLimitItem, parse_many

#: Why a sign-in failed, the label of ``alley_sign_in_failures_total``: ``pin`` the PIN was
#: checked and wrong; ``device``, ``address``, ``centre`` the limit that refused it unheard.
REFUSED_BY = ("pin", "device", "address", "centre")
CENTRE_KEY = "centre-cap"


class SignInFailures:
    """How many sign-ins failed, by what refused them (counts only: no address, no device)."""

    def __init__(self) -> None:
        self._counts = dict.fromkeys(REFUSED_BY, 0)
        self._lock = threading.Lock()

    def count(self, refused_by: str) -> None:
        with self._lock:
            self._counts[refused_by] += 1

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


class CentreCeiling:
    """The centre-wide staircase, counted in the storage of the app's sign-in ``limiter``."""

    def __init__(self, limiter: Limiter, limits: Callable[[], str], centre: Callable[[], str]):
        self.limiter = limiter
        self.limits = limits
        self.centre = centre

    def _items(self) -> list[RateLimitItem]:
        return parse_many(self.limits())

    def take(self) -> float | None:
        """Count one PIN about to be checked: None when it may be, else when (epoch seconds)
        a new device may try again (the end of the longest window it is over)."""
        strategy, centre = self.limiter.limiter, self.centre()
        items = self._items()
        # Refused guesses are not counted (test first), so the wait does not grow with them;
        # the hits are atomic, so parallel guesses cannot all pass one test and slip past.
        over = [item for item in items if not strategy.test(item, CENTRE_KEY, centre)]
        if not over:
            over = [item for item in items if not strategy.hit(item, CENTRE_KEY, centre)]
        if not over:
            return None
        return max(strategy.get_window_stats(item, CENTRE_KEY, centre).reset_time
                   for item in over)

    def guard(self, view: Callable[..., Any], exempt: Callable[[], bool],
              refused: Callable[[float], Any]) -> Callable[..., Any]:
        """``view`` behind the ceiling: ``refused(reset_at)`` answers when it is reached;
        ``exempt()`` (a known device) passes without counting."""

        @functools.wraps(view)
        def behind_the_ceiling(*args: Any, **kwargs: Any) -> Any:
            if exempt():
                return view(*args, **kwargs)
            reset_at = self.take()
            if reset_at is not None:
                return refused(max(reset_at, time.time() + 1))
            return view(*args, **kwargs)

        return behind_the_ceiling


def sign_in_failures(app: Flask) -> SignInFailures:
    """The app's count of failed sign-ins (made on first use)."""
    return app.extensions.setdefault("sign_in_failures", SignInFailures())
