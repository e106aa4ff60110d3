"""Live win odds for the screens, computed off the ledger's hot path.

:class:`LiveOdds` listens to the bus.  After every change this process made to a match (a
ball, a ruling, a decision) it takes a copy of the match — the only work done in the thread
that ran the command — and queues it.  The queue keeps only the latest request per match: a
newer request for the same match replaces the older one, and whatever is still being
computed for the older one is thrown away when it comes back.

The odds come in steps, so a screen gets them at once and they then settle: the **first
estimate**, one chunk of runs per process of the pool, then **refinement**, more chunks while
no newer request for the match arrives, published each time the runs so far double, until
they have **settled** (``settled: true``).  A match state's job — its chunks' sizes, their runs
counted, when its odds are shown and when they have settled — is
:class:`~alley_poker.service.odds_job.OddsJob`.  First estimates of new balls always go
before any refinement, and the oldest request is refined first.  A state whose last event
changed nothing the odds are made from gets a settled state's odds at once, for no run
(:mod:`alley_poker.service.odds_reuse`).

Worker threads hand each chunk (:func:`alley_poker.service.odds_pool.odds_chunk`: the fast
engine with a seed of its own, whose runs' balls each pool process keeps from one ball to the
next, so a ball's odds start warm; once only the cards are left, the odds are enumerated
exactly and settle at once) to a pool of processes, so the simulation never
competes with the balls for the interpreter's lock (with ``processes=0`` a thread computes
them: tests, tiny centres).  With ``shared`` (``[odds] shared`` in a scaled-out centre) more
threads hand chunks to helper processes through the centre's Redis, one per live helper,
beside the pool (:mod:`alley_poker.service.odds_hand_off`).

Every publication is kept as the match's latest odds and published on the bus, topic
``match:<id>``, kind ``odds``; the web layer pushes it to the kiosks.

>>> import random
>>> from datetime import datetime, timezone
>>> from alley_poker.ledger import commands as c, handle
>>> from alley_poker.service.bus import InProcessBus
>>> state, now = MatchState.empty("m1"), datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
>>> for command in [c.CreateMatch("m1", ["Ann", "Bob"], actor="commissioner:pat"),
...                 c.ConsentToAnte("Ann", actor="bowler:Ann"),
...                 c.ConsentToAnte("Bob", actor="bowler:Bob"),
...                 c.StartMatch(actor="commissioner:pat"),
...                 c.RecordBall("Ann", 1, 10, actor="feed:1")]:
...     for event in handle(state, command, rng=random.Random(1), now=now):
...         state.apply(event)
>>> bus, seen = InProcessBus(), []
>>> _ = bus.subscribe(lambda topic, message: seen.append((topic, message["kind"])))
>>> odds = LiveOdds(bus, iterations=40, first_iterations=10, processes=0)
>>> odds.request("m1", state)
>>> odds.wait_idle(10.0)
True
>>> seen    # the first estimate (10 runs), then 20, then settled at 40
[('match:m1', 'odds'), ('match:m1', 'odds'), ('match:m1', 'odds')]
>>> latest = odds.latest("m1")
>>> latest["seq"] == state.seq, latest["iterations"], latest["settled"]
(True, 40, True)
>>> odds.stop()
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from alley_poker.ledger import MatchState
from alley_poker.odds import ENGINES, CentreAverages, compiled
from alley_poker.odds.correction import Correction, correct_odds
from alley_poker.odds.stopping import SETTLED_ERROR
from alley_poker.service.bus import EventBus
from alley_poker.service.odds_correction import night_of
from alley_poker.service.odds_hand_off import HelperHandOff
from alley_poker.service.odds_helpers import SharedChunks
from alley_poker.service.odds_history import CentreKnowledge
from alley_poker.service.odds_job import (
    OddsJob,
    enumerated_odds,
    exact_odds,
    first_chunk_size,
    guess_run_seconds,
)
from alley_poker.service.odds_pool import odds_chunk, start_pool_process
from alley_poker.service.odds_reuse import SettledOdds, odds_of_same_inputs

log = logging.getLogger(__name__)


class LiveOdds:
    """Latest-only jobs per match, worker threads, and the latest odds per match."""

    def __init__(self, bus: EventBus, *, iterations: int = 20_000,
                 first_iterations: int | None = None, processes: int = 1,
                 centre_average: int = 150, service: Any = None,
                 averages: Callable[[MatchState], Mapping[str, int]] | None = None,
                 settled_error: float = SETTLED_ERROR, engine: str = "fast",
                 knowledge: Callable[[], CentreKnowledge] | None = None,
                 shared: SharedChunks | None = None, shared_most: int = 8):
        if first_iterations is None:
            first_iterations = min(400, iterations)
        if first_iterations < 1:
            raise ValueError(f"odds first_iterations must be at least 1, not {first_iterations}")
        if iterations < first_iterations:
            raise ValueError(f"odds iterations ({iterations}) must be at least "
                             f"first_iterations ({first_iterations})")
        if not 0 <= processes <= 16:
            raise ValueError(f"odds processes must be 0-16, not {processes}")
        CentreAverages(average=centre_average)  # refuses an impossible average now
        if not 0 < settled_error < 0.5:
            raise ValueError(f"odds settled_error must be a standard error between 0 and 0.5 "
                             f"(a chance's), not {settled_error}")
        if engine not in ENGINES:
            raise ValueError(f"odds engine must be one of {ENGINES}, not {engine!r}")
        self.engine = engine  # "ledger": the reference engine (benchmarks compare them)
        if engine == "fast" and not compiled.AVAILABLE:
            log.warning("odds: the card play and the balls run in Python, several times "
                        "slower: alley_poker.odds._card_play is not built (installing "
                        "alley-poker builds it where a C compiler and Python's headers are "
                        "installed; alley-poker doctor says so too)")
        self.bus = bus
        self.iterations = iterations
        self.first_iterations = first_iterations
        self.settled_error = settled_error
        self.processes = max(processes, 1)
        # The first estimate is shared between the processes: with one match to compute, it
        # arrives that many times sooner.
        self.chunk = max(1, -(-first_iterations // self.processes))
        self._run_seconds: dict[str, float] = {}  # per match: what one run took lately
        # The bowlers' known averages (league bowlers), looked up once per match by a worker
        # thread, never by the thread that ran the ball.
        self._averages_of = averages
        self._averages: dict[str, Mapping[str, int]] = {}
        # What the centre's settled matches say of its bowlers (odds_history), asked by a
        # worker thread for each match's first chunk.
        self._knowledge_of = knowledge
        self._known: dict[str, tuple[CentreAverages, Mapping, Mapping] | None] = {}
        # The correction each match's simulated odds get (odds_correction: the centre's
        # earlier nights), read with its knowledge.
        self._corrections: dict[str, Correction] = {}
        self.centre_average = centre_average
        self.service = service
        self.computed = 0
        self.dropped = 0
        self.reused = 0        # states whose odds were a settled state's, no run made
        self.pool_cpu = 0.0    # the pool's CPU seconds on every chunk, settled or not
        self.shared = shared
        # Per match, its last few settled states and their odds (:meth:`_reuse_settled`).
        self._settled = SettledOdds()
        #: The latest finished jobs' (match, seq, runs, CPU seconds): what settling costs.
        self.costs: deque[tuple[str, int, int, float]] = deque(maxlen=2000)
        self._jobs: dict[str, OddsJob] = {}
        self._requests = 0
        self._latest: dict[str, dict] = {}
        self._stopped = False
        self._cond = threading.Condition()
        # The helpers' share, shared through Redis (their CPU is in pool_cpu too), and the
        # chunks given to them that came back to the pool instead (a helper killed, none
        # left, a reply later than the timeout): the shared_* counts below.
        self._hand_off = HelperHandOff(shared, self._cond, self._jobs, lambda: self._stopped,
                                       centre_average=centre_average, engine=engine)
        # "spawn": a fork of a process running threads (the web server's) may inherit a
        # lock held by one of them.  The pool runs at a lower priority (nice): when the cores
        # are busy, the balls themselves go first and the odds wait.
        self._pool: Executor | None = self._new_pool() if processes else None
        self._threads = [threading.Thread(target=self._work, name=f"odds-{index}", daemon=True)
                         for index in range(max(processes, 1))]
        # One more thread per helper, up to shared_most, each waiting on its helper's chunk.
        if shared is not None:
            self._threads += [threading.Thread(target=self._work, args=(slot,),
                                               name=f"odds-shared-{slot}", daemon=True)
                              for slot in range(shared_most)]
        for thread in self._threads:
            thread.start()
        self.unsubscribe = (bus.subscribe(self._on_bus_message) if service is not None
                            else None)

    # What went to the helpers (HelperHandOff's counts), read here by tests and benchmarks.
    shared_chunks = property(lambda self: self._hand_off.chunks)
    shared_cpu = property(lambda self: self._hand_off.cpu)
    shared_lost = property(lambda self: self._hand_off.lost)
    shared_redone = property(lambda self: self._hand_off.redone)
    shared_dropped = property(lambda self: self._hand_off.dropped)

    # --- requests ---------------------------------------------------------------------------
    def _on_bus_message(self, topic: str, message: dict[str, Any]) -> None:
        if not topic.startswith("match:"):
            return
        ours = message.get("origin", self.bus.origin) == self.bus.origin
        if message.get("kind") == "odds" and not ours:
            # Computed by the process that ran the ball (the worker, scaled out): kept here
            # too, so a screen that joins or reloads on this process gets them at once.
            self._keep(message["match_id"], message["odds"])
            return
        if message.get("kind") != "events" or not ours:
            return  # the process that ran the command computes its odds
        match_id = topic.split(":", 1)[1]
        state = self.service.shared_state(match_id)
        if state.status in ("new", "open", "void"):
            self.forget(match_id)
            return
        self.request(match_id, state.clone())

    def request(self, match_id: str, state: MatchState) -> None:
        """Compute the odds of ``state`` (a copy nobody else changes), in place of whatever
        was being computed for the match."""
        with self._cond:
            old = self._jobs.get(match_id)
            if old is not None and not old.finished and old.published == 0:
                self.dropped += 1  # replaced before it showed anything
            per_run = self._run_seconds.get(match_id) or guess_run_seconds(state)
            chunk = first_chunk_size(per_run, self.chunk)
            self._requests += 1
            self._jobs[match_id] = OddsJob(match_id, state, self.iterations, chunk,
                                           min(self.first_iterations, chunk * self.processes),
                                           order=self._requests)
            self._cond.notify_all()  # a shared thread may be waiting for its helper too

    def _keep(self, match_id: str, odds: dict) -> None:
        with self._cond:
            current = self._latest.get(match_id)
            if current is None or (current["seq"], current["iterations"]) <= (
                    odds["seq"], odds["iterations"]):
                self._latest[match_id] = odds

    def forget(self, match_id: str) -> None:
        with self._cond:
            self._latest.pop(match_id, None)
            self._jobs.pop(match_id, None)
            self._run_seconds.pop(match_id, None)
            self._averages.pop(match_id, None)
            self._known.pop(match_id, None)
            self._corrections.pop(match_id, None)
            self._settled.forget(match_id)

    def latest(self, match_id: str) -> dict | None:
        """The last odds computed for the match (for an event ``seq`` at most its own)."""
        with self._cond:
            return self._latest.get(match_id)

    # --- work -------------------------------------------------------------------------------
    def _next_chunk(self) -> tuple[OddsJob, int, int] | None:
        """The most urgent chunk: a first estimate before any refinement (the one furthest
        behind first), then the refinement of the oldest request: one match's odds settle
        before the next one's are refined (shared out evenly, a dozen matches on a league
        night would all settle a dozen times later).  Called holding the lock."""
        best = None
        for job in self._jobs.values():
            if not job.wants_chunk():
                continue
            first = job.done + job.in_flight < job.first_target
            key = (False, job.done + job.in_flight) if first else (True, job.order)
            if best is None or key < best[0]:
                best = (key, job)
        if best is None:
            return None
        job = best[1]
        number, size = job.take_chunk(self._run_seconds.get(job.match_id), self.settled_error)
        return job, number, size

    def _work(self, shared_slot: int | None = None) -> None:
        """A thread's life: the most urgent chunk, run in the pool (or this thread), or by
        a helper when ``shared_slot`` is given (then only while more helpers are live
        than the slot's number)."""
        while True:
            with self._cond:
                while not self._stopped and (
                        not self._slot_open(shared_slot)
                        or (picked := self._next_chunk()) is None):
                    # A shared thread looks at the helpers' count again now and then.
                    self._cond.wait(None if shared_slot is None else 0.5)
                if self._stopped:
                    return
            job, number, size = picked
            if number == 0 and self.engine == "fast":
                reused, odds = self._reuse_settled(job, size)
                if reused:
                    if odds is not None:
                        self.bus.publish(f"match:{job.match_id}", {
                            "kind": "odds", "match_id": job.match_id, "odds": odds})
                    continue
            try:
                if shared_slot is None:
                    chunk = self._compute(job.state, size, number, self._known_averages(job),
                                          self._known_centre(job))
                else:
                    chunk = self._compute_shared(job, size, number)
            except Exception:
                if not self._stopped:  # at stop, the pool's processes end under their chunks
                    log.exception("odds of match %s at #%s failed", job.match_id,
                                  job.state.seq)
                chunk = None
            publish = self._add(job, size, chunk)
            if publish is not None:
                self.bus.publish(f"match:{job.match_id}", {
                    "kind": "odds", "match_id": job.match_id, "odds": publish})

    def _add(self, job: OddsJob, size: int, chunk: dict | None) -> dict | None:
        """Count a chunk's runs into its job; the odds to publish, if it is time to."""
        with self._cond:
            job.in_flight -= size
            self._cond.notify_all()
            if chunk is not None:
                job.cpu += chunk.get("cpu", 0.0)
                self.pool_cpu += chunk.get("cpu", 0.0)
            if job.finished:
                return None
            if self._jobs.get(job.match_id) is not job:
                # A newer ball replaced it while this chunk ran.  On a busy night that can
                # happen to every chunk of a match: its first estimate is still shown when
                # the screens have nothing newer (odds a ball or two behind, never none);
                # its refinements are dropped.
                job.finished = True
                if job.published or chunk is None or chunk["exact"] or chunk.get("enumerated"):
                    return None
                job.count(chunk)
                self._run_seconds[job.match_id] = chunk["seconds"] / chunk["iterations"]
                return self._publishable(job, self._corrected(job, job.as_json(settled=False)))
            if chunk is None or chunk["exact"] or chunk.get("enumerated"):
                job.finished = True
                self.computed += 1
                self.costs.append((job.match_id, job.state.seq, job.done, job.cpu))
                odds = (None if chunk is None else enumerated_odds(job.state, chunk)
                        if chunk.get("enumerated") else exact_odds(job.state, chunk))
                if odds is not None and chunk.get("enumerated"):
                    self._settled.remember(job, odds)
            else:
                job.count(chunk)
                self._run_seconds[job.match_id] = chunk["seconds"] / chunk["iterations"]
                settled = job.has_settled(self.settled_error)
                if settled:
                    job.finished = True
                    self.computed += 1
                    self.costs.append((job.match_id, job.state.seq, job.done, job.cpu))
                odds = job.odds_to_show(settled)
                if odds is None:
                    return None
                odds = self._corrected(job, odds)
                if settled:
                    self._settled.remember(job, odds)
            if odds is None:
                return None
            return self._publishable(job, odds)

    def _corrected(self, job: OddsJob, odds: dict) -> dict:
        """Simulated odds as the centre's earlier nights correct them (the exact result and
        odds enumerated over the cards alone are not simulated, and never corrected)."""
        correction = self._corrections.get(job.match_id)
        if correction is None or correction.is_identity:
            return odds
        return correct_odds(odds, correction)

    def _reuse_settled(self, job: OddsJob, size: int) -> tuple[bool, dict | None]:
        """Before a state's first chunk: the settled odds of an earlier state of the match
        with the same inputs (:mod:`~alley_poker.service.odds_reuse`), published at once,
        settled, for no run at all.  ``(reused, odds to publish)``."""
        with self._cond:
            kept = self._settled.comparable(job)
        odds = odds_of_same_inputs(job, kept) if kept else None
        if odds is None:
            return False, None
        with self._cond:
            job.in_flight -= size
            self._cond.notify_all()
            if job.finished or self._jobs.get(job.match_id) is not job:
                return True, None  # replaced meanwhile: nothing to show, nothing spent
            job.finished = True
            self.computed += 1
            self.reused += 1
            self.costs.append((job.match_id, job.state.seq, 0, 0.0))
            self._settled.remember(job, odds)
            return True, self._publishable(job, {**odds, "seq": job.state.seq})

    def _publishable(self, job: OddsJob, odds: dict) -> dict | None:
        """``odds``, kept as the match's latest, unless odds of a later event are kept."""
        current = self._latest.get(job.match_id)
        if current is not None and current["seq"] > odds["seq"]:
            return None
        self._latest[job.match_id] = odds
        return odds

    def _known_averages(self, job: OddsJob) -> Mapping[str, int]:
        known = self._averages.get(job.match_id)
        if known is None:
            known = {}
            if self._averages_of is not None:
                try:
                    known = dict(self._averages_of(job.state))
                except Exception:  # the odds go on from the centre's average
                    log.exception("averages of match %s's bowlers", job.match_id)
            self._averages[job.match_id] = known
        return known

    def _known_centre(self, job: OddsJob) -> tuple[CentreAverages, Mapping, Mapping] | None:
        """The centre's prior and the match's bowlers' history, read once per match."""
        if self._knowledge_of is None:
            return None
        if job.match_id not in self._known:
            try:
                knowledge = self._knowledge_of()
                self._known[job.match_id] = (knowledge.centre,
                                             *knowledge.for_bowlers(job.state.bowlers))
                self._corrections[job.match_id] = knowledge.correction_for(
                    night_of(job.state))
            except Exception:  # the odds go on from the centre's average
                log.exception("the centre's knowledge for match %s", job.match_id)
                self._known[job.match_id] = None
        return self._known[job.match_id]

    def _slot_open(self, shared_slot: int | None) -> bool:
        """A pool thread always works; a shared one while its helper is live."""
        return shared_slot is None or self._hand_off.slot_open(shared_slot)

    def _compute_shared(self, job: OddsJob, size: int, number: int) -> dict | None:
        """A chunk run by a helper (:meth:`HelperHandOff.run`), or in the pool after all."""
        averages, known = self._known_averages(job), self._known_centre(job)
        per_run = self._run_seconds.get(job.match_id) or guess_run_seconds(job.state)
        return self._hand_off.run(
            job, size, number, averages, known, expected_s=size * per_run,
            in_pool=lambda: self._compute(job.state, size, number, averages, known))

    def _compute(self, state: MatchState, iterations: int, number: int,
                 averages: Mapping[str, int],
                 known: tuple[CentreAverages, Mapping, Mapping] | None = None) -> dict | None:
        if self._pool is None:
            return odds_chunk(state, iterations, number, self.centre_average, averages,
                              self.engine, known)
        pool = self._pool
        try:
            return pool.submit(odds_chunk, state, iterations, number,
                               self.centre_average, averages, self.engine, known).result()
        except BrokenProcessPool:
            # A pool process died (killed, out of memory): a new pool, so the odds go on for
            # the rest of the night; this chunk is lost.
            with self._cond:
                if self._pool is pool and not self._stopped:
                    self._pool = self._new_pool()
            raise

    def _new_pool(self) -> Executor:
        return ProcessPoolExecutor(self.processes,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=start_pool_process)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every request so far is computed to the end (tests, benchmarks)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: all(job.finished for job in self._jobs.values()), timeout)

    def stop(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self.shared is not None:
            self.shared.stop_waiting()  # a live helper's slow chunk is not waited for
        for thread in self._threads:
            thread.join(timeout=5)
        if self.shared is not None:
            self.shared.close()
        if self._pool is not None:
            # The executor's processes (CPython's ProcessPoolExecutor keeps them by pid).
            processes = list(getattr(self._pool, "_processes", None) or {})
            processes = list(self._pool._processes.values()) if processes else []
            self._pool.shutdown(wait=False, cancel_futures=True)
            # A process left idle or mid-chunk would keep the interpreter's exit waiting
            # for it (concurrent.futures joins its processes at exit): end them now.
            for process in processes:
                if process.is_alive():
                    process.terminate()

