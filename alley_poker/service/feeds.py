"""The centre's scoreboard feeds, started from ``alley.toml`` and watched.

One :class:`drivers.serial_feed.SerialFeed` thread per configured serial feed, one
:class:`drivers.http_feed.HttpPollFeed` per live-score page; every lane event goes
straight to the service's router in the feed's own thread.  Commands for one match are
serialized by the router's per-match lock, so feeds for different matches deal in parallel
while a slow write on one match never reorders another's balls.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from alley_poker.config import ConfigError, FeedConfig
from drivers.base import LaneEvent
from drivers.dialects import UnknownDialect, available_dialects, make_dialect
from drivers.dialects.live_board import PAGE_DIALECTS
from drivers.serial_feed import SerialFeed

if TYPE_CHECKING:
    from drivers.http_feed import HttpPollFeed

log = logging.getLogger(__name__)


class FeedSupervisor:
    """Starts, reports on and stops every configured feed."""

    def __init__(self, feeds: Sequence[FeedConfig], on_event: Callable[[LaneEvent], object]):
        self.feeds: dict[str, SerialFeed | HttpPollFeed] = {}
        #: The lanes each feed carries, by feed name (for the tablet's feed health).
        self.lanes: dict[str, list[int]] = {feed.name: list(feed.lanes) for feed in feeds}
        for index, feed in enumerate(feeds):
            if feed.polls_a_page:
                if feed.dialect not in PAGE_DIALECTS:
                    raise ConfigError(
                        f"feeds[{index}].dialect: {feed.dialect!r} is not a page dialect; a "
                        f"feed with an http(s) URL reads {', '.join(sorted(PAGE_DIALECTS))}")
                # Only a centre that polls a page pays for the HTTP client (httpx and what
                # it imports: ≈ 4 MB of a served process's memory).
                from drivers.http_feed import HttpPollFeed

                self.feeds[feed.name] = HttpPollFeed(
                    feed.url, feed.dialect, on_event, source=feed.name, lanes=feed.lanes,
                    poll_s=feed.poll_s, heartbeat_s=feed.heartbeat_s, timeout_s=feed.timeout_s)
                continue
            if feed.dialect in PAGE_DIALECTS:
                raise ConfigError(f"feeds[{index}].dialect: {feed.dialect!r} reads a web page; "
                                  "give the feed the page's http(s):// URL")
            try:
                dialect = make_dialect(feed.dialect, source=feed.name)
            except UnknownDialect:
                raise ConfigError(
                    f"feeds[{index}].dialect: unknown dialect {feed.dialect!r} "
                    f"(available: {', '.join(available_dialects())})"
                ) from None
            self.feeds[feed.name] = SerialFeed(
                feed.url, dialect, on_event, source=feed.name, baudrate=feed.baudrate,
                heartbeat_s=feed.heartbeat_s, lanes=feed.lanes,
            )

    def start(self) -> None:
        for feed in self.feeds.values():
            log.info("feed %s: reading %s (%s)", feed.source, feed.url, feed.dialect.name)
            feed.start()

    def stop(self) -> None:
        for feed in self.feeds.values():
            feed.stop()

    def heartbeats(self) -> list[float]:
        """Every feed's heartbeat interval, seconds."""
        return [feed.heartbeat_s for feed in self.feeds.values()]

    def health(self) -> list[dict[str, Any]]:
        """Per feed: state (ok / silent / down / stopped), last line, seconds silent, lines ok
        and rejected, reconnects, last error, and the ``lanes`` it carries."""
        return [{**asdict(feed.health()), "lanes": list(self.lanes.get(name, []))}
                for name, feed in self.feeds.items()]
