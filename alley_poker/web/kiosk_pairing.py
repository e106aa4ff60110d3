"""Who may send a bowler's decision: only a kiosk the commissioner paired, for its own lanes.

A kiosk on its first start asks for pairing over Socket.IO (``pair_request`` ``{"lanes":
"1-2"}``): it receives a device secret, which it keeps, and a six-character code, which it
shows on screen.  The commissioner types the code on the tablet (``POST /api/v1/kiosks/pair``)
and the kiosk is paired for that lane pair; ``DELETE /api/v1/kiosks/<id>`` revokes it at once.
One socket has one request waiting at most: asking again withdraws its earlier one, and
asking more than ``PAIR_REQUESTS_PER_WINDOW`` times a minute is refused, so one anonymous
socket cannot crowd out the real kiosks (the store drops the oldest waiting request when a
centre's table is full).
A kiosk joins with ``{"lanes", "device_token"}``; only a socket that joined with a live
device of the same lanes may ``decide`` (checked again on every decision, so a revocation
takes effect on the next tap).  Decisions are rate-limited per device, and a kiosk's "buy"
spends a bowler's money, so it only asks the desk: the tablet confirms it (the API's ``buy``
command, the commissioner deciding for the bowler).
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, current_app, jsonify
from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from alley_poker.store.kiosk_devices import KioskDevice, KioskDeviceStore
from alley_poker.web.api_request import API_PREFIX, validated_body
from alley_poker.web.auth import commissioner_actor, tablet_required
from alley_poker.web.errors import ApiError, error_body
from alley_poker.web.kiosk import centre_lane_pair
from alley_poker.web.schemas import PairKioskBody

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("kiosk_pairing", __name__, url_prefix=API_PREFIX)

#: Decisions one kiosk may send per ``RATE_WINDOW_S``: a bowler taps a few times a frame.
DECISIONS_PER_WINDOW = 20
RATE_WINDOW_S = 60.0
#: Pairing requests one socket may make per minute (a kiosk asks once per start).
PAIR_REQUESTS_PER_WINDOW = 5


def device_view(device: KioskDevice) -> dict[str, Any]:
    return {"id": device.id, "lanes": device.lanes, "paired": device.paired,
            "paired_at": device.paired_at.isoformat() if device.paired_at else None,
            "paired_by": device.paired_by,
            "revoked_at": device.revoked_at.isoformat() if device.revoked_at else None}


def device_store() -> KioskDeviceStore:
    devices = current_app.extensions.get("kiosk_devices")
    if devices is None:
        raise ApiError(503, "kiosks_unavailable", "kiosk pairing needs the event store's "
                       "database")
    return devices


@api.get("/kiosks")
@tablet_required
def list_kiosks():
    return jsonify({"kiosks": [device_view(device) for device in device_store().list()]})


@api.post("/kiosks/pair")
@tablet_required
def pair_kiosk():
    body = validated_body(PairKioskBody)
    device = device_store().approve(body.code, actor=commissioner_actor() or "commissioner")
    if device is None:
        raise ApiError(404, "not_found", f"no kiosk is waiting with code {body.code!r} (codes "
                       "last an hour; restart the kiosk for a new one)", "code")
    return jsonify(device_view(device))


@api.delete("/kiosks/<int:device_id>")
@tablet_required
def revoke_kiosk(device_id: int):
    if device_id >= 2**63 or not device_store().revoke(device_id):
        raise ApiError(404, "not_found", f"no paired kiosk {device_id}", "device_id")
    return "", 204


class KioskGate:
    """The Socket.IO side: pairing requests, which socket is which paired kiosk, the
    per-device rate limit.  ``devices`` is None when the service has no database (then no
    kiosk can be paired, and no kiosk decides)."""

    def __init__(self, devices: KioskDeviceStore | None, *,
                 per_window: int = DECISIONS_PER_WINDOW, window_s: float = RATE_WINDOW_S):
        self.devices = devices
        # Socket.IO events are no Flask routes, so Flask-Limiter's own library is used as is.
        self._limit = RateLimitItemPerSecond(per_window, max(1, round(window_s)))
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._pair_limit = RateLimitItemPerSecond(PAIR_REQUESTS_PER_WINDOW, 60)
        self._by_sid: dict[str, int] = {}
        self._asked_by_sid: dict[str, int] = {}
        self._lock = threading.Lock()

    def pair_request(self, data: Any, sid: str = "") -> dict[str, Any]:
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
        asked = self.devices.request(lanes)
        with self._lock:
            earlier = self._asked_by_sid.pop(sid, None)
            self._asked_by_sid[sid] = asked.id
        if earlier is not None:
            self.devices.withdraw(earlier)
        return {"ok": True, "code": asked.code, "device_token": asked.secret,
                "lanes": asked.lanes}

    def joined(self, sid: str, lanes: str, secret: Any) -> bool:
        """A socket joined ``lanes``: True (and remembered) when its device is paired for
        exactly those lanes."""
        device = (self.devices.verify(secret) if self.devices is not None
                  and isinstance(secret, str) else None)
        with self._lock:
            if device is not None and device.lanes == lanes:
                self._by_sid[sid] = device.id
                return True
            self._by_sid.pop(sid, None)
            return False

    def left(self, sid: str) -> None:
        # A request the socket left waiting stays: the kiosk still shows its code.
        with self._lock:
            self._by_sid.pop(sid, None)
            self._asked_by_sid.pop(sid, None)

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
