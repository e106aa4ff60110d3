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

from alley_poker.centre import Centre, Role, ScaledSetupError, build_centre, scaled_settings
from alley_poker.config import AlleyConfig
from alley_poker.service.election import CentreElection, ElectionUnavailable
from alley_poker.serving.process_tuning import tune_garbage_collector, tune_thread_switching
from alley_poker.web.metrics import WorkerMetrics
from alley_poker.web.sockets import external_emitter

log = logging.getLogger(__name__)

#: Exit status of a worker that lost its lock (it was active; it must not deal any more).
LOST_LOCK = 3


@dataclass
class _Running:
    """What an active worker started, stopped in reverse order."""

    centre: Centre
    emitter: Any

    @property
    def feeds(self) -> Any:
        return self.centre.feeds

    @property
    def scheduler(self) -> Any:
        return self.centre.scheduler

    def stop(self) -> None:
        self.centre.stop_running()
        self.emitter.unsubscribe()
        self.centre.close()


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
            raise ScaledSetupError(str(problem)) from None

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
        # takeover does not wait for imports.)  The centre is built by alley_poker.centre;
        # the worker adds its pushes to the web processes' clients and its metrics.
        counted: list[Any] = []

        def count_balls(service: Any) -> Any:
            counted.append(self.metrics.centre(  # type: ignore[union-attr]
                service, odds=self.config.odds.enabled))
            return counted[0].counting

        centre = build_centre(self.config, Role.WORKER,
                              count_balls=count_balls if self.metrics is not None else None)
        try:
            emitter = external_emitter(centre.service, self.redis_url)
            if counted:
                counted[0].watch(feeds=centre.feeds, scheduler=centre.scheduler)
        except BaseException:
            centre.stop()
            raise
        running = _Running(centre, emitter)
        centre.start()  # deadlines rebuilt from the ledger before any new ball arrives
        return running
