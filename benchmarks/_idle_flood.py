"""Idle Socket.IO websockets held open against a server, many from one small thread.

Each flood connection does what a browser's Socket.IO client does and then nothing: the
websocket upgrade (``/socket.io/?EIO=4&transport=websocket``), the Socket.IO ``connect``
(``40``), and an answer to every ping the server sends (``2`` → ``3``, or the server would
close it after ``pingTimeout``).  One thread drives them all through a selector (wsproto
frames the bytes), so the probe itself costs a few MB for thousands of sockets, unlike a
python-socketio client per connection (three threads each).  Connections are spread over the
source addresses ``127.0.0.2``..``127.0.0.9`` so a per-address ceiling does not shape the
figures.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import threading
import time

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)

SOURCE_ADDRESSES = [f"127.0.0.{n}" for n in range(2, 10)]


def worker_only_sections() -> dict[str, dict[str, int]]:
    """``alley.toml`` tables that take the app's own socket ceiling (``[sockets]``, issue 38,
    where this version has one) out of the way, so a flood measures the worker itself."""
    from alley_poker.config import AlleyConfig

    if "sockets" not in AlleyConfig.model_fields:
        return {}
    return {"sockets": {"per_address": 100_000, "in_all": 100_000}}
#: Handshakes in flight at once (a browser crowd arrives over seconds, not all at once).
IN_FLIGHT = 200


class _Flooder:
    """One idle Socket.IO connection's state."""

    def __init__(self, sock: socket.socket, host: str) -> None:
        self.sock = sock
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.host = host
        self.state = "connecting"  # → upgrading → open (engine.io) → joined (socket.io)
        self.started = time.monotonic()
        self.outgoing = b""

    def send(self, data: bytes) -> None:
        self.outgoing += data
        self.flush()

    def flush(self) -> None:
        while self.outgoing:
            try:
                sent = self.sock.send(self.outgoing)
            except (BlockingIOError, InterruptedError):
                return
            self.outgoing = self.outgoing[sent:]


class IdleFlood:
    """Grows to a number of idle joined Socket.IO connections and keeps them alive."""

    def __init__(self, host: str, port: int, *, handshake_timeout_s: float = 15.0) -> None:
        self.host, self.port = host, port
        self.handshake_timeout_s = handshake_timeout_s
        self.selector = selectors.DefaultSelector()
        self.flooders: set[_Flooder] = set()
        self.joined = 0
        self.failed = 0
        self.closed_by_server = 0
        self.refused_503 = 0  # upgrades the server refused at once: "503, full"
        self._want = 0
        self._opened = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="idle-flood", daemon=True)
        self._thread.start()

    # -- the caller's side ---------------------------------------------------------------
    def grow_to(self, count: int, timeout_s: float) -> int:
        """Open connections until ``count`` were tried; wait until each joined or failed
        (at most ``timeout_s``); the number joined."""
        with self._lock:
            self._want = count
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                settled = self._opened >= count and not any(
                    f.state != "joined" for f in self.flooders)
            if settled:
                break
            time.sleep(0.2)
        return self.joined

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for flooder in list(self.flooders):
            with contextlib.suppress(OSError):
                flooder.sock.close()
        self.flooders.clear()
        self.selector.close()

    # -- the loop --------------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            self._open_more()
            for key, _ in self.selector.select(0.1):
                self._readable(key.data)
            self._expire()

    def _open_more(self) -> None:
        with self._lock:
            handshaking = sum(f.state != "joined" for f in self.flooders)
            while self._opened < self._want and handshaking < IN_FLIGHT:
                self._opened += 1
                handshaking += 1
                self._connect(SOURCE_ADDRESSES[self._opened % len(SOURCE_ADDRESSES)])

    def _connect(self, source: str) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((source, 0))
            code = sock.connect_ex((self.host, self.port))
        except OSError:
            sock.close()
            self.failed += 1
            return
        if code not in (0, errno.EINPROGRESS):
            sock.close()
            self.failed += 1
            return
        flooder = _Flooder(sock, f"{self.host}:{self.port}")
        self.flooders.add(flooder)
        self.selector.register(sock, selectors.EVENT_WRITE, flooder)

    def _readable(self, flooder: _Flooder) -> None:
        if flooder.state == "connecting":  # writable: connected (or refused)
            if flooder.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                self._fail(flooder)
                return
            flooder.state = "upgrading"
            self.selector.modify(flooder.sock, selectors.EVENT_READ, flooder)
            flooder.send(flooder.ws.send(Request(
                host=flooder.host, target="/socket.io/?EIO=4&transport=websocket")))
            return
        try:
            data = flooder.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._fail(flooder, by_server=True)
            return
        flooder.ws.receive_data(data)
        for event in flooder.ws.events():
            if isinstance(event, AcceptConnection):
                flooder.state = "open"
            elif isinstance(event, TextMessage):
                self._message(flooder, event.data)
            elif isinstance(event, Ping):
                flooder.send(flooder.ws.send(event.response()))
            elif isinstance(event, (CloseConnection, RejectConnection)):
                if isinstance(event, RejectConnection) and event.status_code == 503:
                    self.refused_503 += 1
                self._fail(flooder, by_server=True)
                return
        flooder.flush()

    def _message(self, flooder: _Flooder, text: str) -> None:
        if text.startswith("0"):  # engine.io open: connect the default namespace
            flooder.send(flooder.ws.send(TextMessage(data="40")))
        elif text.startswith("40") and flooder.state != "joined":
            flooder.state = "joined"
            self.joined += 1
        elif text == "2":  # engine.io ping
            flooder.send(flooder.ws.send(TextMessage(data="3")))

    def _expire(self) -> None:
        now = time.monotonic()
        for flooder in [f for f in self.flooders if f.state != "joined"
                        and now - f.started > self.handshake_timeout_s]:
            self._fail(flooder)

    def _fail(self, flooder: _Flooder, by_server: bool = False) -> None:
        if flooder.state == "joined":
            self.joined -= 1
            self.closed_by_server += by_server
        else:
            self.failed += 1
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(flooder.sock)
        flooder.sock.close()
        with self._lock:
            self.flooders.discard(flooder)
