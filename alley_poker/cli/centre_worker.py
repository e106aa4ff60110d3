"""The ``alley-poker worker`` process: a centre's feeds and scheduled jobs, apart from the web.

When a centre outgrows one process it runs any number of ``alley-poker web`` processes (pages,
API, Socket.IO; stateless) and two ``alley-poker worker`` processes over PostgreSQL and Redis.
Exactly one worker is *active* (:mod:`alley_poker.service.election`); it reads the feeds into
the ledger, runs the deadline scheduler and the centre's other jobs, and pushes its updates to
every web process's clients through the Socket.IO message queue.  The other stands by and
takes over within a couple of seconds when the active one dies: it starts the feeds (each
resumes from the ledger) and rebuilds every deadline from the ledger.

Lifecycle of :meth:`CentreWorker.run`: stand by (``standing by for centre X``) → active
(``active for centre X``) → stopped by the caller (exit status 0) or, should the election's
PostgreSQL session be lost, stop dealing at once (a standby may already be active) and exit
with :data:`LOST_LOCK` so the service manager restarts it as a standby.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alley_poker.config import AlleyConfig
from alley_poker.service import open_service
from alley_poker.service.election import CentreElection, ElectionUnavailable
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.service.league_desk import attach_scorer_seating, bowler_averages
from alley_poker.service.odds import LiveOdds
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from alley_poker.service.scheduler import centre_scheduler
from alley_poker.web.metrics import WorkerMetrics
from alley_poker.web.process_tuning import tune_garbage_collector, tune_thread_switching
from alley_poker.web.sockets import external_emitter

log = logging.getLogger(__name__)

#: Exit status of a worker that lost its lock (it was active; it must not deal any more).
LOST_LOCK = 3


class WorkerSetupError(RuntimeError):
    """The worker cannot run as configured; the message says what to set."""


def scaled_settings(config: AlleyConfig) -> tuple[str, str]:
    """``(database URL, Redis URL)`` of a scaled-out centre; refuses the one-box setup.

    >>> from alley_poker.config import load_config_text
    >>> scaled_settings(load_config_text('[centre]\\nname = "X"\\nlanes = 2', env={}))
    Traceback (most recent call last):
    ...
    alley_poker.cli.centre_worker.WorkerSetupError: web and worker processes share a centre \
through PostgreSQL and Redis: set database.url (ALLEY_POKER_DATABASE_URL) to a \
postgresql+psycopg:// URL (got sqlite); with the embedded SQLite ledger run the whole centre \
in one process, 'alley-poker serve'
    """
    from sqlalchemy.engine import make_url

    backend = make_url(config.database.url).get_backend_name()
    if backend != "postgresql":
        raise WorkerSetupError(
            "web and worker processes share a centre through PostgreSQL and Redis: set "
            "database.url (ALLEY_POKER_DATABASE_URL) to a postgresql+psycopg:// URL "
            f"(got {backend}); with the embedded SQLite ledger run the whole centre in one "
            "process, 'alley-poker serve'")
    if not config.redis.url:
        raise WorkerSetupError(
            "web and worker processes share a centre through PostgreSQL and Redis: set "
            "redis.url (ALLEY_POKER_REDIS_URL), e.g. redis://127.0.0.1:6379/0")
    return config.database.url, config.redis.url


@dataclass
class _Running:
    """What an active worker started, stopped in reverse order."""

    bus: Any
    service: Any
    emitter: Any
    feeds: Any
    scheduler: Any

    def stop(self) -> None:
        self.feeds.stop()
        self.scheduler.shutdown()
        if self.service.odds is not None:
            self.service.odds.stop()
        self.emitter.unsubscribe()
        self.bus.close()
        store = getattr(self.service.repository, "store", None)
        if store is not None:
            store.close()


class CentreWorker:
    """The feeds and jobs of one centre, run only while this process wins the election."""

    def __init__(self, config: AlleyConfig, *, poll_s: float = 0.5,
                 echo: Callable[[str], None] | None = None,
                 metrics: WorkerMetrics | None = None) -> None:
        self.config = config
        self.centre = config.centre.id
        self.database_url, self.redis_url = scaled_settings(config)
        self.poll_s = poll_s
        self.echo = echo or (lambda line: None)
        self.metrics = metrics  # served on --metrics-port (web.metrics.WorkerMetrics)
        try:
            self.election = CentreElection(self.database_url, self.centre, poll_s=poll_s)
        except ElectionUnavailable as problem:
            raise WorkerSetupError(str(problem)) from None

    def _say(self, line: str) -> None:
        log.warning(line)
        self.echo(line)

    def run(self, stop: threading.Event) -> int:
        """Stand by, then work until ``stop`` is set (0) or the lock is lost (LOST_LOCK)."""
        try:
            if not self.election.attempt():
                self._say(f"standing by for centre {self.centre}: another worker is active "
                          f"or PostgreSQL is unreachable (trying again every {self.poll_s:g} s)")
                if not self.election.wait_until_active(stop):
                    return 0
            started = time.monotonic()
            running = self._start()
            self._say(f"active for centre {self.centre}: {len(running.feeds.feeds)} feed(s), "
                      f"{len(running.scheduler.pending_jobs())} deadline job(s), started in "
                      f"{time.monotonic() - started:.2f} s")
            pacer = tune_garbage_collector()  # the ledger runs here: the same pauses as serve's
            tune_thread_switching()
            try:
                while not stop.wait(self.poll_s):
                    if not self.election.still_active():
                        self._say(f"centre {self.centre}: lost the worker lock; stopping the "
                                  "feeds at once (another worker may be active)")
                        return LOST_LOCK
                return 0
            finally:
                pacer.stop()
                running.stop()
        finally:
            self.election.release()

    def _start(self) -> _Running:
        # Built only once active: a standby holds no feed open, so the scorer's serial line
        # (or device server) has one reader.  (The modules are imported at the top, so a
        # takeover does not wait for imports.)
        bus = RedisBus(self.redis_url, channel_prefix=centre_channel_prefix(self.centre))
        try:
            service = open_service(self.database_url, centre=self.centre, bus=bus)
            service.reads_catch_up = False  # the bus and the appends keep it current
            seating = attach_scorer_seating(service)  # the feeds are read here: seating too
            emitter = external_emitter(service, self.redis_url)
            odds = self.config.odds
            if odds.enabled:  # the feeds' balls are run here, so their odds are made here
                service.odds = LiveOdds(bus, iterations=odds.iterations,
                                        first_iterations=odds.first_estimate,
                                        processes=odds.processes,
                                        centre_average=odds.centre_average, service=service,
                                        averages=bowler_averages(seating.requests))
            handle = service.handle_lane_event
            metrics = self.metrics.centre(service) if self.metrics is not None else None
            feeds = FeedSupervisor(self.config.feeds,
                                   metrics.counting(handle) if metrics is not None else handle)
            scheduler = centre_scheduler(service, self.config, feeds)
            if metrics is not None:
                metrics.watch(feeds=feeds, scheduler=scheduler)
        except BaseException:
            bus.close()
            raise
        running = _Running(bus, service, emitter, feeds, scheduler)
        scheduler.start()  # deadlines rebuilt from the ledger before any new ball arrives
        feeds.start()
        return running
