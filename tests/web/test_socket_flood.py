"""The probe of issue 38, point 1, on the real server: 1,000 idle Socket.IO connections from
one address.

Before the socket ceiling (web.socket_ceiling) every one of them was taken: each held about
four threads of the worker, the pool's threads ran out and every screen read, ``/healthz`` and
any new kiosk socket timed out.  Now the address gets its share and the rest are refused at
once; the kiosks' reads stay fast, a kiosk on another address connects and is pushed its
state, and a paired kiosk and the signed-in tablet on the flooding address still get in.  The
flood's sockets are then cut without a word (RST) and every place is given back.

The flood is cheap on the test's side: raw TCP sockets doing the WebSocket handshake and
Socket.IO's connect by hand, answering the server's pings from one thread.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import resource
import selectors
import socket
import struct
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import socketio

from alley_poker.store.kiosk_devices import KioskDeviceStore
from benchmarks._service_process import (
    BENCH_PIN,
    ServiceProcess,
    children,
    get_ms,
    write_config,
)
from tests.conftest import skip_or_fail
from tests.web.from_address import BrowserAt, socket_from

pytestmark = pytest.mark.slow

FLOOD = 1000  # the probe as it was run
ATTACKER, OTHER = "127.0.0.1", "127.0.0.2"  # loopback answers from any 127/8 source
UPGRADE = (b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: probe\r\n"
           b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def proc_figure(pid: int, name: str) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines()
                if line.startswith(f"{name}:"))


def text_frame(text: bytes) -> bytes:
    """A client's (masked) WebSocket text frame of fewer than 126 bytes."""
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(text)]) + mask + bytes(
        byte ^ mask[i % 4] for i, byte in enumerate(text))


def server_frames(buffer: bytearray) -> list[tuple[int, bytes]]:
    """The whole (unmasked) frames at the start of ``buffer``, taken out of it."""
    frames = []
    while len(buffer) >= 2:
        length, at = buffer[1] & 0x7F, 2
        if length == 126:
            if len(buffer) < 4:
                break
            length, at = struct.unpack(">H", buffer[2:4])[0], 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length, at = struct.unpack(">Q", buffer[2:10])[0], 10
        if len(buffer) < at + length:
            break
        frames.append((buffer[0] & 0x0F, bytes(buffer[at:at + length])))
        del buffer[:at + length]
    return frames


class Flood:
    """``count`` raw Socket.IO connections from ``source``: those the server takes stay open,
    idle (they answer its pings); the refused ones are closed, as a browser would."""

    def __init__(self, host: str, port: int, count: int, source: str = ATTACKER) -> None:
        self.statuses: list[int] = []
        self.kept: list[socket.socket] = []
        self.closed_by_server = 0
        self._buffers: dict[socket.socket, bytearray] = {}
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        pending: dict[socket.socket, bytes] = {}
        for _ in range(count):
            sock = socket.socket()
            sock.bind((source, 0))
            sock.settimeout(10)
            sock.connect((host, port))
            sock.sendall(UPGRADE)
            sock.setblocking(False)
            pending[sock] = b""
            self._selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + 60
        while pending and time.monotonic() < deadline:
            for key, _ in self._selector.select(0.5):
                sock = key.fileobj
                if sock not in pending:
                    continue
                with contextlib.suppress(BlockingIOError):
                    pending[sock] += sock.recv(65536) or b"HTTP/1.1 000 closed\r\n\r\n"
                head, found, rest = pending[sock].partition(b"\r\n\r\n")
                if not found:
                    continue
                del pending[sock]
                status = int(head.split()[1])
                self.statuses.append(status)
                if status == 101:
                    self.kept.append(sock)
                    self._buffers[sock] = bytearray(rest)
                    sock.setblocking(True)
                    sock.sendall(text_frame(b"40"))  # Socket.IO's connect
                    sock.setblocking(False)
                else:
                    self._selector.unregister(sock)
                    sock.close()
        for sock in pending:  # never answered: counted as such
            self.statuses.append(0)
            self.kept.append(sock)
            self._buffers[sock] = bytearray()
        self._ponger = threading.Thread(target=self._answer_pings, daemon=True)
        self._ponger.start()

    def _answer_pings(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(0.2):
                sock = key.fileobj
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._selector.unregister(sock)
                    self.closed_by_server += 1
                    continue
                buffer = self._buffers.setdefault(sock, bytearray())
                buffer += data
                for opcode, payload in server_frames(buffer):
                    if opcode == 1 and payload == b"2":  # Engine.IO's ping
                        with contextlib.suppress(OSError):
                            sock.send(text_frame(b"3"))

    def cut(self) -> None:
        """Every kept socket reset without a word, as a script killed mid-flood leaves them."""
        self._stop.set()
        self._ponger.join()
        for sock in self.kept:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        self._selector.close()


def screen_read_ms(base_url: str, reads: int) -> list[float]:
    took = []
    for _ in range(reads):
        try:
            took.append(get_ms(f"{base_url}/api/v1/lanes/1-2/screen", timeout=5))
        except OSError:
            took.append(5000.0)  # timed out: as slow as the probe let it be
            if took.count(5000.0) >= 3:  # the centre is down: no need to wait out the rest
                return took + [5000.0] * (reads - len(took))
        time.sleep(0.01)
    return took


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def socket_client_from(source: str, base_url: str, headers: dict[str, str] | None = None):
    """A real Socket.IO client whose connection comes from ``source``, and its pushes."""
    client = socket_from(source, base_url, timeout=10, headers=headers)
    pushes: queue.Queue = queue.Queue()
    client.on("state", pushes.put)
    return client, pushes


def tablet_cookie(base_url: str) -> str:
    """The cookies of a tablet signed in with the PIN from the flood's address."""
    tablet = BrowserAt(ATTACKER, base_url)
    status, answer = tablet.sign_in(BENCH_PIN)
    assert status == 302, answer
    return "; ".join(f"{name}={value}" for name, value in tablet.cookies.items())


@pytest.fixture
def served(tmp_path: Path):
    from alley_poker.ledger import commands as c
    from alley_poker.service import open_service

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < FLOOD + 200:
        skip_or_fail(f"{FLOOD} sockets need more open files than the hard limit {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    service = open_service(url)  # a started match on lanes 1-2, and a paired kiosk there
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor="commissioner:t")
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.ConsentToAnte(bowler, actor="commissioner:t"))
    service.execute("m1", c.StartMatch(actor="commissioner:t"))
    devices = KioskDeviceStore(service.repository.store.engine)
    asked = devices.request("1-2")
    assert devices.approve(asked.code, actor="commissioner:t") is not None
    service.repository.store.close()
    config = write_config(tmp_path / "alley.toml", lanes=4, database_url=url)
    process = ServiceProcess(config, tmp_path).start()
    try:
        process.wait_serving(timeout=60)
        yield process, asked.secret
    finally:
        process.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_thousand_idle_sockets_from_one_address_leave_the_centre_serving(served, report):
    process, kiosk_secret = served
    base = process.base_url
    (worker,) = children(process.pid)  # gunicorn's one worker: the centre lives there
    host, port = base.removeprefix("http://").split(":")
    tablet = tablet_cookie(base)
    screen_read_ms(base, 20)  # warm
    threads_before = proc_figure(worker, "Threads")
    p99_before = p99(screen_read_ms(base, 100))

    flood = Flood(host, int(port), FLOOD)
    clients = []
    try:
        threads_during = proc_figure(worker, "Threads")
        rss_during_mb = proc_figure(worker, "VmRSS") / 1024
        took = screen_read_ms(base, 200)
        healthz = _status(f"{base}/healthz")
        taken = flood.statuses.count(101)
        refused = {status: flood.statuses.count(status) for status in set(flood.statuses)
                   if status != 101}
        report(f"socket flood: {FLOOD} from one address, {taken} taken, refused {refused}; "
               f"worker threads {threads_before} → {threads_during}, RSS {rss_during_mb:.0f} "
               f"MB; kiosk read p99 {p99_before:.1f} → {p99(took):.1f} ms; /healthz {healthz}")
        assert p99(took) < max(250.0, p99_before + 250.0), (p99_before, p99(took))
        assert healthz == 200
        assert taken < FLOOD and set(refused) == {429}, flood.statuses

        # A kiosk on another address connects and is pushed the match on its lanes.
        other, pushes = socket_client_from(OTHER, base)
        clients.append(other)
        other.call("join", {"lanes": "1-2"}, timeout=10)
        assert pushes.get(timeout=10)["match_id"] == "m1"
        # On the flooding address an ordinary client is refused, but the paired kiosk and
        # the signed-in tablet get in.
        with pytest.raises(socketio.exceptions.ConnectionError):
            socket_client_from(ATTACKER, base)[0].disconnect()
        kiosk, kiosk_pushes = socket_client_from(
            ATTACKER, base, {"Cookie": f"alley_kiosk={kiosk_secret}"})
        clients.append(kiosk)
        joined = kiosk.call("join", {"lanes": "1-2", "device_token": kiosk_secret},
                            timeout=10)
        assert joined["paired"] is True
        assert kiosk_pushes.get(timeout=10)["match_id"] == "m1"
        desk, _ = socket_client_from(ATTACKER, base, {"Cookie": tablet})
        clients.append(desk)
        threads_during = max(threads_during, proc_figure(worker, "Threads"))
        assert _metric(base, 'alley_socket_refusals_total{reason="address"}') >= FLOOD - taken
    finally:
        for client in clients:
            client.disconnect()
        flood.cut()

    # Cut without a word, every place comes back and every taken socket's own threads end
    # (its reader's, writer's and ping's; the pool keeps its threads for the next requests).
    threads_after = wait_released(base, worker, threads_during - 3 * taken)
    # Open many, kill them, open again: the same again.  (gunicorn's threaded worker keeps
    # the pool threads a burst of requests started, idle, for the next requests.)
    again = Flood(host, int(port), FLOOD)
    threads_again = settled_threads(worker)
    again.cut()
    assert again.statuses.count(101) == taken, again.statuses
    threads_after_again = wait_released(base, worker, threads_again - 3 * taken)
    report(f"socket flood: after the cut, worker threads {threads_after}; a second flood "
           f"{threads_again} → {threads_after_again}")


def settled_threads(worker: int) -> int:
    """The worker's threads once a flood's last answers are made: a loaded host is still
    starting the request pool's threads for the refusals when the flood returns (ci3 read
    the count too early, and the pool's idle threads it kept were counted as leaked)."""
    deadline = time.monotonic() + 15
    seen = proc_figure(worker, "Threads")
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = proc_figure(worker, "Threads")
        if now <= seen:
            break  # no longer growing
        seen = now
    return seen


#: Threads the worker may start on its own while a test waits (the request pool's next
#: thread, a background job's first run): fewer than one socket's three, so a socket that
#: kept its threads still fails the count (a loaded run once ended one above the bound).
LAZY_THREADS = 2


def wait_released(base_url: str, worker: int, threads_at_most: int) -> int:
    """Wait until the ceiling counts no session and the worker's threads are down to
    ``threads_at_most`` (a socket's ping thread sleeps out its 25 s; :data:`LAZY_THREADS`
    more are allowed); its thread count."""
    bound = threads_at_most + LAZY_THREADS
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and (
            _metric(base_url, "alley_socket_sessions") > 0 or
            proc_figure(worker, "Threads") > threads_at_most):
        time.sleep(0.5)
    assert _metric(base_url, "alley_socket_sessions") == 0
    threads = proc_figure(worker, "Threads")
    assert threads <= bound, (threads, threads_at_most, LAZY_THREADS)
    return threads


def _metric(base_url: str, name: str) -> float:
    text = urllib.request.urlopen(f"{base_url}/metrics", timeout=5).read().decode()
    return float(re.search(rf"^{re.escape(name)} (\S+)$", text, re.M).group(1))


def _status(url: str) -> int | str:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except OSError as problem:
        return f"failed ({problem})"
