"""The simulator's output side: lines to a serial URL, surviving disconnects like a scorer.

``FeedWriter`` owns one connection in its own thread and a queue of lines:

* ``socket://HOST:PORT`` — it **listens** on HOST:PORT, as a serial device server (a Moxa
  NPort, a Lantronix box) in TCP-server mode does, and the alley service's
  ``SerialFeed("socket://HOST:PORT", ...)`` connects to it.  One reader at a time; a new
  one replaces the old (a restarted service must not wait for its dead self to time out).
* anything else — a pty path made by ``socat``, ``/dev/ttyUSB1``, ``rfc2217://`` — is opened
  with ``serial.serial_for_url`` and written to.

Lines queue while nobody is connected and go out when a reader (re)connects.  Because a
serial line has no acknowledgements, after every reconnect lines are sent again, as scorers
do: the last ``resend_window``, or every line written on the connection that dropped in its
last ``resend_seconds`` if that is more (a reader that crashed lost whatever sat unread in its
socket — after an outage, a whole backlog), at most :data:`MAX_RESEND`.  The reader
recognises them by sequence number, or by the balls its ledger already holds, and the balls
it lacks arrive in bowling order (which matters: the first strike of a game earns a bonus).
Then ``on_reconnect`` runs (if set): :func:`serve` uses it to queue a scoresheet of every
game bowled so far, the last resort for anything still missing.

:func:`serve` runs a :class:`~drivers.simulator.Simulator` into a writer at real or
accelerated speed — the ``alley-poker simulate`` command.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import serial

from drivers.base import BallRecorded, Heartbeat, LaneEvent, ScoresheetSnapshot, SheetBall
from drivers.dialects.apf1 import Apf1Encoder
from drivers.dialects.notation import format_sheet
from drivers.dialects.scoresheet import format_line
from drivers.serial_feed import BackoffSchedule
from drivers.waiting import wait_until

log = logging.getLogger(__name__)

#: Most lines re-sent after a reconnect: a whole league night on a busy centre's feed.
MAX_RESEND = 4096


class _TcpServerLink:
    """Listens like a device server; one accepted reader is the connection."""

    def __init__(self, host: str, port: int):
        self.server = socket.create_server((host, port), reuse_port=False)
        self.server.settimeout(0.1)
        self.address = self.server.getsockname()[:2]
        self.conn: socket.socket | None = None

    def connect(self) -> bool:
        try:
            conn, peer = self.server.accept()
        except (TimeoutError, OSError):
            return False
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.settimeout(5.0)  # a reader that stops reading for this long counts as gone
        log.info("simulator: reader connected from %s:%s", *peer[:2])
        self.conn = conn
        return True

    def write(self, line: bytes) -> None:
        assert self.conn is not None
        self.check()
        self.conn.sendall(line)

    def check(self) -> None:
        """Raise if the reader is gone: it closed the connection, or a new reader is knocking.

        Called while idle too, so a reader that died (a SIGKILLed service) is noticed before
        the next line, and its restarted self is let in at once rather than after that line.
        A device server in TCP-server mode with one connection allowed does the same: the
        newest client wins (the old one is almost always a dead peer that never said goodbye).
        """
        assert self.conn is not None
        readable, _, _ = select.select([self.conn, self.server], [], [], 0)
        if self.conn in readable and self.conn.recv(1, socket.MSG_PEEK) == b"":
            raise ConnectionResetError("the reader closed the connection")
        if self.server in readable:
            raise ConnectionResetError("a new reader connected; the old connection is dropped")

    def disconnect(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_RDWR)
            self.conn.close()
            self.conn = None

    def close(self) -> None:
        self.disconnect()
        self.server.close()


class _SerialLink:
    """A pty or serial port opened with ``serial_for_url``."""

    def __init__(self, url: str, baudrate: int):
        self.url, self.baudrate = url, baudrate
        self.port: serial.SerialBase | None = None
        self.address = url

    def connect(self) -> bool:
        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baudrate,
                                              write_timeout=2)
        except (serial.SerialException, OSError, ValueError) as exc:
            log.debug("simulator: cannot open %s: %s", self.url, exc)
            return False
        return True

    def write(self, line: bytes) -> None:
        assert self.port is not None
        self.port.write(line)

    def check(self) -> None:
        """A serial line cannot tell whether anyone is listening: nothing to check."""

    def disconnect(self) -> None:
        if self.port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                self.port.close()
            self.port = None

    def close(self) -> None:
        self.disconnect()


class FeedWriter:
    """Writes lines to ``url`` from its own thread; see the module docstring."""

    def __init__(self, url: str, *, baudrate: int = 9600, resend_window: int = 32,
                 resend_seconds: float = 60.0, backoff: BackoffSchedule | None = None):
        self.url = url
        parts = urlsplit(url)
        if parts.scheme == "socket":
            if not parts.hostname or parts.port is None:
                raise ValueError(f"{url!r}: write socket://HOST:PORT")
            self._link: _TcpServerLink | _SerialLink = _TcpServerLink(parts.hostname,
                                                                      parts.port)
        else:
            self._link = _SerialLink(url, baudrate)
        self.resend_window = resend_window
        self.backoff = backoff or BackoffSchedule(initial=0.05, maximum=1.0)
        self._queue: deque[bytes] = deque()
        self.resend_seconds = resend_seconds
        #: (when, line) of the lines written lately, newest last.
        self._sent: deque[tuple[float, bytes]] = deque(maxlen=max(resend_window, MAX_RESEND))
        self._written_on_connection = 0
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._drop = threading.Event()
        self.connections = 0
        self.lines_sent = 0
        #: Called in the writer's thread after every reconnect's re-send (may call write()).
        self.on_reconnect: Callable[[], None] | None = None
        self._connected = False
        self._thread = threading.Thread(target=self._run, name="feed-writer", daemon=True)

    @property
    def address(self) -> tuple[str, int] | str:
        """Where readers find it: (host, port) for ``socket://`` (port 0 picks one)."""
        return self._link.address

    @property
    def connected(self) -> bool:
        return self._connected

    def start(self) -> FeedWriter:
        self._thread.start()
        return self

    def write(self, line: bytes) -> None:
        """Queue ``line`` for the reader (returns at once)."""
        with self._lock:
            self._queue.append(line)
            self._lock.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait until every queued line went out; False if ``timeout`` passed first."""
        return wait_until(self._lock, lambda: not self._queue, timeout, 0.05)

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self._connected:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def drop_connection(self) -> None:
        """Pull the cable: close the current connection (the writer then waits for a new one)."""
        self._drop.set()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            self._lock.notify_all()
        self._thread.join(5)
        self._link.close()

    def __enter__(self) -> FeedWriter:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._connected:
                if not self._link.connect():
                    if isinstance(self._link, _SerialLink):
                        self._stop.wait(self.backoff.next_delay())
                    continue
                self.backoff.reset()
                self.connections += 1
                self._connected = True
                if self.connections > 1:
                    lines = self._lines_to_resend()
                    self._written_on_connection = len(lines)
                    if not self._resend(lines):
                        continue
                    if self.on_reconnect is not None:
                        self.on_reconnect()
            if self._drop.is_set():
                self._drop.clear()
                self._disconnect("dropped on purpose (cable pulled)")
                continue
            with self._lock:
                idle = not self._queue
                if idle:
                    self._lock.wait(0.05)
                line = self._queue[0] if self._queue else b""
            if idle:
                try:
                    self._link.check()
                except OSError as exc:
                    self._disconnect(f"reader gone: {exc}")
                continue
            try:
                self._link.write(line)
            except (OSError, serial.SerialException) as exc:
                self._disconnect(f"write failed: {exc}")
                continue
            with self._lock:
                self._queue.popleft()
                self._sent.append((time.monotonic(), line))
                self._written_on_connection += 1
                self.lines_sent += 1
                self._lock.notify_all()

    def _lines_to_resend(self) -> list[bytes]:
        """The last ``resend_window`` lines, or more: those the dropped connection carried in
        its last ``resend_seconds``."""
        sent = list(self._sent)
        on_connection = sent[len(sent) - min(self._written_on_connection, len(sent)):]
        if on_connection:
            cutoff = on_connection[-1][0] - self.resend_seconds
            on_connection = [entry for entry in on_connection if entry[0] >= cutoff]
        count = min(len(sent), max(self.resend_window, len(on_connection)))
        return [line for _, line in sent[len(sent) - count:]]

    def _resend(self, lines: list[bytes]) -> bool:
        try:
            for line in lines:
                self._link.write(line)
        except (OSError, serial.SerialException) as exc:
            self._disconnect(f"re-send failed: {exc}")
            return False
        return True

    def _disconnect(self, why: str) -> None:
        log.info("simulator: connection to the reader closed: %s", why)
        self._link.disconnect()
        self._connected = False


@dataclass(frozen=True)
class TimedLine:
    at: float
    line: bytes


def encode_lines(events: Iterator, dialect: str, *, session: str = "sim",
                 heartbeat_s: float = 10.0) -> Iterator[TimedLine]:
    """The lines a scorer speaking ``dialect`` sends for timed events (``apf1``: with HELLO
    first and a heartbeat in every silence longer than ``heartbeat_s``)."""
    output = ScorerOutput(dialect, session=session)
    for at, event in _timeline(events, dialect, heartbeat_s):
        line = output.encode(event)
        if line is not None:
            yield TimedLine(at, line)


def _timeline(events: Iterator, dialect: str,
              heartbeat_s: float) -> Iterator[tuple[float, LaneEvent | None]]:
    """(time, event) pairs; ``None`` first stands for the apf1 HELLO, heartbeats fill silences."""
    if dialect not in ("apf1", "scoresheet"):
        raise ValueError(f"the simulator writes apf1 or scoresheet, not {dialect!r}")
    if dialect == "apf1":
        yield 0.0, None
    last = 0.0
    for timed in events:
        while dialect == "apf1" and timed.at - last > heartbeat_s:
            last += heartbeat_s
            yield last, Heartbeat()
        yield timed.at, timed.event
        last = timed.at


class ScorerOutput:
    """Turns lane events into a scorer's lines as they are written, remembering every ball.

    Lines are numbered when they are encoded, so :meth:`send` encodes and queues in one step
    under a lock; :meth:`catch_up` (run after a reconnect, from the writer's thread) can then
    slip in a scoresheet of every game bowled so far without breaking the numbering.
    """

    def __init__(self, dialect: str, *, session: str = "sim",
                 writer: FeedWriter | None = None):
        if dialect not in ("apf1", "scoresheet"):
            raise ValueError(f"the simulator writes apf1 or scoresheet, not {dialect!r}")
        self.dialect = dialect
        self.writer = writer
        self._encoder = Apf1Encoder(session=session) if dialect == "apf1" else None
        self._balls: dict[tuple[int, int, int], list[BallRecorded]] = {}
        self._lock = threading.Lock()

    def encode(self, event: LaneEvent | None) -> bytes | None:
        """The line for ``event`` (``None``: the apf1 HELLO), or None if it has no line."""
        if type(event) is BallRecorded:
            self._balls.setdefault((event.lane, event.bowler, event.game), []).append(event)
        if self._encoder is not None:
            return self._encoder.hello() if event is None else _apf1_line(self._encoder, event)
        if type(event) is BallRecorded:
            return self._sheet_line((event.lane, event.bowler, event.game))
        return None

    def send(self, event: LaneEvent | None) -> bytes | None:
        """Encode ``event`` and queue its line on the writer; returns the line (or None)."""
        assert self.writer is not None
        with self._lock:
            line = self.encode(event)
            if line is not None:
                self.writer.write(line)
        return line

    def catch_up(self) -> None:
        """Queue the sheet of every game with a ball so far, oldest game first."""
        assert self.writer is not None
        with self._lock:
            for key in sorted(self._balls, key=lambda key: (key[2], key[0], key[1])):
                self.writer.write(self._sheet_line(key))

    def _sheet_line(self, key: tuple[int, int, int]) -> bytes:
        lane, bowler, game = key
        balls = self._balls[key]
        if self._encoder is None:
            return format_line(lane, bowler, "-", game, _sheet(balls))
        return self._encoder.encode(ScoresheetSnapshot(lane=lane, bowler=bowler, game=game,
                                                       frames=_frames(balls)))


def _apf1_line(encoder: Apf1Encoder, event: LaneEvent) -> bytes | None:
    try:
        return encoder.encode(event)
    except ValueError:
        return None


def _frames(balls: list[BallRecorded]) -> tuple[tuple[SheetBall, ...], ...]:
    frames: dict[int, list[SheetBall]] = {}
    for ball in balls:
        frames.setdefault(ball.frame, []).append(SheetBall(ball.pins, ball.flags))
    return tuple(tuple(frame) for frame in frames.values())


def _sheet(balls: list[BallRecorded]) -> str:
    return format_sheet(list(_frames(balls)))


def serve(simulator, writer: FeedWriter, *, dialect: str = "apf1", speed: float = 1.0,
          heartbeat_s: float = 10.0, session: str | None = None,
          on_line: Callable[[TimedLine], None] | None = None,
          stop: threading.Event | None = None) -> int:
    """Play ``simulator`` into ``writer``; ``speed`` 20 runs 20x real time, 0 as fast as
    possible.  After every reconnect the writer re-sends its last lines and then a sheet of
    every game so far (:meth:`ScorerOutput.catch_up`).  Returns the number of lines written."""
    if speed < 0:
        raise ValueError("speed: 0 (as fast as possible) or more")
    session = session or f"sim-{int(time.time())}"
    output = ScorerOutput(dialect, session=session, writer=writer)
    writer.on_reconnect = output.catch_up
    started = time.monotonic()
    count = 0
    for at, event in _timeline(simulator.events(), dialect, heartbeat_s):
        if speed:
            delay = started + at / speed - time.monotonic()
            if delay > 0 and stop is not None and stop.wait(delay):
                break
            if delay > 0 and stop is None:
                time.sleep(delay)
        if stop is not None and stop.is_set():
            break
        line = output.send(event)
        if line is None:
            continue
        count += 1
        if on_line is not None:
            on_line(TimedLine(at, line))
    return count
