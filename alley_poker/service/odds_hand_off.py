"""Live odds' chunks handed to odds helpers through Redis (:class:`HelperHandOff`): which of
the threads of :class:`~alley_poker.service.live_odds.LiveOdds` hand them out, what a
helper's reply means, and how many went each way.

With ``shared`` (:class:`~alley_poker.service.odds_helpers.SharedChunks`: ``[odds] shared`` in
a scaled-out centre) ``LiveOdds`` has one more thread per live helper, up to ``shared_most``,
beside its pool's; each takes the most urgent chunk as a pool thread does and hands it to a
helper.  A chunk no helper answers in time (a helper killed mid-chunk) is run in the pool
instead while its state still wants it, so its runs are never lost; a chunk the helper found
superseded is run here only if its state is still the match's.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping

import redis

from alley_poker.odds import CentreAverages
from alley_poker.service.odds_helpers import SharedChunkLost, SharedChunks
from alley_poker.service.odds_job import OddsJob

log = logging.getLogger(__name__)


class HelperHandOff:
    """The chunks of ``LiveOdds``'s jobs (``jobs``, read holding ``lock``) run by helpers, and
    their counts (their CPU is in ``LiveOdds.pool_cpu`` too)."""

    def __init__(self, shared: SharedChunks | None, lock: threading.Condition,
                 jobs: Mapping[str, OddsJob], stopped: Callable[[], bool], *,
                 centre_average: int, engine: str):
        self.shared = shared
        self._lock, self._jobs, self._stopped = lock, jobs, stopped
        self._centre_average, self._engine = centre_average, engine
        self.chunks = 0    # run by a helper
        self.cpu = 0.0     # the helpers' CPU seconds on them
        self.lost = 0      # chunks a helper never answered (killed, or none took them)
        self.redone = 0    # of those, run again in the pool: still wanted
        self.dropped = 0   # superseded, as the helper saw

    def slot_open(self, slot: int) -> bool:
        """Whether the shared thread ``slot`` hands chunks out: while more helpers are live
        than its number (called holding the lock: the count is kept by SharedChunks' own
        thread, never read here)."""
        return self.shared is not None and self.shared.live_helpers() > slot

    def run(self, job: OddsJob, size: int, number: int, averages: Mapping[str, int],
            known: tuple[CentreAverages, Mapping, Mapping] | None, *, expected_s: float,
            in_pool: Callable[[], dict | None]) -> dict | None:
        """A chunk run by a helper through Redis; in the pool (``in_pool``) when none answers
        in time (a helper killed mid-chunk), so its runs are never lost; None when the helper
        found the state superseded (the job is dropped then)."""
        try:
            reply = self.shared.run(job.match_id, job.state, size, number,
                                    self._centre_average, averages, self._engine, known,
                                    expected_s=expected_s)
        except (SharedChunkLost, OSError, redis.RedisError) as problem:
            if self._stopped():
                return None
            with self._lock:
                self.lost += 1
                # The pool's own chunks may have settled the state (or a newer ball
                # replaced it) while the helper held this one: then its runs are not
                # wanted, and redoing them would only take a core from a match that is.
                wanted = not job.finished and self._jobs.get(job.match_id) is job
                if wanted:
                    self.redone += 1
            log.warning("odds of match %s at #%s: %s; %s", job.match_id, job.state.seq,
                        problem, "running the chunk in the pool" if wanted
                        else "the state is settled or replaced, so it is not run again")
            return in_pool() if wanted else None
        if reply.get("dropped"):
            with self._lock:
                self.dropped += 1
                current = self._jobs.get(job.match_id) is job
            # Superseded, as the helper saw; a state still wanted (a match forgotten and
            # begun again) is run here.
            return in_pool() if current else None
        if reply.get("failed"):
            raise RuntimeError(f"a helper ({reply.get('helper')}) failed the chunk")
        if reply.get("not_live"):
            return None
        with self._lock:
            self.chunks += 1
            self.cpu += reply.get("cpu", 0.0)
        return reply
