"""The centre, built in one place: :func:`build_centre` makes everything a centre runs.

Every way of running a centre builds it here, and nothing else constructs its service, its
stores or its live odds (``tests/test_layering.py`` checks it): ``serve`` and the demos
(:attr:`Role.ONE_BOX`), a scaled-out centre's ``worker`` (:attr:`Role.WORKER`:
:mod:`alley_poker.cli.centre_worker` adds the Socket.IO pushes and its metrics) and its
stateless ``web`` processes (:attr:`Role.WEB`: no feeds and no jobs).  The web app
(:func:`alley_poker.web.create_app`) is handed a finished :class:`Centre` and only reads it.

What a :class:`Centre` holds, each part given what it needs when it is made: the service on
``database.url`` (the ledger, the router, the bus), the centre's records (API tokens, kiosk
devices, phone links), the league desk, the live odds and the odds' record (when ``[odds]``
turns them on), the feed and night-close boards, one feed per ``[[feeds]]`` entry
(:class:`~alley_poker.service.feeds.FeedSupervisor`) and the centre's jobs
(:func:`~alley_poker.service.scheduler.centre_scheduler`: decision deadlines, feed health,
the nightly SQLite backup and the night's close).  Started jobs first (deadlines are rebuilt
from the ledger before a new ball arrives), stopped feeds first.

>>> from alley_poker.config import AlleyConfig, CentreConfig, OddsConfig
>>> centre = build_centre(AlleyConfig(centre=CentreConfig(name="Doc Lanes", lanes=4),
...     database={"url": "sqlite://"}, odds=OddsConfig(enabled=False)))
>>> centre.role.value, centre.service.centre, centre.odds, len(centre.feeds.feeds)
('one box', 'default', None, 0)
>>> centre.stop()
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from alley_poker.config import AlleyConfig
from alley_poker.service import AlleyService, EventBus, open_service
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.service.health import FeedStatusBoard
from alley_poker.service.league_desk import LeagueDesk, bowler_averages, open_league_desk
from alley_poker.service.live_odds import LiveOdds
from alley_poker.service.night_close import NightCloseBoard
from alley_poker.service.odds_helpers import SharedChunks
from alley_poker.service.odds_history import CentreKnowledgeSource
from alley_poker.service.odds_record import OddsRecordSource
from alley_poker.service.scheduler import CentreScheduler, centre_scheduler
from alley_poker.service.seating import ScorerSeating
from alley_poker.service.side_nights import SideNights, attach_side_games
from alley_poker.store.api_tokens import ApiTokenStore
from alley_poker.store.kiosk_devices import KioskDeviceStore
from alley_poker.store.leagues import LeagueStore
from alley_poker.store.phone_links import PhoneLinkStore
from drivers.base import LaneEvent

#: A wrapper round the service's feed callback (e.g. one that counts the balls for metrics).
FeedHandlerWrapper = Callable[[Callable[[LaneEvent], bool]], Callable[[LaneEvent], bool]]


class Role(Enum):
    """How a centre runs: which parts :func:`build_centre` makes."""

    #: ``serve`` and the demos: service, feeds, jobs and (beside it) the web app, one process.
    ONE_BOX = "one box"
    #: A scaled-out centre's active worker: the feeds, the jobs and the odds of the balls it
    #: deals, over PostgreSQL and the Redis bus.
    WORKER = "worker"
    #: A scaled-out centre's stateless web process: the service over PostgreSQL and the Redis
    #: bus; no feeds, no jobs.
    WEB = "web"


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


@dataclass(eq=False)
class Centre:
    """One centre's parts, built by :func:`build_centre`; started and stopped together.

    Built before anything starts, so a bad feed dialect stops it with nothing running.
    ``feeds`` and ``scheduler`` are None in a web process; ``league_desk`` is None in a
    worker (it seats from the scorer's lines, ``seating``, and keeps no standings); ``odds``
    and ``odds_record`` are None when ``[odds]`` turns them off.
    """

    config: AlleyConfig
    role: Role
    service: AlleyService
    api_tokens: ApiTokenStore
    kiosk_devices: KioskDeviceStore
    phone_links: PhoneLinkStore
    league_desk: LeagueDesk | None
    odds: LiveOdds | None
    odds_record: OddsRecordSource | None
    feed_status: FeedStatusBoard
    night_close: NightCloseBoard
    feeds: FeedSupervisor | None
    scheduler: CentreScheduler | None

    @property
    def bus(self) -> EventBus:
        return self.service.bus

    @property
    def id(self) -> str:
        """The centre's id (``[centre] id``): its records, sessions and channels are its own."""
        return self.config.centre.id

    def start(self) -> Centre:
        """The jobs (deadlines rebuilt from the ledger), then the feeds."""
        if self.scheduler is not None:
            self.scheduler.start()
        if self.feeds is not None:
            self.feeds.start()
        return self

    def stop_running(self) -> None:
        """Stop the feeds, then the jobs, the odds and the league desk's projections."""
        if self.feeds is not None:
            self.feeds.stop()
        if self.scheduler is not None:
            self.scheduler.shutdown()
        if self.odds is not None:
            self.odds.stop()
        if self.league_desk is not None:
            self.league_desk.close()

    def close(self) -> None:
        """Close the bus (a shared one) and the ledger's database."""
        if self.bus.is_shared:
            self.bus.close()  # type: ignore[attr-defined]
        self.service.repository.store.close()

    def stop(self) -> None:
        """:meth:`stop_running`, then :meth:`close`."""
        self.stop_running()
        self.close()


def open_ledger_service(database_url: str, centre: str = "default") -> AlleyService:
    """A centre's service over its ledger alone, for reading it (a match's or a night's
    export) or preparing it (a benchmark's matches): no stores of records, no league desk, no
    odds, no feeds."""
    return open_service(database_url, centre=centre)


def build_centre(config: AlleyConfig, role: Role = Role.ONE_BOX, *,
                 rng_factory: Callable[[], random.Random] | None = None,
                 count_balls: Callable[[AlleyService], FeedHandlerWrapper] | None = None,
                 service: AlleyService | None = None) -> Centre:
    """The centre ``config`` describes, built for ``role``, nothing started.

    ``rng_factory``: seeded deals for tests, simulations and demos (no commitment; see
    :func:`~alley_poker.service.open_service`).  ``count_balls``: given the service, a wrapper
    of its feed callback (the metrics count balls so).  A scaled-out role refuses a one-box
    configuration (:func:`scaled_settings`).  ``service``: one already open over
    ``database.url`` (tests that prepare their ledger first), the rest built around it.
    """
    bus: Any = None
    if role is not Role.ONE_BOX and service is None:
        from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix

        _database_url, redis_url = scaled_settings(config)
        bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(config.centre.id))
    try:
        return _build(config, role, bus, rng_factory, count_balls, service)
    except BaseException:
        if bus is not None:
            bus.close()
        raise


def _build(config: AlleyConfig, role: Role, bus: Any,
           rng_factory: Callable[[], random.Random] | None,
           count_balls: Callable[[AlleyService], FeedHandlerWrapper] | None,
           service: AlleyService | None) -> Centre:
    centre_id = config.centre.id

    def seating(service: AlleyService) -> ScorerSeating:
        # League matches seated from the scorer's OPEN lines, by the league store's requests.
        return ScorerSeating(service, LeagueStore(service.repository.store.engine,
                                                  centre=centre_id))

    if service is None:
        # The worker's reads need not catch up with the ledger first: the bus and its own
        # appends keep it current (AlleyService.reads_catch_up says why).  Its side games:
        # its balls seal the draw, its games feed the brackets.
        service = open_service(config.database.url, centre=centre_id,
                               rng_factory=rng_factory, bus=bus,
                               reads_catch_up=role is not Role.WORKER,
                               seating=seating, side_games=SideNights)
    elif service.seating is None:  # opened bare by a test that prepared its ledger first
        service.seating = seating(service)
        attach_side_games(service)
    # Made before the odds, so the metrics hear of a ball before its odds can come.
    count = count_balls(service) if count_balls is not None else None
    engine = service.repository.store.engine
    leagues = service.seating.requests
    if role is Role.WORKER:
        desk = None  # it seats from the scorer's lines and keeps no standings
        averages = bowler_averages(leagues)
    else:
        # Leagues (rosters, nights, standings) live in the same database as the events.
        desk = open_league_desk(service, leagues)
        averages = bowler_averages(desk.store, desk.standings)
    odds_settings = config.odds
    odds = odds_record = None
    if odds_settings.enabled:
        odds = LiveOdds(service.bus, iterations=odds_settings.iterations,
                        first_iterations=odds_settings.first_estimate,
                        processes=odds_settings.processes,
                        centre_average=odds_settings.centre_average,
                        settled_error=odds_settings.settled_points / 100,
                        service=service, averages=averages,
                        knowledge=CentreKnowledgeSource(
                            service.repository.store, average=odds_settings.centre_average),
                        # A scaled-out centre's chunks of runs shared with odds-helper
                        # processes through its Redis (a one-box serve has no Redis to share).
                        shared=(SharedChunks(config.redis.url, centre_id)
                                if odds_settings.shared and role is not Role.ONE_BOX
                                and config.redis.url else None))
        if role is not Role.WORKER:
            # The odds' record (the tablet's Odds page, the phone's link): worked out in a
            # process of its own, or in a thread where the odds themselves are (processes=0).
            odds_record = OddsRecordSource(service.repository.store,
                                           processes=min(1, odds_settings.processes))
    feeds = scheduler = None
    if role is not Role.WEB:
        handle = service.handle_lane_event
        feeds = FeedSupervisor(config.feeds, count(handle) if count is not None else handle)
        scheduler = centre_scheduler(service, config, feeds)
    return Centre(
        config=config, role=role, service=service,
        api_tokens=ApiTokenStore(engine, centre=centre_id),
        kiosk_devices=KioskDeviceStore(engine, centre=centre_id),
        phone_links=PhoneLinkStore(engine, centre=centre_id),
        league_desk=desk, odds=odds, odds_record=odds_record,
        feed_status=FeedStatusBoard(service.bus), night_close=NightCloseBoard(service),
        feeds=feeds, scheduler=scheduler)
