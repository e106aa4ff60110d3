"""Serving, not answering: deadlines on the werkzeug server's socket reads, before any request.

Slow and idle connections cannot hold the server.  werkzeug's threaded server (the demos'
and the tests' ``HttpThread``; ``serve`` and ``web`` run gunicorn) gives a thread to each
connection.  Without limits a client that connects and sends nothing, or trickles its headers
a byte at a time (slowloris), keeps its thread and socket for ever; a few thousand exhaust the
process's file descriptors and the kiosks' reconnects are refused.  :class:`GuardedRequestHandler`:

- gives the request line and headers ``HEADER_DEADLINE_S`` in all (one reaper thread closes
  a connection past its deadline, however slowly it trickles), and each read
  ``IDLE_TIMEOUT_S`` (an idle keep-alive connection is closed after it);
- then ``BODY_TIMEOUT_S`` per read of the body;
- and no limit on a WebSocket once upgraded: the kiosks' sockets are long-lived and quiet
  between Engine.IO's pings.

``docs/performance.md`` ("Slow and idle clients") has the measurements.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

from werkzeug.serving import WSGIRequestHandler

#: Seconds to send the request line and every header, in all.
HEADER_DEADLINE_S = 10.0
#: Seconds a connection may stay silent while its request is read (or between requests).
IDLE_TIMEOUT_S = 5.0
#: Seconds a read of a request's body may wait (bodies are 64 KB at most).
BODY_TIMEOUT_S = 15.0


class HeaderDeadlines:
    """One reaper thread closing connections whose headers are not in by their deadline."""

    def __init__(self, sweep_every_s: float = 0.5):
        self._pending: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        self._sweep_every_s = sweep_every_s
        self._thread: threading.Thread | None = None
        self.closed = 0  # connections cut off, for the benchmark and the logs

    def watch(self, connection: socket.socket, deadline_s: float) -> None:
        with self._lock:
            self._pending[connection] = time.monotonic() + deadline_s
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="header-deadlines",
                                                daemon=True)
                self._thread.start()

    def done(self, connection: socket.socket) -> None:
        with self._lock:
            self._pending.pop(connection, None)

    def _run(self) -> None:
        while True:
            time.sleep(self._sweep_every_s)
            now = time.monotonic()
            with self._lock:
                late = [conn for conn, deadline in self._pending.items() if deadline <= now]
                for conn in late:
                    del self._pending[conn]
            for conn in late:
                self.closed += 1
                with contextlib.suppress(OSError):  # already gone
                    conn.shutdown(socket.SHUT_RDWR)  # its thread's read returns at once


#: Shared by every server of the process (one reaper thread).
DEADLINES = HeaderDeadlines()


class GuardedRequestHandler(WSGIRequestHandler):
    """werkzeug's handler with the deadlines above."""

    def handle_one_request(self) -> None:
        self.connection.settimeout(IDLE_TIMEOUT_S)
        DEADLINES.watch(self.connection, HEADER_DEADLINE_S)
        try:
            super().handle_one_request()
        finally:
            DEADLINES.done(self.connection)

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        DEADLINES.done(self.connection)
        upgrade = (self.headers.get("Upgrade", "") if parsed and self.headers else "").lower()
        self.connection.settimeout(None if upgrade == "websocket" else BODY_TIMEOUT_S)
        return parsed

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Nothing: the app's access log (web.access_log) writes each request's line, the
        same on this server as on gunicorn, and without the tokens werkzeug's would show."""
