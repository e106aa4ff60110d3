"""The production server's request deadlines (``alley_poker.serving.http_timeouts``) on a real
socket: an idle connection and one trickling its headers are closed; a kiosk's WebSocket,
quiet for longer than the idle limit, is not."""

from __future__ import annotations

import socket
import time

import pytest

from alley_poker.serving import http_timeouts
from alley_poker.serving.centre_servers import HttpThread
from tests.web.test_sockets import KioskClient


@pytest.fixture
def guarded_server(app, monkeypatch):
    monkeypatch.setattr(http_timeouts, "IDLE_TIMEOUT_S", 0.5)
    monkeypatch.setattr(http_timeouts, "HEADER_DEADLINE_S", 1.5)
    server = HttpThread(app, "127.0.0.1", 0)
    server.start()
    yield server
    server.stop()


def closed_within(conn: socket.socket, seconds: float, *, trickle: bool = False) -> float:
    """Seconds until the server closed ``conn`` (sending a byte every 0.2 s if ``trickle``)."""
    started = time.monotonic()
    conn.settimeout(0.2)
    while time.monotonic() - started < seconds:
        try:
            if trickle:
                conn.sendall(b"a")
            if conn.recv(1024) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - started
    raise AssertionError(f"the server kept the connection open for {seconds} s")


def test_an_idle_connection_is_closed(guarded_server):
    with socket.create_connection(("127.0.0.1", guarded_server.port)) as conn:
        assert closed_within(conn, 5) < 3


def test_a_connection_trickling_its_headers_is_closed_at_the_deadline(guarded_server):
    with socket.create_connection(("127.0.0.1", guarded_server.port)) as conn:
        conn.sendall(b"GET /api/v1/matches HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        assert closed_within(conn, 6, trickle=True) < 4


def test_a_quiet_kiosk_websocket_outlives_the_idle_limit(guarded_server):
    kiosk = KioskClient(guarded_server.base_url)
    try:
        assert kiosk.join_answers[0]["ok"]
        time.sleep(2.0)  # four idle limits, two header deadlines
        assert kiosk.client.connected
        assert kiosk.client.call("join", {"lanes": "1-2"}, timeout=5)["ok"] is True
    finally:
        kiosk.close()


def test_requests_still_work_through_the_guard(guarded_server):
    import urllib.request

    with urllib.request.urlopen(f"{guarded_server.base_url}/api/v1/matches", timeout=5) as r:
        assert r.status == 200
