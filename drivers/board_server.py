"""The simulator's live-score page: the ``live-board`` JSON served over HTTP, as a scorer's
spectator page serves it (``alley-poker simulate --http PORT``, ``./dev demo --feed http``).

:class:`BoardState` keeps what the page shows (every lane's bowlers and their games so far)
and is fed the simulator's lane events; :class:`LiveBoardServer` serves it at ``/live`` on a
loopback port, with an ``ETag`` and ``Last-Modified`` so a poller's conditional request gets
a ``304 Not Modified`` while nothing changed.  :func:`serve_board` bowls a simulator into the
state at real or accelerated speed.

>>> from drivers.base import BowlerSlot
>>> state = BoardState()
>>> state.apply(LaneOpened(lane=2, bowlers=(BowlerSlot(1, "ANN"),)))
>>> state.apply(BallRecorded(lane=2, bowler=1, game=1, frame=1, ball=1, pins=10))
>>> from drivers.dialects.live_board import decode_board
>>> [ball.pins for ball in decode_board(state.body()).lanes[2].bowlers[0].games[0].balls]
[10]
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from alley_poker.bowling import Game
from drivers.base import BallRecorded, LaneEvent, LaneOpened
from drivers.dialects.live_board import encode_board
from drivers.simulator import Simulator

log = logging.getLogger(__name__)

#: Where the page lives on the simulator's server.
BOARD_PATH = "/live"


class BoardState:
    """What the live page shows, built from lane events; thread-safe, versioned."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._names: dict[int, dict[int, str]] = {}
        self._games: dict[tuple[int, int], list[Game]] = {}
        self._lock = threading.Lock()
        self._body = encode_board({})
        self._etag = self._tag(self._body)
        self._modified = clock()
        #: Bumped at every change; what a test or the demo waits on.
        self.version = 0
        self.balls = 0

    @staticmethod
    def _tag(body: bytes) -> str:
        return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'

    def apply(self, event: LaneEvent) -> None:
        """Show ``event`` on the page (lane openings and balls; other events show nothing)."""
        with self._lock:
            if isinstance(event, LaneOpened):
                names = self._names.setdefault(event.lane, {})
                for slot in event.bowlers:
                    names[slot.slot] = slot.name
            elif type(event) is BallRecorded:
                games = self._games.setdefault((event.lane, event.bowler), [])
                self._names.setdefault(event.lane, {}).setdefault(event.bowler, "")
                while len(games) < event.game:
                    games.append(Game())
                games[event.game - 1].roll(
                    event.pins, standing=event.standing, foul=event.flags.foul,
                    gutter=event.flags.gutter, split=True if event.flags.split else None)
                self.balls += 1
            else:
                return
            self._publish()

    def set_game(self, lane: int, slot: int, number: int, game: Game) -> None:
        """Show ``game`` as game ``number`` of a lane slot: what a correction at the scorer's
        desk (or a restarted game) does to the page."""
        with self._lock:
            games = self._games.setdefault((lane, slot), [])
            self._names.setdefault(lane, {}).setdefault(slot, "")
            while len(games) < number:
                games.append(Game())
            games[number - 1] = game
            self._publish()

    def touch(self) -> None:
        """The scorer's periodic refresh: the page's ``updated`` time moves on."""
        with self._lock:
            self._publish()

    def _publish(self) -> None:
        now = self._clock()
        lanes = {lane: [(names[slot], self._games.get((lane, slot), []))
                        for slot in sorted(names)]
                 for lane, names in self._names.items()}
        self._body = encode_board(lanes, updated=now)
        self._etag = self._tag(self._body)
        self._modified = now
        self.version += 1

    def body(self) -> bytes:
        with self._lock:
            return self._body

    def current(self) -> tuple[bytes, str, float]:
        """(body, ETag, last-modified time) of the page now."""
        with self._lock:
            return self._body, self._etag, self._modified


class _BoardHandler(BaseHTTPRequestHandler):
    server: LiveBoardServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] != BOARD_PATH:
            self._send(404, b'{"error": "not found: the live board is at /live"}')
            return
        body, etag, modified = self.server.state.current()
        self.server.requests += 1
        headers = {"ETag": etag, "Last-Modified": formatdate(modified, usegmt=True),
                   "Cache-Control": "no-cache"}
        if self._not_modified(etag, modified):
            self.server.not_modified += 1
            self._send(304, b"", headers)
            return
        self._send(200, body, headers)

    def _not_modified(self, etag: str, modified: float) -> bool:
        match = self.headers.get("If-None-Match")
        if match is not None:  # RFC 9110: If-None-Match wins over If-Modified-Since
            return etag in {tag.strip() for tag in match.split(",")}
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return int(modified) <= parsedate_to_datetime(since).timestamp()
            except (TypeError, ValueError):
                return False
        return False

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        log.debug("live board: " + format, *args)


class LiveBoardServer(ThreadingHTTPServer):
    """Serves a :class:`BoardState` at ``http://HOST:PORT/live`` from a daemon thread."""

    daemon_threads = True

    def __init__(self, state: BoardState, host: str = "127.0.0.1", port: int = 0):
        super().__init__((host, port), _BoardHandler)
        self.state = state
        self.requests = 0
        self.not_modified = 0
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="live-board", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}{BOARD_PATH}"

    def start(self) -> LiveBoardServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(5)


def serve_board(simulator: Simulator, state: BoardState, *, speed: float = 1.0,
                heartbeat_s: float = 10.0, stop: threading.Event | None = None,
                on_event: Callable[[LaneEvent], None] | None = None) -> int:
    """Bowl ``simulator`` into ``state`` at ``speed`` times real time (0: flat out), touching
    the page every ``heartbeat_s`` simulated seconds of silence.  Returns the balls shown."""
    if speed < 0:
        raise ValueError("speed: 0 (as fast as possible) or more")
    started = time.monotonic()
    last = 0.0
    for timed in simulator.events():
        while speed and timed.at - last > heartbeat_s:
            last += heartbeat_s
            if _wait_until(started + last / speed, stop):
                return state.balls
            state.touch()
        if speed and _wait_until(started + timed.at / speed, stop):
            return state.balls
        if stop is not None and stop.is_set():
            return state.balls
        state.apply(timed.event)
        last = timed.at
        if on_event is not None:
            on_event(timed.event)
    return state.balls


def _wait_until(moment: float, stop: threading.Event | None) -> bool:
    """Sleep until ``moment`` (monotonic); True when ``stop`` was set meanwhile."""
    delay = moment - time.monotonic()
    if delay <= 0:
        return False
    if stop is None:
        time.sleep(delay)
        return False
    return stop.wait(delay)
