"""Kiosks for the latency benchmark: real python-socketio clients, websocket transport only.

Each kiosk joins one lane pair (``join {"lanes": "a-b"}``) as a lane-side screen does and
notes, for every ``ball_recorded`` event in a ``match_update``, when it arrived.
:class:`KioskFleet` spreads the kiosks over client processes; in each, they run as
``socketio.AsyncClient``s on one asyncio loop, connect in parallel and share one
:class:`Arrivals` book, sent back to the benchmark when it stops them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

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


def _kiosk_process(base_url: str, assignments: list[tuple[int, str]], ready, stop, results
                   ) -> None:
    """One client process: connect its kiosks, say so, wait for ``stop``, send the arrivals.

    The kiosks are python-socketio ``AsyncClient``s on one asyncio loop: a threaded ``Client``
    costs three threads per kiosk, and 200 of them switching under one interpreter lock cost
    the load generator more CPU than the service it measures.
    """
    import asyncio

    asyncio.run(_run_kiosks(base_url, assignments, ready, stop, results))


async def _run_kiosks(base_url: str, assignments: list[tuple[int, str]], ready, stop,
                      results) -> None:
    import asyncio
    import gc

    arrivals = Arrivals()

    async def connect(index: int, lanes: str) -> socketio.AsyncClient:
        client = socketio.AsyncClient(reconnection=False)

        async def on_update(payload: dict) -> None:
            arrivals.note(index, payload, time.perf_counter())

        client.on("match_update", on_update)
        await client.connect(base_url, transports=["websocket"], wait_timeout=30)
        answer = await client.call("join", {"lanes": lanes}, timeout=30)
        if not answer or not answer.get("ok"):
            raise RuntimeError(f"kiosk {index} could not join lanes {lanes}: {answer}")
        return client

    try:
        clients = await asyncio.gather(*(connect(index, lanes) for index, lanes in assignments))
    except Exception as error:
        ready.put(f"{type(error).__name__}: {error}")
        return
    # The load generator's own collector pauses would count against the service.
    gc.collect()
    gc.freeze()
    ready.put("ok")
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.get_running_loop().run_in_executor(None, stop.wait)
    busy = (time.process_time() - cpu) / (time.perf_counter() - wall)
    results.put((arrivals.times, arrivals.updates, busy))
    await asyncio.gather(*(client.disconnect() for client in clients),
                         return_exceptions=True)


class KioskFleet:
    """Kiosks spread over ``processes`` client processes, so that decoding hundreds of
    updates a second is not queued behind one interpreter's lock.  Arrival times are
    ``time.perf_counter()`` — CLOCK_MONOTONIC, the same clock in every process on Linux."""

    def __init__(self, base_url: str, pairs: Sequence[str], count: int, processes: int):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.lanes_of = {index: pairs[index % len(pairs)] for index in range(count)}
        self._stop = context.Event()
        self._ready = context.Queue()
        self._results = context.Queue()
        self._processes = []
        for worker in range(processes):
            assignments = [(index, lanes) for index, lanes in self.lanes_of.items()
                           if index % processes == worker]
            if assignments:
                self._processes.append(context.Process(
                    target=_kiosk_process, daemon=True,
                    args=(base_url, assignments, self._ready, self._stop, self._results)))
        for process in self._processes:
            process.start()
        for _ in self._processes:
            answer = self._ready.get(timeout=180)
            if answer != "ok":
                self.close()
                raise RuntimeError(f"a kiosk process could not connect: {answer}")

    def collect(self, wait_s: float) -> Arrivals:
        """Stop the kiosks after ``wait_s`` seconds more and gather what they received
        (``cpu_pct`` then holds the kiosk processes' CPU use while connected, summed)."""
        time.sleep(wait_s)
        self._stop.set()
        merged = Arrivals()
        self.cpu_pct = 0.0
        for _ in self._processes:
            times, updates, busy = self._results.get(timeout=120)
            merged.updates += updates
            self.cpu_pct += 100 * busy
            for key, seen in times.items():
                merged.times.setdefault(key, {}).update(seen)
        return merged

    def close(self) -> None:
        self._stop.set()
        for process in self._processes:
            process.join(30)
            if process.is_alive():
                process.kill()
