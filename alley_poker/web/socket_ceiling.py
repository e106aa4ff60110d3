"""A ceiling on open Socket.IO connections: per client address and in all, with room kept for
the centre's own devices.

Every open Socket.IO connection costs the server for as long as it stays open (on the threaded
worker a WebSocket holds about four threads: the pool's, its reader, its writer and its ping),
so a script on the centre's Wi-Fi that opens a thousand idle ones would leave nothing for the
kiosks' reads.  A new Engine.IO session (a request to ``/socket.io/`` without a ``sid``: the
WebSocket a kiosk, tablet or phone opens, or a long-polling handshake) is therefore admitted or
refused here, in WSGI middleware in front of Socket.IO, before Engine.IO makes a session,
upgrades to a WebSocket or starts a thread (a refusal takes the worker's request thread for a
moment, as any request does, and holds nothing after its answer):

- a client address (:func:`~alley_poker.web.client_address.client_address`, the same one the
  sign-in limits count by) may hold ``[sockets] per_address`` sessions; one more is refused
  ``429`` with ``Retry-After``;
- the centre holds at most ``in_all`` sessions, of which the last
  ``kept_for_known_devices`` are kept for *known devices*; beyond that a session is refused
  ``503`` with ``Retry-After``.

A known device is a paired kiosk (its device token, which the kiosk page sends in the
``alley_kiosk`` cookie scoped to ``/socket.io/``) or the commissioner's tablet (signed in, or
holding the *known device* cookie of :mod:`alley_poker.web.sign_in_limits`).  A known device is
not held by the per-address cap and may use the kept room, so a flood from the address a
paired kiosk or the desk's tablet shares cannot lock it out.  A bowler's phone link is not a
known device: every guest bowler holds one, so it vouches for nobody; a phone is an ordinary
client, far below its address's cap.  Who is known is only asked once an ordinary client
would be refused, so the everyday admission is a counter under a lock.

A session is counted from its admission to its end: bound to its Engine.IO ``sid`` at
Engine.IO's ``connect`` and released at its ``disconnect`` (a client gone without a word is
ended by Socket.IO's ping timeout), or at once when Engine.IO never made it a session.  The
browser's WebSocket cannot read a refusal's status; the pages' Socket.IO clients take it as a
failed connection, show "Reconnecting…" and try again with their back-off.  Refusals are
counted in ``/metrics`` (``alley_socket_refusals_total{reason}``, :mod:`alley_poker.web.metrics`).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from flask import Flask

from alley_poker.config import SocketsConfig
from alley_poker.web.centre_access import centre_of
from alley_poker.web.client_address import client_address
from alley_poker.web.errors import error_body

#: The kiosk page's cookie holding its device token, sent only to ``/socket.io/``.
KIOSK_COOKIE = "alley_kiosk"
#: Where the admitted session's slot waits for Engine.IO's ``connect`` in the WSGI environ.
SLOT_KEY = "alley_poker.socket_slot"
#: Seconds a refused client is told to wait (the pages' Socket.IO back-off is 1-3 s anyway).
RETRY_AFTER_S = 5


@dataclass(frozen=True)
class SocketLimits:
    """How many Socket.IO sessions: per client address, in all, and kept for known devices."""

    per_address: int = 20
    in_all: int = 600
    kept_for_known: int = 100

    def __post_init__(self) -> None:
        if self.per_address < 1 or self.in_all < 1 or self.kept_for_known < 0:
            raise ValueError("socket limits must be positive (kept_for_known may be 0)")
        if self.kept_for_known >= self.in_all:
            raise ValueError(f"kept_for_known ({self.kept_for_known}) must be less than "
                             f"in_all ({self.in_all})")

    @classmethod
    def from_config(cls, sockets: SocketsConfig) -> SocketLimits:
        """The limits ``[sockets]`` of alley.toml sets."""
        return cls(per_address=sockets.per_address, in_all=sockets.in_all,
                   kept_for_known=sockets.kept_for_known_devices)


class Slot:
    """One admitted session's place under the ceiling, released exactly once."""

    __slots__ = ("address", "bound", "known", "released")

    def __init__(self, address: str, known: bool) -> None:
        self.address = address
        self.known = known
        self.bound = False  # Engine.IO made it a session; its disconnect releases it
        self.released = False


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str  # "address" or "centre": the label in /metrics
    message: str


class SocketCeiling:
    """The counts: open sessions in all and per address (known devices' apart), refusals."""

    def __init__(self, limits: SocketLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._open = 0
        self._per_address: Counter[str] = Counter()  # ordinary clients' sessions only
        self._sessions: dict[str, Slot] = {}
        self.refused: Counter[str] = Counter()

    @property
    def open_sessions(self) -> int:
        return self._open

    def admit(self, address: str, is_known: Callable[[], bool]) -> Slot | Refusal:
        """A slot for a new session from ``address``, or why not.  ``is_known`` is asked only
        when an ordinary client would be refused (it may read the database)."""
        limits = self.limits
        with self._lock:
            address_full = self._per_address[address] >= limits.per_address
            if not address_full and self._open < limits.in_all - limits.kept_for_known:
                return self._take(address, known=False)
        known = is_known()
        with self._lock:
            if known and self._open < limits.in_all:
                return self._take(address, known=True)
            if known or not address_full:
                self.refused["centre"] += 1
                return Refusal(503, "centre", "The centre has as many live connections as it "
                               "can take; this screen connects as soon as one ends.")
            self.refused["address"] += 1
            return Refusal(429, "address", f"Too many live connections from {address} "
                           f"(at most {limits.per_address}); close some and try again.")

    def _take(self, address: str, *, known: bool) -> Slot:
        self._open += 1
        if not known:
            self._per_address[address] += 1
        return Slot(address, known)

    def release(self, slot: Slot) -> None:
        with self._lock:
            if slot.released:
                return
            slot.released = True
            self._open -= 1
            if not slot.known:
                self._per_address[slot.address] -= 1
                if self._per_address[slot.address] <= 0:
                    del self._per_address[slot.address]

    def bind(self, sid: str, slot: Slot) -> None:
        """Engine.IO made the slot's session ``sid``: its disconnect releases the slot."""
        with self._lock:
            slot.bound = True
            self._sessions[sid] = slot

    def session_ended(self, sid: str) -> None:
        with self._lock:
            slot = self._sessions.pop(sid, None)
        if slot is not None:
            self.release(slot)


class CeilingMiddleware:
    """WSGI middleware in front of Socket.IO's: admits or refuses each new session."""

    def __init__(self, app: Any, ceiling: SocketCeiling, is_known: Callable[[dict], bool],
                 path: str = "/socket.io") -> None:
        self.app = app
        self.ceiling = ceiling
        self.is_known = is_known
        self.path = "/" + path.strip("/")

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if not environ.get("PATH_INFO", "").startswith(self.path) or \
                "sid" in parse_qs(environ.get("QUERY_STRING", "")):
            return self.app(environ, start_response)  # not a new session: already counted
        admitted = self.ceiling.admit(client_address(environ), lambda: self.is_known(environ))
        if isinstance(admitted, Refusal):
            return _refuse(admitted, start_response)
        environ[SLOT_KEY] = admitted
        try:
            return self.app(environ, start_response)
        finally:
            if not admitted.bound:  # refused by Engine.IO, or its handshake failed
                self.ceiling.release(admitted)


def _refuse(refusal: Refusal, start_response: Any) -> list[bytes]:
    body, status = error_body("too_many_sockets", refusal.message, refusal.status)
    data = json.dumps(body).encode()
    start_response(f"{status} {'Too Many Requests' if status == 429 else 'Service Unavailable'}",
                   [("Content-Type", "application/json"), ("Content-Length", str(len(data))),
                    ("Retry-After", str(RETRY_AFTER_S)), ("Cache-Control", "no-store")])
    return [data]


def known_device(app: Flask, environ: dict[str, Any]) -> bool:
    """True for a paired kiosk's handshake or the commissioner's tablet's (see the module)."""
    from alley_poker.web.auth import is_commissioner
    from alley_poker.web.sign_in_limits import known_device as known_tablet

    with app.request_context(environ):
        from flask import request

        kiosks = centre_of(app).kiosk_devices
        token = request.cookies.get(KIOSK_COOKIE)
        if token and kiosks is not None and kiosks.verify(token) is not None:
            return True
        return is_commissioner() or known_tablet()


def install_socket_ceiling(app: Flask, socketio: Any, limits: SocketLimits) -> SocketCeiling:
    """Put the ceiling in front of ``socketio`` (Flask-SocketIO's middleware, already in
    ``app.wsgi_app``) and count its Engine.IO sessions' ends."""
    ceiling = SocketCeiling(limits)
    eio = socketio.server.eio
    on_connect, on_disconnect = eio.handlers["connect"], eio.handlers["disconnect"]

    def connect(sid: str, environ: dict[str, Any]) -> Any:
        accepted = on_connect(sid, environ)
        slot = environ.get(SLOT_KEY)
        if slot is not None and accepted in (None, True):  # as Engine.IO reads it
            ceiling.bind(sid, slot)
        return accepted

    def disconnect(sid: str, *reason: Any) -> Any:
        try:
            return on_disconnect(sid, *reason)
        finally:
            ceiling.session_ended(sid)

    eio.on("connect", connect)
    eio.on("disconnect", disconnect)
    app.wsgi_app = CeilingMiddleware(app.wsgi_app, ceiling,
                                     lambda environ: known_device(app, environ),
                                     path=socketio.server_options.get("path", "socket.io"))
    app.extensions["socket_ceiling"] = ceiling
    return ceiling
