"""Serving, not answering: gunicorn's threaded worker, reading each request whole before a
thread takes it.  The gunicorn internals it relies on are named in
:mod:`alley_poker.serving.gunicorn_internals` and checked against the installed gunicorn.

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
connection is closed.  The request line and headers together are bounded too
(``max_head_bytes``, 32 KB, nginx's default): a longer head is answered ``431 Request Header
Fields Too Large`` from the loop and closed, so a connection never holds more than that (plus
h11's copy) while its head arrives.  The memory a burst of such connections took is handed
back to the system once they are gone (:mod:`alley_poker.serving.memory_return`): glibc keeps
freed heap pages otherwise, and the worker would stay at its peak.

A connection closed while its client may still be sending (a body refused by its declared
size, a head over the ceiling, a request past its deadline) is closed *lingering*, as nginx
does: the answer is sent, the write side shut (the client reads the answer and then the end of
the stream), and what the client still sends is read and discarded until it closes or
``LINGER_S`` passes.  Closing at once with unread bytes makes the kernel send a reset, which
the client sees instead of the answer.  A body refused by its declared size is answered by the
app (413) with ``Connection: close``.

A WebSocket upgrade (the kiosks' Socket.IO) has no body: it goes to a thread at once and keeps
it, without deadline, for as long as the socket is open.  That thread comes from a pool of its
own (``max_websockets``), never from the requests' (``threads``): open sockets, however many,
never leave a screen read or ``/healthz`` waiting for a thread (issue 38: 1,000 idle sockets
held all 1,000 threads of the one pool and every read timed out).  An upgrade beyond
``max_websockets`` is answered ``503`` at once, not queued.  When the worker stops, the
sockets are shut so their threads end (gunicorn would otherwise wait for them until killed).

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

from alley_poker.serving.memory_return import BurstMemory

#: Bytes read from a socket in one go (a body is 64 KB at most: one or two reads).
READ_CHUNK = 65536
#: How long a closing connection's late bytes are read and discarded (module docstring).
LINGER_S = 2.0


def plain_answer(status: str, text: str) -> bytes:
    """A complete ``Connection: close`` answer the loop sends itself (no thread, no app)."""
    body = f"{text}\r\n".encode()
    return (f"HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


#: What a client past its deadline is told before its connection is closed.
TIMED_OUT = plain_answer("408 Request Timeout", "the request did not arrive in time.")
#: What a WebSocket beyond the worker's ``max_websockets`` is told.
WEBSOCKETS_FULL = plain_answer("503 Service Unavailable",
                               "this server holds as many live connections as it can.")
#: Open WebSockets a worker holds at most when the application names none.
DEFAULT_MAX_WEBSOCKETS = 2000


@dataclass(frozen=True)
class Deadlines:
    """How long a request may take to arrive (see the module's docstring)."""

    header_deadline_s: float = 10.0
    body_deadline_s: float = 15.0
    #: Bodies up to this are read before a thread takes the request; a larger declared
    #: ``Content-Length`` goes to the app at once (which refuses it, 413, unread).
    max_buffered_body: int = 64 * 1024
    #: The request line and every header together; a longer head is answered 431.
    max_head_bytes: int = 32 * 1024

    def head_too_large(self) -> bytes:
        return plain_answer("431 Request Header Fields Too Large",
                            f"the request's headers are longer than this server accepts "
                            f"({self.max_head_bytes // 1024} KB).")


class Arrival:
    """One request arriving on a connection: its bytes so far and its deadline."""

    def __init__(self, deadlines: Deadlines, now: float) -> None:
        self.deadlines = deadlines
        self.parser = h11.Connection(h11.SERVER,
                                     max_incomplete_event_size=deadlines.max_head_bytes)
        self.raw = bytearray()
        self.deadline = now + deadlines.header_deadline_s
        self.websocket = False
        #: Handed over before its body was read (too large): its connection closes after
        #: the answer, so no thread ever waits for the rest of that body.
        self.unread_body = False
        #: A complete answer the loop sends itself before closing (the head was too long).
        self.refusal = b""
        self._body = 0
        self._headers_in = False

    def feed(self, data: memoryview, now: float) -> bool:
        """Take ``data``; True when the request is in (or broken: gunicorn then answers 400;
        or its head too long: :attr:`refusal`)."""
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
        except h11.RemoteProtocolError as error:
            if error.error_status_hint == 431:
                self.refusal = self.deadlines.head_too_large()
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
        self.max_websockets: int = getattr(self.app, "max_websockets", DEFAULT_MAX_WEBSOCKETS)
        self.websockets_open = 0
        self.websockets_refused = 0
        self._arriving: dict[TConn, Arrival] = {}
        self._continued: set[TConn] = set()
        self._lingering: dict[TConn, float] = {}
        self._next_sweep = 0.0
        self._read_buffer = bytearray(READ_CHUNK)  # one for the loop: no large allocations
        self._burst = BurstMemory()
        self._released = 0
        self.timed_out = 0
        super().init_process()

    def get_thread_pool(self) -> futures.ThreadPoolExecutor:
        self.websocket_pool = futures.ThreadPoolExecutor(self.max_websockets,
                                                         thread_name_prefix="alley-ws")
        return _ClosingPool(self.cfg.threads, self._stop_websockets)

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
            size = conn.sock.recv_into(self._read_buffer)
        except (BlockingIOError, InterruptedError):
            self._wait_for_more(conn)
            return
        except OSError:
            size = 0
        if not size:
            self._drop(conn)  # the client went away
            return
        if arrival.feed(memoryview(self._read_buffer)[:size], now):
            self._forget(conn)
            if arrival.refusal:  # the head is too long: said and closed here, no thread
                self._linger(conn, arrival.refusal)
                return
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
        if getattr(conn, "unread_body", False):
            req.must_close = True  # the answer says "Connection: close" (module docstring)
        return super().handle_request(req, conn)

    def finish_request(self, fs) -> None:
        conn = fs.conn
        if (getattr(conn, "unread_body", False) and not fs.cancelled()
                and fs.exception() is None):
            self._linger(conn)  # the client may still be sending the refused body
            return
        super().finish_request(fs)

    def _submit(self, conn) -> None:
        if not conn.websocket:
            self._wrap_future(self.tpool.submit(self.handle, conn), conn)
            return
        with self._lock:
            full = self.websockets_open >= self.max_websockets
            if full:
                self.websockets_refused += 1
            else:
                self.websockets_open += 1
        if full:
            self._linger(conn, WEBSOCKETS_FULL)
            return
        fs = self.websocket_pool.submit(self.handle, conn)
        fs.add_done_callback(self._websocket_closed)
        self._wrap_future(fs, conn)

    def _websocket_closed(self, _fs) -> None:
        with self._lock:
            self.websockets_open -= 1

    def _wait_for_more(self, conn) -> None:
        with self._lock:
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 partial(self.on_client_socket_readable, conn))

    def _forget(self, conn) -> None:
        """``conn``'s request no longer arrives (handed over, refused or closed)."""
        arrival = self._arriving.pop(conn, None)
        if arrival is not None:
            self._released += len(arrival.raw)
        self._continued.discard(conn)

    def _drop(self, conn) -> None:
        self._forget(conn)
        with self._lock:
            self._lingering.pop(conn, None)
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    def _linger(self, conn, answer: bytes = b"") -> None:
        """Say ``answer`` (if the loop answers), shut the write side and read what the client
        still sends until it closes or ``LINGER_S`` passes (module docstring)."""
        self._forget(conn)
        try:
            conn.sock.setblocking(False)
            if answer:
                conn.sock.send(answer)  # a few hundred bytes: the send buffer takes them
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._drop(conn)
            return
        with self._lock:
            self._lingering[conn] = time.monotonic() + LINGER_S
            with contextlib.suppress(KeyError, ValueError):
                self.poller.unregister(conn.sock)
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 partial(self._on_lingering_readable, conn))

    def _on_lingering_readable(self, conn, _client) -> None:
        try:
            if conn.sock.recv_into(self._read_buffer):
                return  # discarded; more may come
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._drop(conn)  # the client has closed: so do we

    def murder_keepalived(self) -> None:
        super().murder_keepalived()
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.SWEEP_EVERY_S
        self._close_late(now)  # returns first: its buffers are freed before a trim below
        with self._lock:
            done = [conn for conn, until in self._lingering.items() if until <= now]
        for conn in done:
            self._drop(conn)
        # What arriving requests hold now, and what those gone since the last sweep held.
        self._burst.note(sum(len(arrival.raw) for arrival in self._arriving.values()),
                         released=self._released)
        self._released = 0

    def _stop_websockets(self) -> None:
        self.shut_websockets()
        self.websocket_pool.shutdown(wait=False)

    def _close_late(self, now: float) -> None:
        late = [(conn, arrival) for conn, arrival in self._arriving.items()
                if arrival.deadline <= now]
        for conn, arrival in late:
            self.timed_out += 1
            if arrival.raw:  # a request begun: say why (one that never began is just closed)
                self._linger(conn, TIMED_OUT)
            else:
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
