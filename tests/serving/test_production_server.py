"""``alley-poker serve`` on gunicorn, probed from outside: slow bodies cost no thread.

The probe of issue 27: 100 sockets each POSTing ``/commissioner/sign-in`` with
``Content-Length: 60000`` and one byte every 4 s.  On Werkzeug's server each held a thread
(9 → 109 threads for 100 sockets).  Here the worker reads bodies in its loop: its thread count
and a kiosk's read p95 stay as they were, and every slow socket is answered 408 and closed
within the body deadline.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from alley_poker.serving.request_buffering import Deadlines
from benchmarks._service_process import children
from tests.web.from_address import serving

pytestmark = pytest.mark.slow

SLOW_SOCKETS = 100  # the probe of issue 27, as it was run
BODY_DEADLINE_S = Deadlines().body_deadline_s


def threads_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines()
                if line.startswith("Threads:"))


def kiosk_read_p95_ms(base_url: str, reads: int = 40) -> float:
    took = []
    for _ in range(reads):
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base_url}/api/v1/lanes/1-2/screen", timeout=10) as r:
            assert r.status == 200
            r.read()
        took.append((time.perf_counter() - started) * 1000)
        time.sleep(0.02)
    return statistics.quantiles(took, n=20)[-1]


@pytest.fixture
def served(tmp_path: Path):
    yield from serving(tmp_path, 4)


def test_slow_bodies_hold_no_thread_and_are_closed_at_the_body_deadline(served, report):
    (worker,) = children(served.pid)  # gunicorn's one worker: the centre lives there
    host, port = served.base_url.removeprefix("http://").split(":")
    kiosk_read_p95_ms(served.base_url, reads=10)  # warm: the pool's first threads started
    threads_before = threads_of(worker)
    p95_before = kiosk_read_p95_ms(served.base_url)

    sockets, headers_sent, closed_after = [], {}, {}
    for _ in range(SLOW_SOCKETS):
        sock = socket.create_connection((host, int(port)), timeout=5)
        sock.sendall(b"POST /commissioner/sign-in HTTP/1.1\r\nHost: probe\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\n"
                     b"Content-Length: 60000\r\n\r\n")
        headers_sent[sock] = time.monotonic()
        sockets.append(sock)
    answers: dict[socket.socket, bytes] = {}
    stop = threading.Event()

    def watch() -> None:  # notes when the server answers and closes each socket
        while not stop.is_set() and len(closed_after) < len(sockets):
            open_ = [s for s in sockets if s not in closed_after]
            readable, _, _ = select.select(open_, [], [], 0.1)
            for sock in readable:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                answers[sock] = answers.get(sock, b"") + data
                if not data:
                    closed_after[sock] = time.monotonic() - headers_sent[sock]

    def trickle() -> None:  # one byte every 4 s on each socket still open
        while not stop.wait(4.0):
            for sock in sockets:
                if sock not in closed_after:
                    with contextlib.suppress(OSError):
                        sock.send(b"a")

    helpers = [threading.Thread(target=watch), threading.Thread(target=trickle)]
    for helper in helpers:
        helper.start()
    try:
        time.sleep(2.0)  # every socket is in, trickling
        threads_during = threads_of(worker)
        p95_during = kiosk_read_p95_ms(served.base_url)
        threads_during = max(threads_during, threads_of(worker))
        deadline = time.monotonic() + BODY_DEADLINE_S + 10
        while len(closed_after) < len(sockets) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop.set()
        for helper in helpers:
            helper.join()
        for sock in sockets:
            sock.close()

    closed = sorted(closed_after.values())
    report(f"slow-body probe: {SLOW_SOCKETS} sockets; worker threads {threads_before} → "
           f"{threads_during}; kiosk read p95 {p95_before:.1f} → {p95_during:.1f} ms; "
           f"{len(closed)} closed {closed[0] if closed else 0:.1f}-"
           f"{closed[-1] if closed else 0:.1f} s after their headers")
    assert threads_during <= threads_before + 2, (threads_before, threads_during)
    # "Unchanged" as a kiosk sees it: a read held behind the slow bodies waits for their
    # 15 s deadline, seconds; the suite's other workers sharing the two cores add tens of
    # milliseconds to a p95 of 20 reads (CI saw 10.5 -> 64.6 ms), which is not what this
    # probe is about.  The figures are reported; benchmarks.slow_clients measures them.
    assert p95_during <= max(3 * p95_before, p95_before + 250), (p95_before, p95_during)
    assert len(closed_after) == SLOW_SOCKETS, f"{len(closed_after)} of {SLOW_SOCKETS} closed"
    assert all(BODY_DEADLINE_S - 1 <= after <= BODY_DEADLINE_S + 2
               for after in closed_after.values()), sorted(closed_after.values())
    assert all(answer.startswith(b"HTTP/1.1 408") for answer in answers.values())
    # And the server still serves.
    with urllib.request.urlopen(f"{served.base_url}/healthz", timeout=5) as response:
        assert response.status == 200


def read_until_closed(sock: socket.socket, seconds: float) -> bytes:
    sock.settimeout(seconds)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_requests_are_read_whole_before_a_thread_takes_them(served):
    host, port = served.base_url.removeprefix("http://").split(":")
    address = (host, int(port))
    # A body larger than any the app takes: refused at once by its declared size, unread,
    # and the connection closed (no thread ever waits for the rest of it).
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: t\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{")
        answer = read_until_closed(sock, 5)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    # A client waiting for "100 Continue" (curl, for bodies over 1 KB) gets it at once.
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                     b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
                     b"Content-Length: 2000\r\n\r\n")
        sock.settimeout(2)
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(b" " * 1998 + b"{}")
        answer = read_until_closed(sock, 5)
    assert answer.startswith(b"HTTP/1.1 4"), answer[:80]  # refused (no token), not hung
    # A chunked body is read whole too.
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"2\r\n{}\r\n0\r\n\r\n")
        answer = read_until_closed(sock, 5)
    assert answer.startswith(b"HTTP/1.1 4"), answer[:80]


def test_a_centre_that_cannot_be_built_after_the_fork_is_named_without_a_traceback(tmp_path):
    config = tmp_path / "alley.toml"
    config.write_text(f'[centre]\nname = "T"\nlanes = 4\n[database]\n'
                      f'url = "sqlite:///{tmp_path / "l.sqlite3"}"\n[backup]\nenabled = false\n'
                      '[[feeds]]\nname = "x"\nurl = "socket://127.0.0.1:9"\n'
                      'dialect = "klingon"\nlanes = [1, 2]\n', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "alley_poker.cli", "serve", "--config", str(config),
         "--port", "0"], env={**os.environ, "ALLEY_POKER_COMMISSIONER_PIN": "2468"},
        capture_output=True, text=True, timeout=60)
    said = result.stdout + result.stderr
    assert result.returncode == 3, said
    assert "cannot start: feeds[0].dialect: unknown dialect 'klingon'" in said
    assert "Traceback" not in said
