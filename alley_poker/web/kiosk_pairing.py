"""Who may send a bowler's decision: only a kiosk the commissioner paired, for its own lanes.

A kiosk on its first start asks for pairing over Socket.IO (``pair_request`` ``{"lanes":
"1-2"}``): it receives a device secret, which it keeps, and a six-character code, which it
shows on screen.  The commissioner types the code on the tablet (``POST /api/v1/kiosks/pair``)
and the kiosk is paired for that lane pair; ``DELETE /api/v1/kiosks/<id>`` revokes it at once.

Nobody can push a waiting kiosk's code out (issue 38: 50 requests from fresh sockets used to
evict it).  A waiting request is never dropped for a newer one: when the centre's table is
full (``MAX_PENDING``) the *new* request is refused.  So that a flood cannot hold the table
either, a request is bound to the socket that asked: it lives while that socket is connected
(or the kiosk's next socket joins with its secret, as a kiosk does on every reconnect) and is
withdrawn ``PAIRING_GRACE_S`` after its socket left.  Per network address (the address the
sign-in limits count, ``get_remote_address``) at most ``[kiosks] pairing_per_address``
requests wait at once and ``PAIR_REQUESTS_PER_ADDRESS`` may be made a minute, so fresh sockets
from one address get no fresh allowance; one socket has one request waiting at most (asking
again withdraws its earlier one) and may ask ``PAIR_REQUESTS_PER_WINDOW`` times a minute.
A refused kiosk keeps asking by itself (kiosk.js) and gets its code once there is room.
A kiosk joins with ``{"lanes", "device_token"}``; only a socket that joined with a live
device of the same lanes may ``decide`` (checked again on every decision, so a revocation
takes effect on the next tap).  Decisions are rate-limited per device, and a kiosk's "buy"
spends a bowler's money, so it only asks the desk: the tablet confirms it (the API's ``buy``
command, the commissioner deciding for the bowler).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, jsonify
from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from alley_poker.store.kiosk_devices import KioskDevice, KioskDeviceStore
from alley_poker.web.api_request import API_PREFIX, validated_body
from alley_poker.web.auth import commissioner_actor, commissioner_session_required
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, error_body, revoked_or_not_found
from alley_poker.web.kiosk import centre_lane_pair
from alley_poker.web.schemas import PairKioskBody

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("kiosk_pairing", __name__, url_prefix=API_PREFIX)

#: Decisions one kiosk may send per ``RATE_WINDOW_S``: a bowler taps a few times a frame.
DECISIONS_PER_WINDOW = 20
RATE_WINDOW_S = 60.0
#: Pairing requests one socket may make per minute (a kiosk asks once per start).
PAIR_REQUESTS_PER_WINDOW = 5
#: Pairing requests one network address may make per minute, however many sockets it opens.
PAIR_REQUESTS_PER_ADDRESS = 20
#: Requests one address may have waiting at once (``[kiosks] pairing_per_address``): the kiosks
#: a desk pairs in one go; a later one gets its code as soon as an earlier one is paired.
WAITING_PER_ADDRESS = 4
#: How long a request outlives its socket: a kiosk reconnects within seconds, a restarted
#: server's kiosks within this of its start.
PAIRING_GRACE_S = 120.0


def device_view(device: KioskDevice) -> dict[str, Any]:
    return {"id": device.id, "lanes": device.lanes, "paired": device.paired,
            "paired_at": device.paired_at.isoformat() if device.paired_at else None,
            "paired_by": device.paired_by,
            "revoked_at": device.revoked_at.isoformat() if device.revoked_at else None}


def device_store() -> KioskDeviceStore:
    devices = current_centre().kiosk_devices
    if devices is None:
        raise ApiError(503, "kiosks_unavailable", "kiosk pairing needs the event store's "
                       "database")
    return devices


@api.get("/kiosks")
@commissioner_session_required
def list_kiosks():
    return jsonify({"kiosks": [device_view(device) for device in device_store().list()]})


@api.post("/kiosks/pair")
@commissioner_session_required
def pair_kiosk():
    body = validated_body(PairKioskBody)
    device = device_store().approve(body.code, actor=commissioner_actor() or "commissioner")
    if device is None:
        raise ApiError(404, "not_found", f"no kiosk is waiting with code {body.code!r} (a code "
                       "lasts while its kiosk is connected, an hour at most; reload the kiosk "
                       "for a new one)", "code")
    return jsonify(device_view(device))


@api.delete("/kiosks/<int:device_id>")
@commissioner_session_required
def revoke_kiosk(device_id: int):
    return revoked_or_not_found(device_store().revoke, device_id,
                                f"no paired kiosk {device_id}", "device_id")


@dataclass
class _Waiting:
    """A pairing request this process knows of: who asked, and whether they are still here."""

    address: str | None  # None: it waited before this process started
    sid: str | None
    left_at: float | None  # time.monotonic() its socket left; None while one is connected


class KioskGate:
    """The Socket.IO side: pairing requests, which socket is which paired kiosk, the
    per-device rate limit.  ``devices`` is None when the service has no database (then no
    kiosk can be paired, and no kiosk decides)."""

    def __init__(self, devices: KioskDeviceStore | None, *,
                 per_window: int = DECISIONS_PER_WINDOW, window_s: float = RATE_WINDOW_S,
                 waiting_per_address: int = WAITING_PER_ADDRESS,
                 grace_s: float = PAIRING_GRACE_S):
        self.devices = devices
        # Socket.IO events are no Flask routes, so Flask-Limiter's own library is used as is.
        self._limit = RateLimitItemPerSecond(per_window, max(1, round(window_s)))
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._pair_limit = RateLimitItemPerSecond(PAIR_REQUESTS_PER_WINDOW, 60)
        self._address_pair_limit = RateLimitItemPerSecond(PAIR_REQUESTS_PER_ADDRESS, 60)
        self.waiting_per_address = waiting_per_address
        #: Whether a socket is still connected (the Socket.IO server's; set by the bridge).
        self.is_connected: Callable[[str], bool] = lambda sid: True
        self.grace_s = grace_s
        self._by_sid: dict[str, int] = {}
        self._asked_by_sid: dict[str, int] = {}
        self._lock = threading.Lock()
        # One pairing request at a time, so the counts per address and in the table hold
        # while a request is made (pairing is rare: a kiosk asks once per start).
        self._one_at_a_time = threading.Lock()
        # Requests left from before this start are bound to no socket: their kiosks have
        # the grace from now to come back and join with their secret.
        started = time.monotonic()
        self._waiting: dict[int, _Waiting] = {
            device_id: _Waiting(None, None, started)
            for device_id in (devices.waiting() if devices is not None else [])}

    def pair_request(self, data: Any, sid: str = "", address: str = "") -> dict[str, Any]:
        """A kiosk asks to be paired: its secret and the code it shows.  The socket's
        earlier request, if still waiting, is withdrawn: one waiting request per socket."""
        lanes = data.get("lanes") if isinstance(data, dict) else None
        try:
            centre_lane_pair(lanes if isinstance(lanes, str) else "")
        except ValueError as problem:
            return error_body("bad_request", str(problem), 400, "lanes")[0]
        if self.devices is None:
            return error_body("kiosks_unavailable", "kiosk pairing needs the event store's "
                              "database", 503)[0]
        if not self._limiter.hit(self._pair_limit, "kiosk-pairing", sid):
            return error_body("too_many_requests", f"more than {self._pair_limit.amount} "
                              "pairing requests in a minute from this screen; wait a minute",
                              429)[0]
        if not self._limiter.hit(self._address_pair_limit, "kiosk-pairing-address", address):
            return error_body("too_many_requests", f"more than "
                              f"{self._address_pair_limit.amount} pairing requests in a minute "
                              "from this network address; wait a minute", 429)[0]
        with self._one_at_a_time:
            return self._request(lanes, sid, address)

    def _request(self, lanes: str, sid: str, address: str) -> dict[str, Any]:
        assert self.devices is not None
        self._forget_the_gone()
        with self._lock:
            earlier = self._asked_by_sid.pop(sid, None)
            if earlier is not None:
                self._waiting.pop(earlier, None)
            from_address = sum(1 for each in self._waiting.values() if each.address == address)
        if earlier is not None:
            self.devices.withdraw(earlier)
        if from_address >= self.waiting_per_address:
            return error_body("too_many_requests", f"{from_address} kiosks from this network "
                              "address are already waiting for the desk to pair them: this one "
                              "gets its code once one of them is paired", 429)[0]
        asked = self.devices.request(lanes)
        if asked is None:
            return error_body("too_many_requests", "too many kiosks are waiting for the desk "
                              "to pair them: this one gets its code once one of them is paired "
                              "or gone", 429)[0]
        with self._lock:
            # Asked under the lock: a socket that left while asking is no longer connected
            # by the time its disconnect handler (left) runs, so either it is seen gone here
            # or left() finds its request; its grace runs from now then.
            here = self.is_connected(sid)
            self._waiting[asked.id] = _Waiting(address, sid if here else None,
                                               None if here else time.monotonic())
            if here:
                self._asked_by_sid[sid] = asked.id
        return {"ok": True, "code": asked.code, "device_token": asked.secret,
                "lanes": asked.lanes}

    def _forget_the_gone(self) -> None:
        """Withdraw the requests whose socket left more than the grace ago: only kiosks
        still connected (or just reconnecting) hold a place in the table."""
        cutoff = time.monotonic() - self.grace_s
        still_waiting = set(self.devices.waiting())  # not yet paired, nor an hour old
        with self._lock:
            for device_id in [each for each in self._waiting if each not in still_waiting]:
                del self._waiting[device_id]
            gone = [device_id for device_id, each in self._waiting.items()
                    if each.left_at is not None and each.left_at < cutoff]
            for device_id in gone:
                del self._waiting[device_id]
        for device_id in gone:
            self.devices.withdraw(device_id)

    def joined(self, sid: str, lanes: str, secret: Any) -> bool:
        """A socket joined ``lanes``: True (and remembered) when its device is paired for
        exactly those lanes.  A kiosk still waiting for pairing joins with the secret of its
        request: the request is bound to this socket from now on (see :meth:`waiting`)."""
        device = (self.devices.verify(secret) if self.devices is not None
                  and isinstance(secret, str) else None)
        with self._lock:
            if device is not None and device.lanes == lanes:
                self._by_sid[sid] = device.id
                return True
            self._by_sid.pop(sid, None)
        if self.devices is not None and isinstance(secret, str):
            waiting = self.devices.waiting_with(secret)
            with self._lock:
                if waiting is not None:
                    known = self._waiting.setdefault(waiting, _Waiting(None, sid, None))
                    known.sid, known.left_at = sid, None
                    self._asked_by_sid[sid] = waiting
        return False

    def waiting(self, sid: str) -> bool:
        """True while the socket's kiosk has a request waiting (its code still counts)."""
        with self._lock:
            return sid in self._asked_by_sid

    def left(self, sid: str) -> None:
        # A request the socket left waiting stays for the grace: the kiosk still shows its
        # code, and its next socket joins with the request's secret.
        now = time.monotonic()
        with self._lock:
            self._by_sid.pop(sid, None)
            asked = self._asked_by_sid.pop(sid, None)
            known = self._waiting.get(asked) if asked is not None else None
            if known is not None and known.sid == sid:
                known.sid, known.left_at = None, now

    def device_of(self, sid: str) -> int | None:
        """The id of the paired kiosk a socket joined as (None: not a paired kiosk)."""
        with self._lock:
            return self._by_sid.get(sid)

    def may_decide(self, sid: str) -> dict[str, Any] | None:
        """None when the socket's kiosk may send a decision now, else the error to answer."""
        with self._lock:
            device_id = self._by_sid.get(sid)
        device = (self.devices.get(device_id) if self.devices is not None
                  and device_id is not None else None)
        if device is None or not device.paired:
            return error_body("kiosk_not_paired", "this kiosk is not paired: the commissioner "
                              "pairs it on the tablet with the code the kiosk shows", 401)[0]
        if not self._limiter.hit(self._limit, "kiosk-decisions", str(device.id)):
            return error_body("too_many_requests", f"more than {self._limit.amount} "
                              f"decisions in {self._limit.get_expiry()} s from this kiosk; "
                              "wait a moment", 429)[0]
        return None
