"""Kiosks for the latency benchmark: real python-socketio clients, websocket transport only.

Each kiosk joins one lane pair (``join {"lanes": "a-b"}``) as a lane-side screen does and
notes, for every ``ball_recorded`` event in a ``match_update``, when it arrived (and the
event's ``seq``), and for every ``match_odds`` message when it arrived, the ``seq`` the odds
describe and their iterations.  :class:`KioskFleet` spreads the kiosks over client processes
(and over the web processes of a scaled-out centre); in each, they run as
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
    """When each kiosk received each ball: ``times[key]`` maps a kiosk index to a clock time,
    ``seqs[key]`` is the ball's event number; ``odds[(kiosk, match_id)]`` lists the
    ``(time, seq, iterations)`` of every ``match_odds`` that kiosk received, in order."""

    def __init__(self) -> None:
        self.times: dict[BallKey, dict[int, float]] = {}
        self.seqs: dict[BallKey, int] = {}
        self.odds: dict[tuple[int, str], list[tuple[float, int, int]]] = {}
        self.updates = 0
        self._lock = threading.Lock()

    def note(self, kiosk: int, payload: dict, at: float) -> None:
        match_id = payload.get("match_id")
        keys = [((match_id, data["bowler"], data["game"], data["frame"], data["ball"]),
                 event.get("seq"))
                for event in payload.get("events", ()) if event.get("type") == "ball_recorded"
                for data in (event["data"],)]
        with self._lock:
            self.updates += 1
            for key, seq in keys:
                self.times.setdefault(key, {})[kiosk] = at
                self.seqs[key] = seq

    def note_odds(self, kiosk: int, payload: dict, at: float) -> None:
        odds = payload.get("odds") or {}
        with self._lock:
            self.odds.setdefault((kiosk, payload.get("match_id")), []).append(
                (at, odds.get("seq", -1), odds.get("iterations", 0)))

    def merge(self, times: dict, seqs: dict, odds: dict, updates: int) -> None:
        self.updates += updates
        self.seqs.update(seqs)
        self.odds.update(odds)
        for key, seen in times.items():
            self.times.setdefault(key, {}).update(seen)


def _kiosk_process(assignments: list[tuple[int, str, str]], ready, stop, results) -> None:
    """One client process: connect its kiosks, say so, wait for ``stop``, send the arrivals.

    The kiosks are python-socketio ``AsyncClient``s on one asyncio loop: a threaded ``Client``
    costs three threads per kiosk, and 200 of them switching under one interpreter lock cost
    the load generator more CPU than the service it measures.
    """
    import asyncio

    asyncio.run(_run_kiosks(assignments, ready, stop, results))


async def _run_kiosks(assignments: list[tuple[int, str, str]], ready, stop, results) -> None:
    import asyncio
    import gc

    arrivals = Arrivals()

    async def connect(index: int, base_url: str, lanes: str) -> socketio.AsyncClient:
        client = socketio.AsyncClient(reconnection=False)

        async def on_update(payload: dict) -> None:
            arrivals.note(index, payload, time.perf_counter())

        async def on_odds(payload: dict) -> None:
            arrivals.note_odds(index, payload, time.perf_counter())

        client.on("match_update", on_update)
        client.on("match_odds", on_odds)
        await client.connect(base_url, transports=["websocket"], wait_timeout=30)
        answer = await client.call("join", {"lanes": lanes}, timeout=30)
        if not answer or not answer.get("ok"):
            raise RuntimeError(f"kiosk {index} could not join lanes {lanes}: {answer}")
        return client

    try:
        clients = await asyncio.gather(*(connect(index, url, lanes)
                                         for index, url, lanes in assignments))
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
    results.put((arrivals.times, arrivals.seqs, arrivals.odds, arrivals.updates, busy))
    await asyncio.gather(*(client.disconnect() for client in clients),
                         return_exceptions=True)


class KioskFleet:
    """Kiosks spread over ``processes`` client processes, so that decoding hundreds of
    updates a second is not queued behind one interpreter's lock.  Arrival times are
    ``time.perf_counter()`` — CLOCK_MONOTONIC, the same clock in every process on Linux.

    Kiosk ``i`` watches pair ``i mod pairs`` and connects to web process
    ``(i div pairs) mod len(urls)``: a pair's kiosks alternate between the web processes, so
    every ball has to reach each of them before it counts as delivered."""

    def __init__(self, urls: str | Sequence[str], pairs: Sequence[str], count: int,
                 processes: int):
        import multiprocessing

        urls = [urls] if isinstance(urls, str) else list(urls)
        context = multiprocessing.get_context("spawn")
        self.lanes_of = {index: pairs[index % len(pairs)] for index in range(count)}
        self.url_of = {index: urls[(index // len(pairs)) % len(urls)] for index in range(count)}
        self._stop = context.Event()
        self._ready = context.Queue()
        self._results = context.Queue()
        self._processes = []
        for worker in range(processes):
            assignments = [(index, self.url_of[index], lanes)
                           for index, lanes in self.lanes_of.items()
                           if index % processes == worker]
            if assignments:
                self._processes.append(context.Process(
                    target=_kiosk_process, daemon=True,
                    args=(assignments, self._ready, self._stop, self._results)))
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
            times, seqs, odds, updates, busy = self._results.get(timeout=120)
            merged.merge(times, seqs, odds, updates)
            self.cpu_pct += 100 * busy
        return merged

    def close(self) -> None:
        self._stop.set()
        for process in self._processes:
            process.join(30)
            if process.is_alive():
                process.kill()
