"""The phone's rate gate: how many reads (page data, socket joins) and decisions one phone
link may make a minute, so a looping or hostile phone cannot flood the centre
(``PHONE_DECISIONS_PER_MINUTE``, ``PHONE_READS_PER_MINUTE``)."""

from __future__ import annotations

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from alley_poker.store.phone_links import PhoneLink


class PhoneGate:
    """Per-link rate limits: reads (page data, socket joins) and decisions."""

    def __init__(self, *, decisions_per_minute: int, reads_per_minute: int):
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._decisions = RateLimitItemPerMinute(decisions_per_minute)
        self._reads = RateLimitItemPerMinute(reads_per_minute)

    def allows(self, link: PhoneLink, what: str) -> bool:
        limit = self._decisions if what == "decide" else self._reads
        return self._limiter.hit(limit, "phone", what, str(link.id))

