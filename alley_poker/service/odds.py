"""Live win odds for the screens, computed off the ledger's hot path.

:class:`LiveOdds` listens to the bus.  After every change this process made to a match (a
ball, a ruling, a decision) it takes a copy of the match — the only work done in the thread
that ran the command — and queues it.  The queue keeps only the latest request per match: a
request that a newer one for the same match replaces before it started is dropped unseen.
Worker threads take requests in turn and compute the odds (:func:`alley_poker.odds.win_odds`)
in a pool of processes, so the simulation never competes with the balls for the
interpreter's lock (with ``processes=0`` they compute in the worker thread: tests, tiny
centres).  The result is kept as the match's latest odds and published on the bus, topic
``match:<id>``, kind ``odds``; the web layer pushes it to the kiosks.

>>> import random
>>> from datetime import datetime, timezone
>>> from alley_poker.ledger import commands as c, handle
>>> from alley_poker.service.bus import InProcessBus
>>> state, now = MatchState.empty("m1"), datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
>>> for command in [c.CreateMatch("m1", ["Ann", "Bob"], actor="desk:pat"),
...                 c.ConsentToAnte("Ann", actor="bowler:Ann"),
...                 c.ConsentToAnte("Bob", actor="bowler:Bob"),
...                 c.StartMatch(actor="desk:pat"), c.RecordBall("Ann", 1, 10, actor="feed:1")]:
...     for event in handle(state, command, rng=random.Random(1), now=now):
...         state.apply(event)
>>> bus, seen = InProcessBus(), []
>>> _ = bus.subscribe(lambda topic, message: seen.append((topic, message["kind"])))
>>> odds = LiveOdds(bus, iterations=20, processes=0)
>>> odds.request("m1", state)
>>> odds.wait_idle(10.0)
True
>>> seen, odds.latest("m1")["seq"] == state.seq
([('match:m1', 'odds')], True)
>>> odds.stop()
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from alley_poker.ledger import MatchState
from alley_poker.odds import CentreAverages, win_odds
from alley_poker.service.bus import EventBus

log = logging.getLogger(__name__)


def odds_json(state: MatchState, iterations: int, centre_average: int) -> dict | None:
    """The odds of ``state`` as the screens carry them (runs in a pool process).

    Seeded by the event number, so the same match state always shows the same odds."""
    odds = win_odds(state, iterations=iterations, seed=state.seq,
                    centre=CentreAverages(average=centre_average))
    return None if odds is None else odds.as_json()


class LiveOdds:
    """Latest-only queue of odds requests, worker threads, and the latest odds per match."""

    def __init__(self, bus: EventBus, *, iterations: int = 300, processes: int = 1,
                 centre_average: int = 150, service: Any = None):
        if iterations < 1:
            raise ValueError(f"odds iterations must be at least 1, not {iterations}")
        if not 0 <= processes <= 16:
            raise ValueError(f"odds processes must be 0-16, not {processes}")
        CentreAverages(average=centre_average)  # refuses an impossible average now
        self.bus = bus
        self.iterations = iterations
        self.centre_average = centre_average
        self.service = service
        self.computed = 0
        self.dropped = 0
        self._pending: dict[str, MatchState] = {}
        self._order: deque[str] = deque()
        self._latest: dict[str, dict] = {}
        self._busy = 0
        self._stopped = False
        self._cond = threading.Condition()
        # "spawn": a fork of a process running threads (the web server's) may inherit a
        # lock held by one of them.
        self._pool: Executor | None = (
            ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"))
            if processes else None)
        self._threads = [threading.Thread(target=self._work, name=f"odds-{index}", daemon=True)
                         for index in range(max(processes, 1))]
        for thread in self._threads:
            thread.start()
        self.unsubscribe = (bus.subscribe(self._on_bus_message) if service is not None
                            else None)

    # --- requests ---------------------------------------------------------------------------
    def _on_bus_message(self, topic: str, message: dict[str, Any]) -> None:
        if not topic.startswith("match:") or message.get("kind") != "events":
            return
        if message.get("origin", self.bus.origin) != self.bus.origin:
            return  # the process that ran the command computes its odds
        match_id = topic.split(":", 1)[1]
        state = self.service.shared_state(match_id)
        if state.status in ("new", "open", "void"):
            self.forget(match_id)
            return
        self.request(match_id, state.clone())

    def request(self, match_id: str, state: MatchState) -> None:
        """Queue the odds of ``state`` (a copy nobody else changes), replacing any request
        for the match that has not started yet."""
        with self._cond:
            if match_id in self._pending:
                self.dropped += 1
            else:
                self._order.append(match_id)
            self._pending[match_id] = state
            self._cond.notify()

    def forget(self, match_id: str) -> None:
        with self._cond:
            self._latest.pop(match_id, None)

    def latest(self, match_id: str) -> dict | None:
        """The last odds computed for the match (for an event ``seq`` at most its own)."""
        with self._cond:
            return self._latest.get(match_id)

    # --- work -------------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._order and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                match_id = self._order.popleft()
                state = self._pending.pop(match_id)
                self._busy += 1
            try:
                odds = self._compute(state)
            except Exception:
                log.exception("odds of match %s at #%s failed", match_id, state.seq)
                odds = None
            fresh = False
            with self._cond:
                self._busy -= 1
                self.computed += 1
                if odds is not None:
                    current = self._latest.get(match_id)
                    fresh = current is None or current["seq"] <= odds["seq"]
                    if fresh:
                        self._latest[match_id] = odds
                self._cond.notify_all()
            if odds is not None and fresh:
                self.bus.publish(f"match:{match_id}", {"kind": "odds", "match_id": match_id,
                                                       "odds": odds})

    def _compute(self, state: MatchState) -> dict | None:
        if self._pool is None:
            return odds_json(state, self.iterations, self.centre_average)
        return self._pool.submit(odds_json, state, self.iterations,
                                 self.centre_average).result()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every request so far is computed (tests, benchmarks)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._order and not self._busy, timeout)

    def stop(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
