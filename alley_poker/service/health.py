"""Feed health as the screens see it: the latest report of every scoreboard feed.

The process that runs the feeds (``serve``, or the centre's ``worker``) checks them every few
seconds (:class:`FeedHealthCheck`, a job of the centre scheduler) and publishes a
``{"kind": "feed_health", "feeds": [...]}`` message on the ``alley`` topic; every process that
serves screens keeps the latest report in a :class:`FeedStatusBoard`, whatever bus carried it.

A feed is **green** while lines (or heartbeats) arrive within its ``heartbeat_s``, **amber**
when silent past it, **red** when silent past three heartbeats or its port is down or cannot
be opened.  A poll feed (``drivers.http_feed``) is also amber while its polls fail, a
lane's totals do not re-score or a lane vanished from the page, and red when the page has been
unreachable for three heartbeats.  The colours come from the feed's own state
(``drivers.serial_feed``, ``drivers.http_feed``), so the tablet and the driver never disagree.

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
import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from alley_poker.service.bus import EventBus

log = logging.getLogger(__name__)

TOPIC = "alley"
KIND = "feed_health"

#: The feed's own state (``drivers.serial_feed.FeedHealth.state``) as the tablet colours it;
#: ``degraded`` is a poll feed's (``drivers.http_feed``): its last poll failed, or a lane is
#: held or missing from the page.
COLOUR_OF_STATE = {"ok": "green", "silent": "amber", "degraded": "amber",
                   "refusing": "amber", "down": "red", "stopped": "red"}


class FeedStatusBoard:
    """Keeps the last ``feed_health`` report seen on the bus.

    A report older than ``stale_after_s`` means nobody is checking the feeds any more (the
    worker died, or Redis is cut): the board then shows every feed red with
    ``"stale": true`` rather than the last green a dead worker left behind.

    >>> from alley_poker.service.bus import InProcessBus
    >>> clock = [100.0]
    >>> bus = InProcessBus()
    >>> board = FeedStatusBoard(bus, stale_after_s=15, clock=lambda: clock[0])
    >>> bus.publish("alley", {"kind": "feed_health",
    ...                       "feeds": [{"source": "north", "state": "green"}]})
    >>> clock[0] += 20
    >>> board.current()
    [{'source': 'north', 'state': 'red', 'stale': True, 'report_age_s': 20.0}]
    """

    def __init__(self, bus: EventBus, *, stale_after_s: float = 15.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._feeds: list[dict[str, Any]] = []
        self._received_at: float | None = None
        self._stale_after_s = stale_after_s
        self._clock = clock
        self._lock = threading.Lock()
        self.unsubscribe = bus.subscribe(self._on_message)

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        if topic == TOPIC and message.get("kind") == KIND:
            with self._lock:
                self._feeds = copy.deepcopy(list(message.get("feeds", [])))
                self._received_at = self._clock()

    def current(self) -> list[dict[str, Any]]:
        """Every feed's latest health report (a copy), in the order the worker reports them."""
        with self._lock:
            feeds = copy.deepcopy(self._feeds)
            received_at = self._received_at
        if received_at is None:
            return feeds
        age = self._clock() - received_at
        if age > self._stale_after_s:
            for feed in feeds:
                feed.update(state="red", stale=True, report_age_s=round(age, 1))
        return feeds


class Feeds(Protocol):
    """What the check needs of :class:`~alley_poker.service.feeds.FeedSupervisor`."""

    def health(self) -> list[dict[str, Any]]: ...


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (device servers can take credentials).

    >>> redact_url("rfc2217://scorer:s3cret@10.0.0.7:4001")
    'rfc2217://scorer:***@10.0.0.7:4001'
    >>> redact_url("/dev/ttyUSB0"), redact_url("socket://127.0.0.1:7001")
    ('/dev/ttyUSB0', 'socket://127.0.0.1:7001')
    """
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not URL-shaped (a bad port number, say): nothing to find in it
        return url
    if not password:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _iso_utc(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def feed_report(health: Mapping[str, Any]) -> dict[str, Any]:
    """One feed's entry in the ``feed_health`` message: JSON-safe, no secrets.

    ``health`` is one item of ``FeedSupervisor.health()`` (a ``FeedHealth`` as a dict, plus
    the feed's ``lanes``).

    >>> entry = feed_report({"source": "north", "url": "rfc2217://u:pw@scorer:4001",
    ...     "lanes": [1, 2], "dialect": "apf1", "state": "silent", "connected": True,
    ...     "last_line_at": 0.0, "seconds_silent": 12.345, "heartbeat_s": 10.0,
    ...     "lines_ok": 9, "lines_rejected": 1, "reconnects": 0, "last_rejected": None,
    ...     "last_error": "cannot open rfc2217://u:pw@scorer:4001: refused"})
    >>> entry["state"], entry["url"], entry["last_line_at"], entry["seconds_silent"]
    ('amber', 'rfc2217://u:***@scorer:4001', '1970-01-01T00:00:00+00:00', 12.3)
    >>> entry["last_error"]
    'cannot open rfc2217://u:***@scorer:4001: refused'
    """
    url = str(health["url"])
    shown_url = redact_url(url)
    last_error = health.get("last_error")
    if last_error:
        last_error = str(last_error).replace(url, shown_url)
    rejected = health.get("last_rejected")
    silent = health.get("seconds_silent")
    return {
        "source": health["source"],
        "url": shown_url,
        "lanes": list(health.get("lanes", [])),
        "dialect": health["dialect"],
        "state": COLOUR_OF_STATE.get(health["state"], "red"),
        "connected": bool(health.get("connected")),
        "heartbeat_s": health.get("heartbeat_s"),
        "last_line_at": _iso_utc(health.get("last_line_at")),
        "seconds_silent": None if silent is None else round(float(silent), 1),
        "lines": health["lines_ok"],
        "rejected": health["lines_rejected"],
        "reconnects": health["reconnects"],
        # Exact re-sends of a line already taken (harmless), and numbered lines missed.
        "duplicates": health.get("duplicates", 0),
        "gaps": health.get("gaps_total", len(health.get("gaps") or ())),
        "recent_gaps": [list(gap) for gap in health.get("gaps") or ()],
        # A poll feed's pages ignored as stale copies (an older ``updated`` clock).
        **({"stale_pages": health["stale_pages"]} if "stale_pages" in health else {}),
        # A number reused by a line with other content: refused, never silently dropped.
        "conflicts": health.get("conflicts", 0),
        "last_conflict": None if not health.get("last_conflict") else {
            "line": bytes(health["last_conflict"]["raw"]).decode("utf-8", "replace"),
            "reason": health["last_conflict"]["reason"],
            "at": _iso_utc(health["last_conflict"]["at"]),
        },
        "last_rejected": None if not rejected else {
            "line": bytes(rejected["raw"]).decode("utf-8", "replace"),
            "reason": rejected["reason"],
            "at": _iso_utc(rejected["at"]),
        },
        "last_error": last_error,
        # Connected and talking, but every line lately refused: what the desk must fix.
        "refusing": health.get("refusing"),
    }


#: A colour in the log's words: what the desk would see, and what it means.
COLOUR_IN_WORDS = {
    "green": "working (green: its lines arrive)",
    "amber": "in trouble (amber: silent past its heartbeat, or its lines refused)",
    "red": "down (red: silent for three heartbeats, or it cannot be reached)",
}


def change_in_words(feed: Mapping[str, Any], *, new_error: bool = False) -> str:
    """The log's line for a feed whose colour or error changed, in plain words.

    >>> feed = {"source": "north", "url": "socket://10.0.0.7:4001", "state": "red",
    ...         "last_error": "cannot open socket://10.0.0.7:4001: refused"}
    >>> change_in_words(feed, new_error=True)
    'feed north (socket://10.0.0.7:4001) is down (red: silent for three heartbeats, or it \
cannot be reached): cannot open socket://10.0.0.7:4001: refused'
    >>> change_in_words(feed | {"state": "green"}, new_error=True)
    'feed north (socket://10.0.0.7:4001) is working (green: its lines arrive); it had failed \
before: cannot open socket://10.0.0.7:4001: refused'
    >>> change_in_words(feed | {"state": "green"})
    'feed north (socket://10.0.0.7:4001) is working (green: its lines arrive)'
    """
    state = feed.get("state")
    line = (f"feed {feed['source']} ({feed.get('url')}) is "
            f"{COLOUR_IN_WORDS.get(str(state), state)}")
    if not new_error:
        return line
    # An error a feed recovered from before this check saw it: said as past, not as its state.
    joint = "; it had failed before: " if state == "green" else ": "
    return f"{line}{joint}{feed['last_error']}"


def check_interval_s(heartbeats: list[float]) -> float:
    """How often to check: twice per shortest heartbeat, so amber shows within half a
    heartbeat of the silence starting, but not more than every 5 s nor less than 0.25 s.

    >>> check_interval_s([10.0, 30.0]), check_interval_s([0.2]), check_interval_s([])
    (5.0, 0.25, 5.0)
    """
    if not heartbeats:
        return 5.0
    return min(5.0, max(0.25, min(heartbeats) / 2))


class FeedHealthCheck:
    """The publisher side: reads every feed's health and announces it on the ``alley`` topic.

    ``announce`` is ``AlleyService.announce`` (topic, message).  :meth:`check` is the
    scheduler's job; it never raises (a failing check is logged and the next one tries again).
    """

    def __init__(self, feeds: Feeds,
                 announce: Callable[[str, dict[str, Any]], None]) -> None:
        self.feeds = feeds
        self.announce = announce
        # What each feed looked like at the last check: the log says when it changes, not
        # every few seconds (the job itself runs quietly).
        self._last_seen: dict[str, tuple[Any, Any]] = {}

    def _log_changes(self, message: dict[str, Any]) -> None:
        for feed in message["feeds"]:
            now = (feed.get("state"), feed.get("last_error"))
            before = self._last_seen.get(feed["source"])
            if now != before:
                self._last_seen[feed["source"]] = now
                new_error = bool(feed.get("last_error")) and now[1] != (before or (None, None))[1]
                log.log(logging.WARNING if new_error else logging.INFO, "%s",
                        change_in_words(feed, new_error=new_error))

    def report(self) -> dict[str, Any]:
        return {"kind": KIND, "feeds": [feed_report(health) for health in self.feeds.health()]}

    def check(self) -> dict[str, Any] | None:
        """One check: build the report and publish it; returns it (``None`` if it failed)."""
        try:
            message = self.report()
            self._log_changes(message)
            self.announce(TOPIC, message)
        except Exception:
            log.exception("feed health check failed")
            return None
        return message
