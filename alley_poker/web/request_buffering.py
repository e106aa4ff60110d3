"""gunicorn's threaded worker, reading each request whole before a thread takes it.

gunicorn's ``gthread`` worker waits in one loop (a selector) until a connection is readable,
then hands it to a thread of its pool, which reads the request line, the headers and the body
with blocking reads and no deadline.  A client that trickles its headers or its body a byte at
a time (slowloris) holds a pool thread for as long as it likes; a few hundred of them and the
kiosks' reads queue behind them.  :class:`BufferingThreadWorker` reads every request in the
loop instead, without blocking, as its bytes come (h11 says when a request is complete,
``Content-Length`` or chunked), and only then hands the connection, with what was read, to a
thread.  So a slow client costs a buffer (64 KB at most, the app's largest body) and no thread,
and the loop closes it at its deadline:

- ``header_deadline_s`` for the request line and every header, counted from the connection
  (or, on a kept-alive connection, from the first byte of the next request): a connection that
  sends nothing is closed after it too;
- ``body_deadline_s`` for the whole body, counted from the end of the headers;
- between requests, gunicorn's own ``keepalive`` (idle keep-alive connections are closed).

A client past its deadline gets ``408 Request Timeout`` (if it began a request) and the
connection is closed.  A
WebSocket upgrade (the kiosks' Socket.IO) has no body: it goes to a thread at once and keeps
it, without deadline, for as long as the socket is open.  When the worker stops, those sockets
are shut so their threads end (gunicorn would otherwise wait for them until killed).

Like gunicorn's own ``gthread``, a second request *pipelined* behind the first in the same
packet is not answered (the connection is closed after the keep-alive time); browsers, the
Socket.IO clients and the project's HTTP clients never pipeline.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import time
from concurrent import futures
from dataclasses import dataclass
from functools import partial

import h11
from gunicorn.workers.gthread import TConn, ThreadWorker

#: Bytes read from a socket in one go (a body is 64 KB at most: one or two reads).
READ_CHUNK = 65536
#: What a client past its deadline is told before its connection is closed.
TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain\r\n"
             b"Content-Length: 37\r\n\r\nthe request did not arrive in time.\r\n")


@dataclass(frozen=True)
class Deadlines:
    """How long a request may take to arrive (see the module's docstring)."""

    header_deadline_s: float = 10.0
    body_deadline_s: float = 15.0
    #: Bodies up to this are read before a thread takes the request; a larger declared
    #: ``Content-Length`` goes to the app at once (which refuses it, 413, unread).
    max_buffered_body: int = 64 * 1024


class Arrival:
    """One request arriving on a connection: its bytes so far and its deadline."""

    def __init__(self, deadlines: Deadlines, now: float) -> None:
        self.deadlines = deadlines
        self.parser = h11.Connection(h11.SERVER)
        self.raw = bytearray()
        self.deadline = now + deadlines.header_deadline_s
        self.websocket = False
        #: Handed over before its body was read (too large): its connection closes after
        #: the answer, so no thread ever waits for the rest of that body.
        self.unread_body = False
        self._body = 0
        self._headers_in = False

    def feed(self, data: bytes, now: float) -> bool:
        """Take ``data``; True when the request is in (or broken: gunicorn then answers 400)."""
        self.raw += data
        self.parser.receive_data(data)
        try:
            while True:
                event = self.parser.next_event()
                if event is h11.NEED_DATA:
                    return False
                if isinstance(event, h11.Request):
                    self._headers_in = True
                    self.deadline = now + self.deadlines.body_deadline_s
                    headers = {name.lower(): value.lower() for name, value in event.headers}
                    self.websocket = headers.get(b"upgrade") == b"websocket"
                    declared = headers.get(b"content-length", b"0")
                    if declared.isdigit() and int(declared) > self.deadlines.max_buffered_body:
                        self.unread_body = True
                        return True  # refused by its declared size, unread
                elif isinstance(event, h11.Data):
                    self._body += len(event.data)
                    if self._body > self.deadlines.max_buffered_body:
                        self.unread_body = True
                        return True  # a chunked body over the limit: the app refuses it
                elif event is h11.PAUSED or isinstance(event, h11.EndOfMessage):
                    return True
        except h11.RemoteProtocolError:
            return True

    @property
    def expects_continue(self) -> bool:
        """The client waits for ``100 Continue`` before sending its body (curl does)."""
        return self._headers_in and self.parser.they_are_waiting_for_100_continue


class BufferingThreadWorker(ThreadWorker):
    """``gthread`` with requests read whole in the worker's loop (module docstring)."""

    #: How often the loop looks for connections past their deadline.
    SWEEP_EVERY_S = 0.25

    def init_process(self) -> None:
        self.deadlines: Deadlines = getattr(self.app, "deadlines", Deadlines())
        self._arriving: dict[TConn, Arrival] = {}
        self._continued: set[TConn] = set()
        self._next_sweep = 0.0
        self.timed_out = 0
        super().init_process()

    def get_thread_pool(self) -> futures.ThreadPoolExecutor:
        return _ClosingPool(self.cfg.threads, self.shut_websockets)

    def accept(self, server, listener) -> None:  # gunicorn's, with the header deadline
        try:
            sock, client = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        conn = TConn(self.cfg, sock, client, server)
        self.nr_conns += 1
        self._arriving[conn] = Arrival(self.deadlines, time.monotonic())
        with self._lock:
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 partial(self.on_client_socket_readable, conn))

    def on_client_socket_readable(self, conn, client) -> None:
        with self._lock:
            self.poller.unregister(client)
            if conn.initialized and conn not in self._arriving:
                try:  # a kept-alive connection: its next request begins
                    self._keep.remove(conn)
                except ValueError:
                    return  # gunicorn's own race: closed meanwhile
        now = time.monotonic()
        arrival = self._arriving.setdefault(conn, Arrival(self.deadlines, now))
        try:
            data = conn.sock.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            self._wait_for_more(conn)
            return
        except OSError:
            data = b""
        if not data:
            self._drop(conn)  # the client went away
            return
        if arrival.feed(data, now):
            del self._arriving[conn]
            self._continued.discard(conn)
            conn.init()  # blocking again, with gunicorn's parser
            conn.parser.unreader.unread(bytes(arrival.raw))
            conn.websocket = arrival.websocket
            conn.unread_body = arrival.unread_body
            self._submit(conn)
            return
        if arrival.expects_continue and conn not in self._continued:
            self._continued.add(conn)
            with contextlib.suppress(OSError):
                conn.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        self._wait_for_more(conn)

    def handle(self, conn):
        keepalive, conn = super().handle(conn)
        if keepalive and getattr(conn, "unread_body", False):
            return (False, conn)  # the rest of a refused body is never read (Arrival)
        return (keepalive, conn)

    def handle_request(self, req, conn):
        # The body is here already (the loop said "100 Continue" if the client waited for
        # it), or is refused unread: gunicorn must not invite it again.
        req.headers = [(name, value) for name, value in req.headers if name != "EXPECT"]
        return super().handle_request(req, conn)

    def _submit(self, conn) -> None:
        fs = self.tpool.submit(self.handle, conn)
        self._wrap_future(fs, conn)

    def _wait_for_more(self, conn) -> None:
        with self._lock:
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 partial(self.on_client_socket_readable, conn))

    def _drop(self, conn) -> None:
        self._arriving.pop(conn, None)
        self._continued.discard(conn)
        with self._lock, contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    def murder_keepalived(self) -> None:
        super().murder_keepalived()
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.SWEEP_EVERY_S
        late = [(conn, arrival) for conn, arrival in self._arriving.items()
                if arrival.deadline <= now]
        for conn, arrival in late:
            self.timed_out += 1
            if arrival.raw:  # a request begun: say why (one that never began is just closed)
                with contextlib.suppress(OSError):
                    conn.sock.send(TIMED_OUT)  # non-blocking: said if the buffer takes it
            self._drop(conn)

    def shut_websockets(self) -> None:
        """End every upgraded connection's thread: shut its socket (the worker is stopping)."""
        for fs in list(self.futures):
            conn = getattr(fs, "conn", None)
            if conn is not None and getattr(conn, "websocket", False):
                with contextlib.suppress(OSError):
                    conn.sock.shutdown(socket.SHUT_RDWR)


class _ClosingPool(futures.ThreadPoolExecutor):
    """The worker's pool; shutting it down (the worker is stopping) first ends the WebSockets
    that would otherwise keep their threads until the worker is killed."""

    def __init__(self, max_workers: int, before_shutdown) -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix="alley-http")
        self._before_shutdown = before_shutdown

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._before_shutdown()
        super().shutdown(wait, cancel_futures=cancel_futures)
