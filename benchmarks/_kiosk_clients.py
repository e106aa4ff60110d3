"""Kiosks for the latency benchmark: real python-socketio clients, websocket transport only.

Each :class:`Kiosk` joins one lane pair (``join {"lanes": "a-b"}``) as a lane-side screen does
and notes, for every ``ball_recorded`` event in a ``match_update``, when it arrived.  The
clients connect in parallel (a connection costs a handshake; 200 of them one after another
would take a while) and share one :class:`Arrivals` book.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import socketio

BallKey = tuple[str, str, int, int, int]  # (match_id, bowler, game, frame, ball)


class Arrivals:
    """When each kiosk received each ball: ``times[key]`` maps a kiosk index to a clock time."""

    def __init__(self) -> None:
        self.times: dict[BallKey, dict[int, float]] = {}
        self.updates = 0
        self._lock = threading.Lock()

    def note(self, kiosk: int, payload: dict, at: float) -> None:
        match_id = payload.get("match_id")
        keys = [(match_id, data["bowler"], data["game"], data["frame"], data["ball"])
                for event in payload.get("events", ()) if event.get("type") == "ball_recorded"
                for data in (event["data"],)]
        with self._lock:
            self.updates += 1
            for key in keys:
                self.times.setdefault(key, {})[kiosk] = at


class Kiosk:
    """One lane-side screen showing lane pair ``lanes`` (e.g. ``"1-2"``)."""

    def __init__(self, index: int, lanes: str, arrivals: Arrivals):
        self.index = index
        self.lanes = lanes
        self.arrivals = arrivals
        self.client = socketio.Client(reconnection=False)
        self.client.on("match_update", self._on_update)

    def _on_update(self, payload: dict) -> None:
        self.arrivals.note(self.index, payload, time.perf_counter())

    def connect(self, base_url: str) -> None:
        self.client.connect(base_url, transports=["websocket"], wait_timeout=30)
        answer = self.client.call("join", {"lanes": self.lanes}, timeout=30)
        if not answer or not answer.get("ok"):
            raise RuntimeError(f"kiosk {self.index} could not join lanes {self.lanes}: {answer}")

    def disconnect(self) -> None:
        self.client.disconnect()


def connect_kiosks(base_url: str, pairs: Sequence[str], count: int,
                   arrivals: Arrivals) -> list[Kiosk]:
    """``count`` kiosks spread evenly over ``pairs`` (round robin), all connected and joined."""
    kiosks = [Kiosk(index, pairs[index % len(pairs)], arrivals) for index in range(count)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(lambda kiosk: kiosk.connect(base_url), kiosks))
    return kiosks


def disconnect_kiosks(kiosks: Sequence[Kiosk]) -> None:
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(lambda kiosk: kiosk.disconnect(), kiosks))
