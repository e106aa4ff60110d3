"""Clients that come from a chosen loopback address (127.0.0.2, 127.0.0.3, ...), so one test
machine can be a kiosk, a tablet and twenty guessers on the centre's Wi-Fi at once: the
server sees each as the network address it limits (Linux answers all of 127.0.0.0/8).

:func:`socket_from` is a real python-socketio client whose websocket is opened from the
address; :class:`BrowserAt` a minimal cookie-keeping HTTP client (http.client, whose
connections take a ``source_address``), enough for the tablet's sign-in form.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path

import socketio

from benchmarks._service_process import ServiceProcess, write_config
from tests.web.conftest import csrf_token_from


def serving(workdir: Path, lanes: int) -> Iterator[ServiceProcess]:
    """``alley-poker serve`` (gunicorn, a SQLite ledger in ``workdir``) while the test runs:
    the body of a fixture (``yield from serving(tmp_path, 4)``)."""
    config = write_config(workdir / "alley.toml", lanes=lanes,
                          database_url=f"sqlite:///{workdir / 'alley.sqlite3'}")
    process = ServiceProcess(config, workdir).start()
    try:
        process.wait_serving(timeout=90)
        yield process
    finally:
        process.stop()


def _host_port(base_url: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(base_url)
    return parts.hostname or "127.0.0.1", parts.port or 80


def socket_from(address: str, base_url: str, timeout: float = 20,
                headers: dict[str, str] | None = None) -> socketio.Client:
    """A Socket.IO client connected to ``base_url`` from ``address`` (websocket only),
    its handshake carrying ``headers`` (a kiosk's or tablet's cookies)."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.bind((address, 0))
    raw.settimeout(timeout)
    raw.connect(_host_port(base_url))
    client = socketio.Client(reconnection=False, websocket_extra_options={"socket": raw})
    client.connect(base_url, transports=["websocket"], headers=headers or {},
                   wait_timeout=timeout)
    return client


class BrowserAt:
    """A browser at ``address``: keeps its cookies (``forget()`` throws them away)."""

    def __init__(self, address: str, base_url: str, timeout: float = 30):
        self.address = address
        self.host, self.port = _host_port(base_url)
        self.timeout = timeout
        self.cookies: dict[str, str] = {}

    def forget(self) -> None:
        self.cookies.clear()

    def request(self, method: str, path: str, body: dict[str, str] | None = None,
                headers: dict[str, str] | None = None,
                json_body: object = None) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout,
                                                source_address=(self.address, 0))
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        encoded = None
        if body is not None:
            encoded = urllib.parse.urlencode(body)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            encoded = json.dumps(json_body)
            sent["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=encoded, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            return response.status, dict(response.headers), text
        finally:
            connection.close()

    def sign_in(self, pin: str) -> tuple[int, str]:
        """Open the sign-in page, then send ``pin``: (status, page) of the sign-in's answer."""
        _status, _headers, page = self.request("GET", "/commissioner")
        status, _headers, answer = self.request(
            "POST", "/commissioner/sign-in", {"pin": pin, "csrf_token": csrf_token_from(page)})
        return status, answer
