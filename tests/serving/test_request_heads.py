"""``alley-poker serve`` on gunicorn, probed from outside: a request's head has a size and a
time ceiling whose memory comes back, and a body refused by its declared size is answered
``413`` with ``Connection: close`` that the client actually reads.

The probe of issue 38: 400 connections each sending 766 KB of headers that never end took the
worker from 207 to 588 MB, and 416 MB stayed after they closed; a POST declaring a 10 MB body
got its 413 with ``Connection: keep-alive`` and the connection reset under it.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from pathlib import Path

import pytest

from alley_poker.serving.request_buffering import Deadlines
from benchmarks._service_process import ServiceProcess, children
from tests.web.from_address import serving

pytestmark = pytest.mark.slow

CONNECTIONS = 400
PROBE_HEAD_BYTES = 766 * 1024  # what each connection of the probe sent
HEAD_CEILING = Deadlines().max_head_bytes
#: Growth of the worker's memory allowed while 400 heads are arriving (each may buffer up to
#: the ceiling twice over: the bytes kept for gunicorn's parser and h11's own buffer) and
#: what may stay after they are gone (the allocator's bookkeeping, the interpreter's caches).
DURING_MARGIN_MB = 80
AFTER_MARGIN_MB = 6


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines()
                if line.startswith("VmRSS:")) / 1024


class PeakRss:
    """The highest ``VmRSS`` of ``pid`` seen while it runs (sampled every 20 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak = pid, rss_mb(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            with contextlib.suppress(OSError, StopIteration):
                self.peak = max(self.peak, rss_mb(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


def settled_rss_mb(pid: int, at_most: float, seconds: float = 20.0) -> float:
    """The worker's memory once it is at most ``at_most`` (or after ``seconds``)."""
    deadline = time.monotonic() + seconds
    now = rss_mb(pid)
    while now > at_most and time.monotonic() < deadline:
        time.sleep(0.25)
        now = rss_mb(pid)
    return now


@pytest.fixture
def served(tmp_path: Path):
    yield from serving(tmp_path, 4)


def address_of(served: ServiceProcess) -> tuple[str, int]:
    host, port = served.base_url.removeprefix("http://").split(":")
    return host, int(port)


def send_heads(address: tuple[str, int], count: int, head_bytes: int,
               seconds: float) -> dict[socket.socket, bytes]:
    """``count`` connections each sending a GET whose headers grow to ``head_bytes`` and never
    end; for ``seconds`` (or until the server closed every one) what each was answered."""
    selector = selectors.DefaultSelector()
    pending: dict[socket.socket, bytes] = {}
    answers: dict[socket.socket, bytes] = {}
    line = b"X-Pad: " + b"a" * 8000 + b"\r\n"
    head = b"GET /api/v1/matches HTTP/1.1\r\nHost: probe\r\n" + line * (head_bytes // len(line))
    for _ in range(count):
        sock = socket.create_connection(address, timeout=5)
        sock.setblocking(False)
        pending[sock], answers[sock] = head, b""
        selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)
    deadline = time.monotonic() + seconds
    while selector.get_map() and time.monotonic() < deadline:
        for key, events in selector.select(0.1):
            sock = key.fileobj
            if events & selectors.EVENT_READ:
                try:
                    data = sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                answers[sock] += data
                if not data:
                    selector.unregister(sock)
                    continue
            if events & selectors.EVENT_WRITE and pending[sock]:
                try:
                    pending[sock] = pending[sock][sock.send(pending[sock][:65536]):]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    pending[sock] = b""
                if not pending[sock]:
                    selector.modify(sock, selectors.EVENT_READ)
    for sock in answers:
        sock.close()
    return answers


def test_heads_over_the_ceiling_are_answered_431_and_their_memory_comes_back(served, report):
    (worker,) = children(served.pid)
    address = address_of(served)
    start = rss_mb(worker)
    peak = PeakRss(worker)
    answers = send_heads(address, CONNECTIONS, PROBE_HEAD_BYTES, seconds=30)
    during = peak.stop()
    after = settled_rss_mb(worker, start + AFTER_MARGIN_MB)
    said = sorted({answer[:40] for answer in answers.values()})
    report(f"{CONNECTIONS} heads of {PROBE_HEAD_BYTES // 1024} KB: worker {start:.0f} MB → "
           f"peak {during:.0f} MB → {after:.0f} MB after; answered {said}")
    assert all(answer.startswith(b"HTTP/1.1 431 ") for answer in answers.values()), said
    assert all(b"\r\nConnection: close\r\n" in answer for answer in answers.values())
    assert during <= start + DURING_MARGIN_MB, (start, during)
    assert after <= start + AFTER_MARGIN_MB, (start, after)


def test_heads_under_the_ceiling_are_held_until_their_deadline_and_then_given_back(
        served, report):
    (worker,) = children(served.pid)
    address = address_of(served)
    start = rss_mb(worker)
    peak = PeakRss(worker)
    deadline = Deadlines().header_deadline_s
    began = time.monotonic()
    answers = send_heads(address, CONNECTIONS, HEAD_CEILING - 9000, seconds=deadline + 15)
    took = time.monotonic() - began
    during = peak.stop()
    after = settled_rss_mb(worker, start + AFTER_MARGIN_MB)
    report(f"{CONNECTIONS} unfinished heads of {(HEAD_CEILING - 9000) // 1024} KB: worker "
           f"{start:.0f} MB → peak {during:.0f} MB → {after:.0f} MB after; all closed in "
           f"{took:.1f} s")
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers.values())
    assert took <= deadline + 10, took
    assert during <= start + DURING_MARGIN_MB, (start, during)
    assert after <= start + AFTER_MARGIN_MB, (start, after)


def test_a_body_refused_by_its_declared_size_is_answered_413_with_connection_close(served):
    """A client sends its headers and goes on sending the body: it reads the 413 (saying the
    connection closes), never a reset."""
    for _ in range(5):  # a reset under the answer is a race: give it several chances
        with socket.create_connection(address_of(served), timeout=10) as sock:
            sock.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: t\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
            sent = 0
            sock.settimeout(0.05)
            answer = b""
            try:
                while sent < 2_000_000:  # the body goes on while the answer comes
                    sent += sock.send(b"x" * 65536)
                    with contextlib.suppress(TimeoutError):
                        answer += sock.recv(65536)
                        if answer and b"\r\n\r\n" in answer:
                            break
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server closed its side; what it said is still to be read
            sock.settimeout(10)
            while chunk := sock.recv(65536):  # ECONNRESET here is the failure
                answer += chunk
        head = answer.split(b"\r\n\r\n", 1)[0]
        assert head.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert b"\r\nConnection: close" in head, head
