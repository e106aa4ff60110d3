"""The centre, wired in one place: its alley service, scoreboard feeds and scheduled jobs.

Every way of running a centre builds it here, and the adapters attach to it: ``serve`` (the
web server, :class:`alley_poker.web.server.AlleyServer`, puts its web app in front of a
:class:`Centre`), the scaled-out ``worker`` (:mod:`alley_poker.cli.centre_worker`, which adds
the Socket.IO pushes and its metrics), and the demo alley.  A scaled-out ``web`` process runs
no feeds and no jobs: it only opens the service over the shared settings
(:func:`scaled_settings`).

What a :class:`Centre` runs: the service on ``database.url`` (the ledger, the router, the
bus), one feed per ``[[feeds]]`` entry (:class:`~alley_poker.service.feeds.FeedSupervisor`),
and the centre's jobs (:func:`~alley_poker.service.scheduler.centre_scheduler`: decision
deadlines, feed health, the nightly SQLite backup and the night's close).  Started jobs first
(deadlines are rebuilt from the ledger before a new ball arrives), stopped feeds first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alley_poker.config import AlleyConfig
from alley_poker.service import AlleyService, open_service
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.service.league_desk import attach_scorer_seating, bowler_averages
from alley_poker.service.odds import LiveOdds
from alley_poker.service.odds_helpers import SharedChunks
from alley_poker.service.odds_history import CentreKnowledgeSource
from alley_poker.service.scheduler import centre_scheduler
from alley_poker.service.side_nights import attach_side_games
from drivers.base import LaneEvent

#: A wrapper round the service's feed callback (e.g. one that counts the balls for metrics).
FeedHandlerWrapper = Callable[[Callable[[LaneEvent], bool]], Callable[[LaneEvent], bool]]


class ScaledSetupError(RuntimeError):
    """A scaled-out centre (web and worker processes) cannot run as configured; the message
    says what to set."""


def scaled_settings(config: AlleyConfig) -> tuple[str, str]:
    """``(database URL, Redis URL)`` of a scaled-out centre; refuses the one-box setup.

    >>> from alley_poker.config import load_config_text
    >>> scaled_settings(load_config_text('[centre]\\nname = "X"\\nlanes = 2', env={}))
    Traceback (most recent call last):
    ...
    alley_poker.centre.ScaledSetupError: web and worker processes share a centre through \
PostgreSQL and Redis: set database.url (ALLEY_POKER_DATABASE_URL) to a postgresql+psycopg:// \
URL (got sqlite); with the embedded SQLite ledger run the whole centre in one process, \
'alley-poker serve'
    """
    from sqlalchemy.engine import make_url

    backend = make_url(config.database.url).get_backend_name()
    if backend != "postgresql":
        raise ScaledSetupError(
            "web and worker processes share a centre through PostgreSQL and Redis: set "
            "database.url (ALLEY_POKER_DATABASE_URL) to a postgresql+psycopg:// URL "
            f"(got {backend}); with the embedded SQLite ledger run the whole centre in one "
            "process, 'alley-poker serve'")
    if not config.redis.url:
        raise ScaledSetupError(
            "web and worker processes share a centre through PostgreSQL and Redis: set "
            "redis.url (ALLEY_POKER_REDIS_URL), e.g. redis://127.0.0.1:6379/0")
    return config.database.url, config.redis.url


def open_centre_service(config: AlleyConfig) -> AlleyService:
    """The one-box centre's service, on ``database.url``."""
    return open_service(config.database.url, centre=config.centre.id)


def open_worker_service(config: AlleyConfig, bus: Any) -> AlleyService:
    """The service of a scaled-out centre's active worker, over the shared ``bus``: it reads
    the feeds, so it seats league matches from the scorer's lines and (when the centre shows
    them) makes the live odds of the balls it deals."""
    database_url, redis_url = scaled_settings(config)
    service = open_service(database_url, centre=config.centre.id, bus=bus)
    service.reads_catch_up = False  # the bus and the appends keep it current
    seating = attach_scorer_seating(service)
    attach_side_games(service)  # its balls seal the draw, its games feed the brackets
    odds = config.odds
    if odds.enabled:
        service.odds = LiveOdds(bus, iterations=odds.iterations,
                                first_iterations=odds.first_estimate,
                                processes=odds.processes,
                                centre_average=odds.centre_average, service=service,
                                settled_error=odds.settled_points / 100,
                                averages=bowler_averages(seating.requests),
                                knowledge=CentreKnowledgeSource(
                                    service.repository.store, average=odds.centre_average),
                                shared=(SharedChunks(redis_url, config.centre.id)
                                        if odds.shared else None))
    return service


class Centre:
    """One centre's service, feeds and jobs, started and stopped together.

    Built before anything starts, so a bad feed dialect stops it with nothing running.
    ``count_balls`` wraps the service's feed callback (the metrics count balls so).
    """

    def __init__(self, config: AlleyConfig, service: AlleyService | None = None, *,
                 count_balls: FeedHandlerWrapper | None = None) -> None:
        self.config = config
        self.service = service if service is not None else open_centre_service(config)
        handle = self.service.handle_lane_event
        self.feeds = FeedSupervisor(config.feeds,
                                    count_balls(handle) if count_balls is not None else handle)
        self.scheduler = centre_scheduler(self.service, config, self.feeds)

    def start(self) -> Centre:
        """The jobs (deadlines rebuilt from the ledger), then the feeds."""
        self.scheduler.start()
        self.feeds.start()
        return self

    def stop(self, *, close_store: bool = True) -> None:
        """Stop the feeds, then the jobs and the odds; close the ledger's database."""
        self.feeds.stop()
        self.scheduler.shutdown()
        if self.service.odds is not None:
            self.service.odds.stop()
        store = getattr(self.service.repository, "store", None)
        if close_store and store is not None:
            store.close()
