"""Live win odds for the screens, computed off the ledger's hot path.

:class:`LiveOdds` listens to the bus.  After every change this process made to a match (a
ball, a ruling, a decision) it takes a copy of the match — the only work done in the thread
that ran the command — and queues it.  The queue keeps only the latest request per match: a
newer request for the same match replaces the older one, and whatever is still being
computed for the older one is thrown away when it comes back.

The odds come in steps, so a screen gets them at once and they then settle:

- the **first estimate**: one chunk of runs per process of the pool, each chunk sized to take
  about :data:`CHUNK_SECONDS` (from what the match's runs took last time), at most
  ``first_iterations`` runs in all.  First estimates of new balls always go before any
  refinement;
- **refinement**: more chunks while no newer request for the match arrives, published each
  time the runs so far double, until they have **settled** (``settled: true``): every
  bowler's chance is known to within :data:`SETTLED_ERROR` (one standard error), or
  ``iterations`` runs were made.  A match whose outcome is nearly certain settles in a few
  hundred runs; a close one takes up to ``iterations``.

Worker threads hand each chunk (:func:`alley_poker.service.odds_pool.odds_chunk`: the fast
engine with a seed of its own, whose runs' balls each pool process keeps from one ball to the
next, so a ball's odds start warm; once only the cards are left, the odds are enumerated
exactly and settle at once) to a pool of processes, so the simulation never
competes with the balls for the interpreter's lock (with ``processes=0`` a thread computes
them: tests, tiny centres).  With ``shared`` (:class:`~alley_poker.service.odds_helpers.
SharedChunks`: ``[odds] shared`` in a scaled-out centre) more threads hand chunks to helper
processes through the centre's Redis, one per live helper, beside the pool; a chunk no
helper answers in time is run in the pool instead.

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
from dataclasses import dataclass, field
from typing import Any

import redis

from alley_poker.ledger import MatchState
from alley_poker.odds import ENGINES, CentreAverages, compiled
from alley_poker.odds.correction import Correction, correct_odds
from alley_poker.odds.fast import odds_inputs
from alley_poker.odds.stopping import SETTLED_ERROR, has_settled, runs_wanted
from alley_poker.service.bus import EventBus
from alley_poker.service.odds_correction import night_of
from alley_poker.service.odds_helpers import SharedChunkLost, SharedChunks
from alley_poker.service.odds_history import CentreKnowledge
from alley_poker.service.odds_pool import odds_chunk, start_pool_process

log = logging.getLogger(__name__)

#: How long one chunk should take: the first estimate is one chunk per process, so this is
#: about how long a screen waits for it when the pool is free.
CHUNK_SECONDS = 0.1
#: How long one refinement chunk should take.  Shorter than the first estimate's: a new
#: ball's first estimate waits for a chunk in progress on a busy night (a league night's
#: first estimates came 18 % sooner at p95 than with chunks of CHUNK_SECONDS; each chunk
#: costs the pool about a millisecond of its own).
REFINE_SECONDS = 0.03
#: The fewest runs in a chunk, however long a run takes.
MIN_CHUNK = 10
#: The most runs in a refinement chunk (a state sent to a pool process once per chunk).
REFINE_CHUNK = 5000
#: A run's cost before any was measured for the match: per ball left to bowl, and per run
#: (the compiled engine's; the Python one's are several times dearer).
_GUESS_PER_BALL, _GUESS_PER_RUN = (1e-6, 40e-6) if compiled.AVAILABLE else (10e-6, 1e-4)
#: Balls in a game, near enough, to guess how many are left.
_BALLS_PER_GAME = 17


@dataclass(eq=False)
class _Job:
    """The odds of one match state in the making."""

    match_id: str
    state: MatchState
    target: int
    chunk: int
    first_target: int
    next_chunk: int = 0
    in_flight: int = 0
    done: int = 0
    published: int = 0
    finished: bool = False
    cpu: float = 0.0  # the pool's CPU seconds for it so far
    inputs: tuple | None = None  # what its odds are made from (fast.odds_inputs), once read
    order: int = 0    # when it was requested, among the jobs (the oldest refined first)
    wins: dict[str, float] = field(default_factory=dict)
    cents: dict[str, float] = field(default_factory=dict)

    def wants_chunk(self) -> bool:
        return not self.finished and self.done + self.in_flight < self.target

    def count(self, chunk: dict) -> None:
        """Add a chunk's runs."""
        self.done += chunk["iterations"]
        for name in self.state.bowlers:
            self.wins[name] = self.wins.get(name, 0.0) + chunk["wins"][name]
            self.cents[name] = self.cents.get(name, 0.0) + chunk["cents"][name]

    def as_json(self, settled: bool) -> dict:
        """The odds so far, counting one more run in which every bowler tied: a first
        estimate from a handful of runs (a long match, a busy pool) never shows a certainty
        it has not seen, and a few thousand runs are moved by a hundredth of a point."""
        runs, bowlers = self.done, self.state.bowlers
        tie_share, tie_cents = 1 / len(bowlers), self.state.pot_cents / len(bowlers)
        return {"seq": self.state.seq, "iterations": runs, "exact": False, "settled": settled,
                "bowlers": {name: {
                    "win": round((self.wins.get(name, 0.0) + tie_share) / (runs + 1), 4),
                    "expected_cents": round((self.cents.get(name, 0.0) + tie_cents) / (runs + 1))}
                    for name in bowlers}}


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
        # The helpers' share (shared through Redis; their CPU is in pool_cpu too), and the
        # chunks given to them that came back from the pool instead (a helper killed, none
        # left, a reply later than the timeout).
        self.shared = shared
        self.shared_chunks = 0
        self.shared_cpu = 0.0
        self.shared_lost = 0  # chunks a helper never answered (killed, or none took them)
        self.shared_redone = 0  # of those, run again in the pool: still wanted
        self.shared_dropped = 0
        # Per match, the inputs and settled odds of its last few states
        # (:meth:`_reuse_settled`).
        self._settled: dict[str, deque[tuple[_Job, dict]]] = {}
        #: The latest finished jobs' (match, seq, runs, CPU seconds): what settling costs.
        self.costs: deque[tuple[str, int, int, float]] = deque(maxlen=2000)
        self._jobs: dict[str, _Job] = {}
        self._requests = 0
        self._latest: dict[str, dict] = {}
        self._stopped = False
        self._cond = threading.Condition()
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
            # Chunks of about CHUNK_SECONDS each: a long match's first estimate comes as
            # soon as a short match's, from fewer runs, and is refined from there.
            per_run = self._run_seconds.get(match_id) or _guess_run_seconds(state)
            chunk = max(min(MIN_CHUNK, self.chunk), min(self.chunk, int(CHUNK_SECONDS / per_run)))
            self._requests += 1
            self._jobs[match_id] = _Job(match_id, state, self.iterations, chunk,
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
            self._settled.pop(match_id, None)

    def latest(self, match_id: str) -> dict | None:
        """The last odds computed for the match (for an event ``seq`` at most its own)."""
        with self._cond:
            return self._latest.get(match_id)

    # --- work -------------------------------------------------------------------------------
    def _next_chunk(self) -> tuple[_Job, int, int] | None:
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
        size = job.chunk
        if job.done >= job.first_target:
            # Refinement: chunks of about REFINE_SECONDS at the speed the match's runs go now
            # (a warm state's runs are cheaper than its first guess), never more than the
            # runs so far (so each doubling is still published), at most REFINE_CHUNK.
            per_run = self._run_seconds.get(job.match_id)
            if per_run:
                size = max(MIN_CHUNK, min(int(REFINE_SECONDS / per_run), job.done,
                                          REFINE_CHUNK))
            # No more than the runs the stopping rule still asks for, by the chances so far
            # (a tenth more, for their own error): a chunk past that is spent after the odds
            # are known (a 50/50 state settling at 15,600 runs made 17,000-20,000 before).
            if job.done:
                wanted = runs_wanted(job.done, [job.wins.get(name, 0.0)
                                                for name in job.state.bowlers],
                                     self.settled_error)
                size = min(size, max(MIN_CHUNK, int(1.1 * wanted) - job.done - job.in_flight))
        size = min(size, job.target - job.done - job.in_flight)
        number = job.next_chunk
        job.next_chunk += 1
        job.in_flight += size
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

    def _add(self, job: _Job, size: int, chunk: dict | None) -> dict | None:
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
                odds = (None if chunk is None else _enumerated(job.state, chunk)
                        if chunk.get("enumerated") else _exact(job.state, chunk))
                if odds is not None and chunk.get("enumerated"):
                    self._remember(job, odds)
            else:
                job.count(chunk)
                self._run_seconds[job.match_id] = chunk["seconds"] / chunk["iterations"]
                # At least the first estimate's runs: a lopsided state (one bowler at 95 %+)
                # is known to the target from them and settles with its first estimate
                # (twice the first estimate was asked before: 4,800 runs on a league night
                # where 2,400 were within the target).
                settled = has_settled(
                    job.done, [job.wins.get(name, 0.0) for name in job.state.bowlers],
                    target_error=self.settled_error, least=job.first_target,
                    most=job.target)
                if settled:
                    job.finished = True
                    self.computed += 1
                    self.costs.append((job.match_id, job.state.seq, job.done, job.cpu))
                # Publish the first estimate, then each time the runs double, then settled.
                due = job.first_target if not job.published else 2 * job.published
                if not settled and job.done < due:
                    return None
                job.published = job.done
                odds = self._corrected(job, job.as_json(settled))
                if settled:
                    self._remember(job, odds)  # as shown: a state reusing them shows the same
            if odds is None:
                return None
            return self._publishable(job, odds)

    def _corrected(self, job: _Job, odds: dict) -> dict:
        """Simulated odds as the centre's earlier nights correct them (the exact result and
        odds enumerated over the cards alone are not simulated, and never corrected)."""
        correction = self._corrections.get(job.match_id)
        if correction is None or correction.is_identity:
            return odds
        return correct_odds(odds, correction)

    #: How many settled states of a match are kept to compare a new state's inputs with: the
    #: state a ball ago, and a few before it (a ball undone and bowled again).
    SETTLED_KEPT = 4

    def _reuse_settled(self, job: _Job, size: int) -> tuple[bool, dict | None]:
        """Before a state's first chunk: when its odds' inputs (:func:`odds_inputs`: all
        the fast engine reads of it) equal a settled state's of the same match, the last
        event changed nothing that matters, and that state's settled odds are this one's
        — published at once, settled, for no run at all.  ``(reused, odds to publish)``.
        Only a settled state with as many balls is compared (reading a state's inputs takes
        a millisecond, so after a ball, which always changes them, none is read)."""
        with self._cond:
            kept = [(settled, odds) for settled, odds in self._settled.get(job.match_id, ())
                    if settled.state.balls_recorded == job.state.balls_recorded]
        if not kept:
            return False, None
        try:
            inputs = _inputs_of(job)
            odds = None if inputs is None else next(
                (odds for settled, odds in kept if _inputs_of(settled) == inputs), None)
        except Exception:  # the runs go on without the comparison
            log.exception("the odds inputs of match %s at #%s", job.match_id, job.state.seq)
            odds = None
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
            self._remember(job, odds)
            return True, self._publishable(job, {**odds, "seq": job.state.seq})

    def _remember(self, job: _Job, odds: dict) -> None:
        """Keep a settled state and its odds, to compare the match's next states with
        (called holding the lock)."""
        if job.state.result is None:
            self._settled.setdefault(job.match_id, deque(maxlen=self.SETTLED_KEPT)).append(
                (job, odds))

    def _publishable(self, job: _Job, odds: dict) -> dict | None:
        """``odds``, kept as the match's latest, unless odds of a later event are kept."""
        current = self._latest.get(job.match_id)
        if current is not None and current["seq"] > odds["seq"]:
            return None
        self._latest[job.match_id] = odds
        return odds

    def _known_averages(self, job: _Job) -> Mapping[str, int]:
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

    def _known_centre(self, job: _Job) -> tuple[CentreAverages, Mapping, Mapping] | None:
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
        """A pool thread always works; a shared one while its helper is live (called
        holding the lock: the count is kept by SharedChunks' own thread, never read here)."""
        return shared_slot is None or (self.shared is not None
                                       and self.shared.live_helpers() > shared_slot)

    def _compute_shared(self, job: _Job, size: int, number: int) -> dict | None:
        """A chunk run by a helper through Redis; in the pool when none answers in time (a
        helper killed mid-chunk), so its runs are never lost; None when the helper found
        the state superseded (the job is dropped then)."""
        averages, known = self._known_averages(job), self._known_centre(job)
        per_run = self._run_seconds.get(job.match_id) or _guess_run_seconds(job.state)
        try:
            reply = self.shared.run(job.match_id, job.state, size, number,
                                    self.centre_average, averages, self.engine, known,
                                    expected_s=size * per_run)
        except (SharedChunkLost, OSError, redis.RedisError) as problem:
            if self._stopped:
                return None
            with self._cond:
                self.shared_lost += 1
                # The pool's own chunks may have settled the state (or a newer ball
                # replaced it) while the helper held this one: then its runs are not
                # wanted, and redoing them would only take a core from a match that is.
                wanted = not job.finished and self._jobs.get(job.match_id) is job
                if wanted:
                    self.shared_redone += 1
            log.warning("odds of match %s at #%s: %s; %s", job.match_id, job.state.seq,
                        problem, "running the chunk in the pool" if wanted
                        else "the state is settled or replaced, so it is not run again")
            return self._compute(job.state, size, number, averages, known) if wanted else None
        if reply.get("dropped"):
            with self._cond:
                self.shared_dropped += 1
                current = self._jobs.get(job.match_id) is job
            # Superseded, as the helper saw; a state still wanted (a match forgotten and
            # begun again) is run here.
            return self._compute(job.state, size, number, averages, known) if current else None
        if reply.get("failed"):
            raise RuntimeError(f"a helper ({reply.get('helper')}) failed the chunk")
        if reply.get("not_live"):
            return None
        with self._cond:
            self.shared_chunks += 1
            self.shared_cpu += reply.get("cpu", 0.0)
        return reply

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


def _inputs_of(job: _Job) -> tuple | None:
    """What the job's odds are made from, read once."""
    if job.inputs is None:
        job.inputs = odds_inputs(job.state)
    return job.inputs


def _guess_run_seconds(state: MatchState) -> float:
    """What one run of ``state`` may take, from the balls left to bowl (until a chunk of the
    match has been timed)."""
    bowled = sum(len(balls) for games in state.balls.values() for balls in games)
    left = max(0, len(state.bowlers) * state.games * _BALLS_PER_GAME - bowled)
    return _GUESS_PER_RUN + _GUESS_PER_BALL * left


def _enumerated(state: MatchState, chunk: dict) -> dict:
    """Odds counted over every way the rest can go (only cards were left): settled at once,
    with ``iterations`` the ways counted."""
    return {"seq": state.seq, "iterations": chunk["iterations"], "exact": False,
            "settled": True,
            "bowlers": {name: {"win": round(chunk["wins"][name], 4),
                               "expected_cents": round(chunk["cents"][name])}
                        for name in state.bowlers}}


def _exact(state: MatchState, chunk: dict) -> dict:
    """The result itself, as the screens carry odds (``exact``: no estimate)."""
    return {"seq": state.seq, "iterations": 0, "exact": True, "settled": True,
            "bowlers": {name: {"win": round(chunk["wins"][name], 4),
                               "expected_cents": round(chunk["cents"][name])}
                        for name in state.bowlers}}
