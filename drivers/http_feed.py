"""Reading a scorer's live-score page over HTTP: a poll feed for centres without a cable.

``HttpPollFeed`` fetches the page every ``poll_s`` seconds in its own thread with httpx
(timeouts on every request), retrying a failed fetch with exponential back-off and jitter
(tenacity), and asking conditionally (``If-None-Match`` with the page's ``ETag``, else
``If-Modified-Since``) so an unchanged page costs a ``304``.  Each new page is decoded by
its dialect (:mod:`drivers.dialects.live_board`), cut to the lanes this feed carries, and
diffed against the balls already passed on (:mod:`drivers.snapshot_diff`); the new balls and
corrections go to ``on_event`` — the same router the serial feeds use — in bowling order.

Health speaks the serial feed's language (``drivers.serial_feed.FeedHealth``), so the
tablet's feed board colours it the same way: ``ok`` (green); ``silent`` (amber: the page has
not changed for ``heartbeat_s``, the data stalled); ``degraded`` (amber: the last poll
failed or its page was refused, a lane is held because its totals do not re-score, a lane
vanished); ``down`` (red: no good answer for three times ``heartbeat_s``).  A page is
cumulative, so a failed poll loses nothing: the next good one brings every ball since.  A
page whose ``updated`` clock is older than one already taken is a stale copy (a cache after
a back-fill) and is ignored (counted in ``stale_pages``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import httpx
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from alley_poker import __version__
from drivers.base import LaneEvent
from drivers.dialects import UnknownDialect
from drivers.dialects.live_board import PAGE_DIALECTS, BoardRejected, LiveBoard
from drivers.serial_feed import DOWN_AFTER_HEARTBEATS, KEEP_RECENT, FeedHealth, RejectedLine
from drivers.snapshot_diff import SnapshotDiffer
from drivers.waiting import WatchedFeed

log = logging.getLogger(__name__)

class ServerTrouble(Exception):
    """A 5xx answer: the page's server is struggling; worth retrying."""

    def __init__(self, response: httpx.Response):
        super().__init__(f"the page answered {response.status_code} "
                         f"{response.reason_phrase}".rstrip())
        self.response = response


@dataclass(frozen=True)
class PollHealth(FeedHealth):
    """A poll feed's health: the serial feed's fields (``lines_ok`` counts pages taken,
    ``lines_rejected`` pages refused, ``reconnects`` failed polls) plus its own."""

    polls: int = 0
    not_modified: int = 0
    balls: int = 0
    corrections: int = 0
    refused_by_service: int = 0
    #: Pages ignored because their ``updated`` clock is older than a page already taken.
    stale_pages: int = 0
    #: Lanes whose new balls are held because the page's totals do not re-score (why).
    held_lanes: tuple[str, ...] = ()
    #: Problems reported instead of guessed at (lanes vanished, games restarted), newest last.
    problems: tuple[str, ...] = ()


class HttpPollFeed(WatchedFeed[PollHealth]):
    """One live-score page polled in its own thread: ``start()``, ``health()``, ``stop()``.

    ``on_event`` gets every lane event in order, in the feed's thread (as for
    ``SerialFeed``).  ``lanes``, when given, are the lanes this feed carries: other lanes on
    the page are left alone (a hall's page shows every lane; feeds may split them).
    ``attempts`` is how many tries one poll makes before it counts as failed.
    """

    def __init__(self, url: str, dialect: str, on_event: Callable[[LaneEvent], object], *,
                 source: str = "page", lanes: Collection[int] | None = None,
                 poll_s: float = 2.0, heartbeat_s: float = 10.0, timeout_s: float = 5.0,
                 attempts: int = 3, backoff_s: float = 0.2,
                 transport: httpx.BaseTransport | None = None):
        if dialect not in PAGE_DIALECTS:
            raise UnknownDialect(f"unknown page dialect {dialect!r} for an http feed "
                                 f"(known: {', '.join(sorted(PAGE_DIALECTS))})")
        if poll_s <= 0 or timeout_s <= 0 or attempts < 1:
            raise ValueError("poll_s and timeout_s must be positive, attempts at least 1")
        self.url = url
        self.source = source
        self.dialect = PAGE_DIALECTS[dialect](source=source)
        self.on_event = on_event
        self.lanes = frozenset(lanes) if lanes is not None else None
        self.poll_s, self.heartbeat_s, self.timeout_s = poll_s, heartbeat_s, timeout_s
        self.attempts, self.backoff_s = attempts, backoff_s
        self.differ = SnapshotDiffer(source=source)
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s), transport=transport, follow_redirects=True,
            headers={"Accept": "application/json",
                     "User-Agent": f"alley-poker/{__version__} (live-board poll feed)"})
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()
        self._etag: str | None = None
        self._modified: str | None = None
        self._last_body: bytes | None = None
        self._last_ok: float | None = None  # monotonic: the last good answer (200 or 304)
        self._last_change: float | None = None  # monotonic: the last page that changed
        self._last_change_at: float | None = None  # wall clock, for the tablet
        self._last_poll_failed = False
        self._updated: float | None = None  # the newest page's own clock (``updated``)
        self._stale_pages = 0
        self._stale_since: float | None = None  # monotonic: the first of a run of stale pages
        self._polls = self._pages = self._rejected = self._failed = self._not_modified = 0
        self._balls = self._corrections = self._refused = self._handler_errors = 0
        self._held: dict[int, str] = {}
        self._problems: deque[tuple[float, str]] = deque(maxlen=KEEP_RECENT)
        self._rejected_pages: deque[RejectedLine] = deque(maxlen=KEEP_RECENT)
        self._last_error: str | None = None

    # Control ------------------------------------------------------------------------------

    def start(self) -> None:
        """Poll in a daemon thread (returns at once)."""
        if self._thread is not None:
            raise RuntimeError(f"feed {self.source!r} is already started")
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"poll-{self.source}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop polling and wait for the thread (at most ``timeout``)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._client.close()
        self._notify()

    def health(self) -> PollHealth:
        """A consistent snapshot of the feed's counters and state."""
        with self._changed:
            now = time.monotonic()
            state = self._state(now)
            silent = None if state in ("down", "stopped") else \
                now - (self._last_change or self._started)
            return PollHealth(
                source=self.source, url=self.url, dialect=self.dialect.name,
                connected=not self._last_poll_failed and self._last_ok is not None,
                state=state, last_line_at=self._last_change_at, lines_ok=self._pages,
                lines_rejected=self._rejected, duplicates=self._not_modified,
                reconnects=self._failed, handler_errors=self._handler_errors, gaps=(),
                last_rejected=self._rejected_pages[-1] if self._rejected_pages else None,
                recent_rejected=tuple(self._rejected_pages), last_error=self._current_error(),
                heartbeat_s=self.heartbeat_s, seconds_silent=silent, polls=self._polls,
                not_modified=self._not_modified, balls=self._balls,
                corrections=self._corrections, refused_by_service=self._refused,
                stale_pages=self._stale_pages,
                held_lanes=tuple(self._held[lane] for lane in sorted(self._held)),
                problems=tuple(message for _, message in self._problems),
            )

    # State --------------------------------------------------------------------------------

    def _state(self, now: float) -> str:
        if self._stop.is_set():
            return "stopped"
        if now - (self._last_ok or self._started) > DOWN_AFTER_HEARTBEATS * self.heartbeat_s:
            return "down"
        recent_problem = bool(self._problems) and \
            now - self._problems[-1][0] <= self.heartbeat_s
        if self._last_poll_failed or self._held or self.differ.vanished or \
                self.differ.missing or recent_problem:
            return "degraded"
        if now - (self._last_change or self._started) > self.heartbeat_s:
            return "silent"
        return "ok"

    def _current_error(self) -> str | None:
        """What the tablet shows under the feed: the most pressing thing first."""
        if self._held:
            return "; ".join(self._held[lane] for lane in sorted(self._held))
        if self._last_poll_failed:
            return self._last_error
        if self.differ.vanished:
            return "lane(s) " + ", ".join(map(str, sorted(self.differ.vanished))) + \
                " vanished from the page; nothing is guessed until they are back"
        if self._problems:
            return self._problems[-1][1]
        return None

    # Polling ------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                self.poll_once()
            except Exception:  # a bug here must not stop the feed
                log.exception("feed %s: poll failed unexpectedly", self.source)
            self._stop.wait(max(0.0, self.poll_s - (time.monotonic() - began)))

    def poll_once(self) -> bool:
        """Fetch the page once (with retries) and pass on what changed; True when the page
        was answered (a new page, or 304 / the same page)."""
        try:
            response = self._fetch()
        except (httpx.HTTPError, ServerTrouble) as exc:
            self._poll_failed(_describe_failure(exc, self.timeout_s))
            return False
        if response.status_code == 304:
            self._answered(changed=False)
            return True
        if response.status_code != 200:
            self._poll_failed(f"the page answered {response.status_code} "
                              f"{response.reason_phrase}".rstrip())
            return False
        body = response.content
        if body == self._last_body:  # a server without conditional requests
            self._answered(changed=False)
            return True
        try:
            board = self.dialect.decode(body)
        except BoardRejected as exc:
            self._refuse_page(body, exc.reason)
            return False
        if self._stale(board):
            # A stale copy (a cache, a lagging mirror): its clock went backwards.  Taking it
            # would "re-bowl" balls the scorer has since corrected; the next page is newer.
            log.warning("feed %s: ignored a stale page (updated %s, before %s)", self.source,
                        board.updated, self._updated)
            with self._changed:
                self._stale_pages += 1
            self._answered(changed=False)
            return True
        self._stale_since = None
        if board.updated is not None:
            self._updated = board.updated
        self._etag = response.headers.get("ETag")
        self._modified = response.headers.get("Last-Modified")
        self._last_body = body
        self._take(self._own_lanes(board))
        self._answered(changed=True)
        return True

    def _stale(self, board: LiveBoard) -> bool:
        """True for a page older (by its ``updated`` clock) than one already taken; but a
        clock that stays behind for three heartbeats was reset (the scorer restarted), and
        its pages are taken again."""
        if board.updated is None or self._updated is None or board.updated >= self._updated:
            return False
        now = time.monotonic()
        if self._stale_since is None:
            self._stale_since = now
        if now - self._stale_since > DOWN_AFTER_HEARTBEATS * self.heartbeat_s:
            log.warning("feed %s: the page's clock stayed behind for %.0f s: taken as reset",
                        self.source, now - self._stale_since)
            return False
        return True

    def _fetch(self) -> httpx.Response:
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=wait_exponential_jitter(multiplier=self.backoff_s, max=max(self.poll_s, 1.0),
                                         jitter=self.backoff_s),
            retry=retry_if_exception_type((httpx.TransportError, ServerTrouble)),
            sleep=self._stop.wait,  # stopping the feed cuts a back-off short
            reraise=True,
        )
        return retrying(self._get)

    def _get(self) -> httpx.Response:
        with self._changed:
            self._polls += 1
        response = self._client.get(self.url, headers=self._conditional_headers())
        if response.status_code >= 500:
            raise ServerTrouble(response)
        return response

    def _conditional_headers(self) -> dict[str, str]:
        # If-None-Match alone when there is an ETag: a server that checks only the
        # one-second Last-Modified would call a page changed twice in a second unchanged.
        if self._etag:
            return {"If-None-Match": self._etag}
        if self._modified:
            return {"If-Modified-Since": self._modified}
        return {}

    def _own_lanes(self, board: LiveBoard) -> LiveBoard:
        if self.lanes is None:
            return board
        return replace(board, lanes={number: lane for number, lane in board.lanes.items()
                                     if number in self.lanes})

    def _take(self, board: LiveBoard) -> None:
        diff = self.differ.diff(board)
        for problem in diff.problems:
            log.warning("feed %s: %s", self.source, problem.message)
        for lane, why in diff.held.items():
            if self._held.get(lane) != why:
                log.warning("feed %s: %s", self.source, why)
        with self._changed:
            now = time.monotonic()
            self._problems.extend((now, problem.message) for problem in diff.problems)
            self._held = dict(diff.held)
        for event in diff.events:
            describe = getattr(event, "describe", None)
            raw = f"{self.source} page: {describe() if describe else event!r}"
            try:
                refused = self.on_event(replace(event, raw=raw)) is True
            except Exception:
                log.exception("feed %s: the event handler failed on %r", self.source, event)
                with self._changed:
                    self._handler_errors += 1
                continue
            with self._changed:
                kind = type(event).__name__
                self._balls += kind == "BallRecorded"
                self._corrections += kind == "BallCorrected"
                self._refused += refused

    def _answered(self, *, changed: bool) -> None:
        with self._changed:
            now = time.monotonic()
            self._last_ok = now
            self._last_poll_failed = False
            if changed:
                self._pages += 1
                self._last_change, self._last_change_at = now, time.time()
            else:
                self._not_modified += 1
            self._changed.notify_all()

    def _poll_failed(self, why: str) -> None:
        log.warning("feed %s: poll of %s failed: %s", self.source, self.url, why)
        with self._changed:
            self._failed += 1
            self._last_poll_failed = True
            self._last_error = f"poll of {self.url} failed: {why}"
            self._changed.notify_all()

    def _refuse_page(self, body: bytes, reason: str) -> None:
        log.warning("feed %s: refused the page (%s)", self.source, reason)
        with self._changed:
            self._rejected += 1
            self._last_poll_failed = True
            self._last_error = f"refused the page from {self.url}: {reason}"
            self._rejected_pages.append(RejectedLine(body[:200], reason, time.time()))
            self._changed.notify_all()


def _describe_failure(exc: BaseException, timeout_s: float) -> str:
    """A failed poll in the desk's words."""
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout_s:g} s ({type(exc).__name__})"
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect: {exc}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the page was cut off or garbled in transit: {exc}"
    return str(exc) or type(exc).__name__

