"""Reading a scorer's line feed from any pyserial URL, in a thread that survives unplugging.

``SerialFeed`` opens the URL with ``serial.serial_for_url`` — so ``/dev/ttyUSB0``,
``socket://host:port`` (a serial device server), ``rfc2217://`` and ``loop://`` all work —
cuts the byte stream into lines, hands each to its dialect and passes the lane events on.
One thread takes the bytes off the port as they come; another hands the lines on, so lines
already read while the service is busy are kept in the process, and a pulled cable (whose
port buffer goes with it) takes none of them: they are handled after the drop, in order.
When the port vanishes (USB unplugged, cable pulled, device server rebooted) it closes it,
waits on a bounded exponential schedule and opens it again; the dialect keeps its state, so
lines a scorer re-sends after the reconnect are recognised and dropped.  Bad lines are
counted, logged with their raw bytes and kept for the commissioner's feed screen.

>>> events = []
>>> feed = SerialFeed("loop://", "apf1", events.append, source="demo")
>>> feed.start()
>>> feed.wait_connected(2)
True
>>> feed.write_for_test(b"$APF1,1,HB*5D\\r\\nnot a line\\r\\n")
>>> feed.wait_for(lambda health: health.lines_ok + health.lines_rejected == 2, 2)
True
>>> feed.stop()
>>> health = feed.health()
>>> type(events[0]).__name__, health.lines_ok, health.lines_rejected, health.last_rejected.reason
('Heartbeat', 1, 1, "a line must start with '$'")
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import serial

from drivers.base import (
    Dialect,
    DuplicateLine,
    FeedLineRejected,
    LaneEvent,
    SequenceGap,
    TakesLinesBack,
)
from drivers.dialects import make_dialect
from drivers.line_framer import MAX_LINE_BYTES, CutOff, LineFramer, LineOverflow
from drivers.sequence import SequenceConflict
from drivers.waiting import WatchedFeed

log = logging.getLogger(__name__)

#: How many rejected lines and gaps the health report keeps for the feed screen.
KEEP_RECENT = 20
#: A connected feed silent this many heartbeats is reported down (red), not just silent.
DOWN_AFTER_HEARTBEATS = 3
#: Lines refused in a row (none about a lane taken since) that make a talking feed amber.
REFUSING_AFTER_LINES = 5


class BackoffSchedule:
    """Delays between reconnect attempts: doubling from ``initial`` up to ``maximum``, jittered.

    >>> schedule = BackoffSchedule(initial=0.5, maximum=4.0, jitter=0.0)
    >>> [schedule.next_delay() for _ in range(6)]
    [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    >>> schedule.reset(); schedule.next_delay()
    0.5
    """

    def __init__(self, initial: float = 0.2, maximum: float = 10.0, *, factor: float = 2.0,
                 jitter: float = 0.1, rng: random.Random | None = None):
        if not 0 < initial <= maximum:
            raise ValueError("backoff: need 0 < initial <= maximum")
        self.initial, self.maximum, self.factor, self.jitter = initial, maximum, factor, jitter
        self._rng = rng or random.Random()
        self._attempt = 0

    def next_delay(self) -> float:
        """The delay before the next attempt (grows with every call until :meth:`reset`)."""
        delay = min(self.maximum, self.initial * self.factor ** self._attempt)
        self._attempt += 1
        # Jitter keeps many feeds from hammering one device server in lock-step.
        return delay * (1 + self.jitter * (self._rng.random() * 2 - 1))

    def reset(self) -> None:
        """Start again from ``initial`` (after a successful connection)."""
        self._attempt = 0


@dataclass(frozen=True)
class RejectedLine:
    """A line the feed refused, as the commissioner sees it."""

    raw: bytes
    reason: str
    at: float  # wall-clock time.time()


@dataclass(frozen=True)
class FeedHealth:
    """How a feed is doing right now; what the commissioner's feed status shows."""

    source: str
    url: str
    dialect: str
    connected: bool
    #: ``ok``; ``silent`` (amber: nothing for ``heartbeat_s``); ``refusing`` (amber: talking,
    #: but every line lately refused); ``down`` (red: disconnected, or nothing for
    #: ``DOWN_AFTER_HEARTBEATS`` times ``heartbeat_s``); ``stopped``.
    state: str
    last_line_at: float | None
    lines_ok: int
    lines_rejected: int
    duplicates: int
    reconnects: int
    handler_errors: int
    gaps: tuple[tuple[int, int], ...]
    last_rejected: RejectedLine | None
    recent_rejected: tuple[RejectedLine, ...]
    last_error: str | None
    heartbeat_s: float = 10.0
    #: Seconds since the last line (or since connecting, if none came yet); None when down.
    seconds_silent: float | None = None
    #: Lines that reused a number already taken by a line with other content (refused, and
    #: counted in ``lines_rejected`` too), and the last of them.
    conflicts: int = 0
    #: Every gap seen since the feed started (``gaps`` keeps only the latest few).
    gaps_total: int = 0
    last_conflict: RejectedLine | None = None
    #: Why the feed is ``refusing``: how many lines in a row and the last one's reason.
    refusing: str | None = None
    #: Complete lines taken off the port since the feed started (handled or still waiting).
    lines_read: int = 0


def _what_to_check(url: str) -> str:
    """For a local serial device that would not open: what the operator should look at."""
    if "://" in url:
        return ""
    return (f" (check: is the scorer's cable plugged in and is {url} the right path - "
            "ls /dev/tty*; may this user open it - ls -l " + url + ", and the user must be "
            "in the dialout group: sudo usermod -aG dialout $USER, then log in again)")


def _open_keeping_input(url: str, **settings: object) -> serial.SerialBase:
    """``serial_for_url(url)`` opened *without* the input flush pyserial does on open.

    pyserial starts every port clean by discarding whatever is already waiting.  For a feed
    that is a lost ball: a device server that sends the moment the TCP connection is up, or
    a pty holding lines written while the reader was reconnecting, would lose them.  So the
    flush is switched off for this one open (both names: socket:// calls the public one,
    posix ports the private one).
    """
    port = serial.serial_for_url(url, do_not_open=True, **settings)
    port.reset_input_buffer = _keep_input  # type: ignore[method-assign]
    port._reset_input_buffer = _keep_input  # type: ignore[attr-defined]
    try:
        port.open()
    finally:
        del port.reset_input_buffer
        del port._reset_input_buffer
    return port


def _keep_input() -> None:
    """Stands in for pyserial's input flush while a feed port opens."""


class SerialFeed(WatchedFeed[FeedHealth]):
    """One scorer feed in its own thread: ``start()``, ``health()``, ``stop()``.

    ``on_event`` is called in the feed's thread for every lane event, in order; it should
    hand the event on quickly (a queue).  If it raises, the error is logged and counted and
    reading goes on.  If it returns True the service refused the event for its content (a
    ball it cannot place): the line counts as rejected and, as for a line the dialect
    refuses, as never received (its sequence number is free again).  ``lanes``, when given,
    are the lanes this feed carries: a line about another lane is rejected the same way.
    ``dialect`` is a dialect instance or a registered name.
    """

    def __init__(
        self,
        url: str,
        dialect: Dialect | str,
        on_event: Callable[[LaneEvent], object],
        *,
        source: str = "feed",
        lanes: Collection[int] | None = None,
        baudrate: int = 9600,
        heartbeat_s: float = 10.0,
        read_timeout: float = 0.2,
        backoff: BackoffSchedule | None = None,
    ):
        self.url = url
        self.source = source
        self.dialect = make_dialect(dialect, source=source) if isinstance(dialect, str) \
            else dialect
        self.on_event = on_event
        self.lanes = frozenset(lanes) if lanes is not None else None
        self.baudrate = baudrate
        self.heartbeat_s = heartbeat_s
        self.read_timeout = read_timeout
        self.backoff = backoff or BackoffSchedule()
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._port: serial.SerialBase | None = None
        self._connected = False
        self._ever_connected = False
        self._last_line_at: float | None = None
        self._last_line_monotonic: float | None = None
        self._connected_monotonic = 0.0
        self._lines_ok = self._lines_rejected = self._duplicates = self._conflicts = 0
        self._last_conflict: RejectedLine | None = None
        self._reconnects = self._handler_errors = 0
        self._gaps: deque[tuple[int, int]] = deque(maxlen=KEEP_RECENT)
        self._gaps_total = 0
        self._rejected: deque[RejectedLine] = deque(maxlen=KEEP_RECENT)
        self._last_error: str | None = None
        self._refused_in_a_row = 0  # lines refused since one about a lane was taken
        # Lines taken off the port and not yet handed on, with the reader's thread and the
        # one that hands them on (which ends once the reader has and every line is handled).
        self._taken: deque[bytes] = deque()
        self._lines_read = 0
        self._reading_done = False
        self._handler: threading.Thread | None = None

    # Control ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start reading in a daemon thread (returns at once; never blocks on the port)."""
        if self._thread is not None:
            raise RuntimeError(f"feed {self.source!r} is already started")
        self._thread = threading.Thread(target=self._run, name=f"feed-{self.source}",
                                        daemon=True)
        self._handler = threading.Thread(target=self._hand_on, name=f"feed-{self.source}-lines",
                                         daemon=True)
        self._handler.start()
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading, close the port, hand on the lines already read and wait for both
        threads (at most ``timeout`` in all)."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        if self._thread is not None:
            self._thread.join(timeout)
        if self._handler is not None:
            self._handler.join(max(0.0, deadline - time.monotonic()))
        self._notify()

    def health(self) -> FeedHealth:
        """A consistent snapshot of the feed's counters and state."""
        with self._changed:
            return FeedHealth(
                source=self.source, url=self.url, dialect=self.dialect.name,
                connected=self._connected, state=self._state(),
                last_line_at=self._last_line_at, lines_ok=self._lines_ok,
                lines_rejected=self._lines_rejected, duplicates=self._duplicates,
                reconnects=self._reconnects, handler_errors=self._handler_errors,
                gaps=tuple(self._gaps), gaps_total=self._gaps_total,
                last_rejected=self._rejected[-1] if self._rejected else None,
                recent_rejected=tuple(self._rejected), last_error=self._last_error,
                conflicts=self._conflicts, last_conflict=self._last_conflict,
                lines_read=self._lines_read,
                heartbeat_s=self.heartbeat_s, seconds_silent=self._seconds_silent(),
                refusing=self._refusing(),
            )

    def wait_connected(self, timeout: float) -> bool:
        """Wait until the port is open."""
        return self.wait_for(lambda health: health.connected, timeout)

    def write_for_test(self, data: bytes) -> None:
        """Write into the open port (for ``loop://`` examples and tests)."""
        port = self._port
        if port is None:
            raise RuntimeError("the feed is not connected")
        port.write(data)

    # The thread ---------------------------------------------------------------------------

    def _seconds_silent(self) -> float | None:
        if self._stop.is_set() or not self._connected:
            return None
        # Quiet since the last line, or since connecting if nothing came yet.
        return time.monotonic() - max(self._last_line_monotonic or 0.0,
                                      self._connected_monotonic)

    def _state(self) -> str:
        if self._stop.is_set():
            return "stopped"
        silent_for = self._seconds_silent()
        if silent_for is None or silent_for > DOWN_AFTER_HEARTBEATS * self.heartbeat_s:
            return "down"
        return "silent" if silent_for > self.heartbeat_s else \
            "refusing" if self._refusing() else "ok"

    def _refusing(self) -> str | None:
        many, last = self._refused_in_a_row, self._rejected[-1] if self._rejected else None
        return None if many < REFUSING_AFTER_LINES or last is None else \
            f"the last {many} lines were all refused (the last: {last.reason})"

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                port = self._open()
                if port is not None:
                    try:
                        self._read_until_lost(port)
                    finally:
                        self._close(port)
                if not self._stop.is_set():
                    self._stop.wait(self.backoff.next_delay())
        finally:
            with self._changed:
                self._reading_done = True
                self._changed.notify_all()

    def _take(self, lines: list[bytes]) -> None:
        """Keep lines taken off the port for the handing-on thread, in order."""
        with self._changed:
            self._taken.extend(lines)
            self._lines_read += sum(type(line) is bytes for line in lines)
            self._changed.notify_all()

    def _hand_on(self) -> None:
        """Hand every line read on, in order, until the reader stopped and none is left."""
        while True:
            with self._changed:
                while not self._taken and not self._reading_done:
                    self._changed.wait(0.5)
                if not self._taken:
                    return
                line = self._taken.popleft()
            self._handle(line)

    def _open(self) -> serial.SerialBase | None:
        try:
            port = _open_keeping_input(self.url, baudrate=self.baudrate,
                                       timeout=self.read_timeout)
        except (serial.SerialException, OSError, ValueError) as exc:
            with self._changed:
                self._last_error = f"cannot open {self.url}: {exc}{_what_to_check(self.url)}"
            log.debug("feed %s: %s", self.source, self._last_error)
            return None
        with self._changed:
            if self._ever_connected:
                self._reconnects += 1
            self._ever_connected = True
            self._connected = True
            self._connected_monotonic = time.monotonic()
            self._port = port
            self._changed.notify_all()
        self.backoff.reset()
        log.info("feed %s: connected to %s", self.source, self.url)
        return port

    def _close(self, port: serial.SerialBase) -> None:
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()
        with self._changed:
            self._connected = False
            self._port = None
            self._changed.notify_all()

    def _read_until_lost(self, port: serial.SerialBase) -> None:
        framer = LineFramer()
        try:
            while not self._stop.is_set():
                data = port.read(port.in_waiting or 1)
                lines = list(framer.feed(data))
                if lines:
                    self._take(lines)
        except (serial.SerialException, OSError) as exc:
            with self._changed:
                self._last_error = f"connection lost: {exc}"
            log.warning("feed %s: connection to %s lost: %s", self.source, self.url, exc)
        partial = framer.take_partial()
        if partial:
            self._take([CutOff(partial)])

    def _handle(self, line: bytes) -> None:
        if isinstance(line, CutOff):
            self._reject(bytes(line), "line cut off by the disconnect")
            return
        if isinstance(line, LineOverflow):
            self._reject(bytes(line), f"line longer than {MAX_LINE_BYTES} bytes (garbage?)")
            return
        try:
            events = self.dialect.parse(line)
        except DuplicateLine:
            with self._changed:
                self._duplicates += 1
                self._seen_line()
            return
        except SequenceConflict as exc:
            self._reject(line, exc.reason, conflict=True)
            return
        except FeedLineRejected as exc:
            self._reject(line, exc.reason)
            return
        except Exception as exc:  # a dialect bug must not stop the feed
            log.exception("feed %s: dialect %s failed on %r", self.source, self.dialect.name,
                          line)
            self._reject(line, f"dialect error: {exc!r}")
            return
        stray = self._stray_lane(events)
        if stray is not None:
            self._take_back(events)
            self._reject(line, f"lane {stray} is not a lane of this feed (it carries lanes "
                               f"{', '.join(map(str, sorted(self.lanes or ())))})")
            return
        text = line.decode("utf-8", "replace")
        refused = False
        for event in events:
            try:
                refused = self.on_event(replace(event, raw=text)) is True or refused
            except Exception:
                log.exception("feed %s: the event handler failed on %r", self.source, event)
                with self._changed:
                    self._handler_errors += 1
        if refused:
            self._take_back(events)
            self._reject(line, "refused by the service: a ball it cannot place (see the "
                               "held balls on the tablet)")
            return
        with self._changed:
            self._lines_ok += 1
            if any(hasattr(event, "lane") for event in events):  # not a heartbeat, a gap
                self._refused_in_a_row = 0
            self._seen_line()
            gaps = [(event.first_missing, event.last_missing)
                    for event in events if isinstance(event, SequenceGap)]
            self._gaps.extend(gaps)
            self._gaps_total += len(gaps)
        self._notify()

    def _stray_lane(self, events: list[LaneEvent]) -> int | None:
        """The first lane named by ``events`` that this feed does not carry (None: all are)."""
        if self.lanes is None:
            return None
        for event in events:
            lane = getattr(event, "lane", None)  # heartbeats and gaps name no lane
            if lane is not None and lane not in self.lanes:
                return lane
        return None

    def _take_back(self, events: list[LaneEvent]) -> None:
        """The line is refused after the dialect took it: it counts as never received."""
        if isinstance(self.dialect, TakesLinesBack):
            self.dialect.refused(events)

    def _seen_line(self) -> None:
        self._last_line_at, self._last_error = time.time(), None  # reading: old errors are over
        self._last_line_monotonic = time.monotonic()
        self._changed.notify_all()

    def _reject(self, raw: bytes, reason: str, *, conflict: bool = False) -> None:
        log.warning("feed %s: rejected line (%s): %r", self.source, reason, raw[:200])
        rejected = RejectedLine(raw, reason, time.time())
        with self._changed:
            self._lines_rejected += 1
            self._refused_in_a_row += 1
            if conflict:
                self._conflicts += 1
                self._last_conflict = rejected
            self._seen_line()
            self._rejected.append(rejected)
