"""``GET /metrics``: what a monitor graphs and alerts on, in the Prometheus text format.

Every process of a centre keeps its own :class:`CentreMetrics` (a registry of its own, so two
centres served by one test process never share a count) and shows what it does itself:

- ``serve`` (one box): everything below, on ``/metrics`` beside the pages;
- ``web`` (scaled out): its socket clients and the centre's held balls, on ``/metrics``;
- ``worker``: the feeds, balls, decisions and odds, on ``--metrics-port`` (its own small
  HTTP server: the worker serves no pages).

Series (docs/deployment.md lists the alerts worth setting on them):

``alley_feed_balls_total{feed, outcome}``  balls from each feed, ``taken`` (recorded in the
    ledger, or waiting behind an earlier ball still to come) or ``refused`` (not recorded: it
    waits on the desk as a held ball);
``alley_ball_publish_seconds``  histogram: from a feed handing over a ball to the ledger having
    stored it and the screens' update having been published;
``alley_feed_state{feed, alley_feed_state}``  the feed's state (``ok``, ``silent``, ``down``,
    ``stopped``), 1 for the current one; ``alley_feed_lines_total{feed, outcome}`` its lines
    (``ok``, ``rejected``, ``duplicate``) and ``alley_feed_reconnects_total{feed}``;
``alley_held_balls``  held balls open on the desk (refused balls the desk has to settle);
``alley_open_decisions``  bowlers' decisions waiting, with a deadline running;
``alley_odds_lag_seconds``  histogram: from a ball's events to the first odds that include it;
    ``alley_odds_settled_lag_seconds`` histogram: from a ball's events to the settled odds that
    include it (the odds' lag: ``settled`` or exact, docs/odds.md);
    ``alley_odds_waiting_seconds`` how long the oldest ball still without odds has waited;
``alley_socket_clients``  Socket.IO clients connected to this process (kiosks, tablets, phones);
``alley_sign_in_failures_total{refused_by}``  failed commissioner sign-ins of this process:
    ``pin`` (checked, wrong), or refused unheard by the ``device``, ``address`` or ``centre``
    limit (web.sign_in_ceiling; many ``centre`` ones: someone is guessing the PIN);
``alley_socket_refusals_total{reason}``  new Socket.IO connections refused by the ceiling
    (:mod:`alley_poker.web.socket_ceiling`): ``address`` (too many from one address) or
    ``centre`` (the process holds as many as it takes); ``alley_socket_sessions`` the
    sessions it counts now (an ended one at once: ``alley_socket_clients`` drops Engine.IO's
    closed WebSockets a few seconds later);
and the ``process_*`` series (memory, CPU, open files) of the process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, StateSetMetricFamily

from drivers.base import BallRecorded, LaneEvent

log = logging.getLogger(__name__)

#: The feed states a feed reports (``drivers.serial_feed.FeedHealth.state``).
FEED_STATES = ("ok", "silent", "down", "stopped")


class CentreMetrics:
    """One process's metrics: counted as balls come, read from the service when scraped."""

    def __init__(self, service: Any, registry: CollectorRegistry | None = None, *,
                 odds: bool = False) -> None:
        self.service = service
        #: Whether this process computes the live odds (their lag is timed only then).
        self.times_odds = odds
        self.feeds: Any = None
        self.scheduler: Any = None
        self.socketio: Any = None
        self.sign_in_failures: Any = None
        self.socket_ceiling: Any = None
        self.registry = registry if registry is not None else CollectorRegistry()
        self.balls = Counter("alley_feed_balls", "Balls from each feed: taken or refused.",
                             ["feed", "outcome"], registry=self.registry)
        self.ball_publish = Histogram(
            "alley_ball_publish_seconds",
            "From a feed handing over a ball to it being stored and published to the screens.",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
            registry=self.registry)
        self.odds_lag = Histogram(
            "alley_odds_lag_seconds", "From a ball's events to the first odds that include it.",
            buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0), registry=self.registry)
        self.odds_settled_lag = Histogram(
            "alley_odds_settled_lag_seconds",
            "From a ball's events to the settled odds that include it.",
            buckets=(0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 5.0, 10.0, 30.0),
            registry=self.registry)
        self.registry.register(_Readings(self))
        ProcessCollector(registry=self.registry)
        # Per match: (seq, when) of the oldest ball whose odds have not come yet, and of the
        # oldest ball whose settled odds have not come yet.
        self._odds_waiting: dict[str, tuple[int, float]] = {}
        self._settled_waiting: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()
        self.unsubscribe = service.bus.subscribe(self._on_bus_message)

    # -- what the process has -------------------------------------------------------------
    def watch(self, *, feeds: Any = None, scheduler: Any = None, app: Any = None) -> CentreMetrics:
        if feeds is not None:
            self.feeds = feeds
        if scheduler is not None:
            self.scheduler = scheduler
        if app is not None:
            self.socketio = app.extensions.get("socketio")
            self.sign_in_failures = app.extensions.get("sign_in_failures")
            self.socket_ceiling = app.extensions.get("socket_ceiling")
        return self

    def counting(self, handle: Callable[[LaneEvent], bool]) -> Callable[[LaneEvent], bool]:
        """``handle`` (the service's feed callback), counting and timing the balls."""

        def handle_counted(event: LaneEvent) -> bool:
            if not isinstance(event, BallRecorded):
                return handle(event)
            started = time.perf_counter()
            refused = handle(event)
            elapsed = time.perf_counter() - started
            self.balls.labels(event.source or "unnamed", "refused" if refused else "taken").inc()
            if not refused:
                self.ball_publish.observe(elapsed)
            return refused

        return handle_counted

    def _on_bus_message(self, topic: str, message: dict[str, Any]) -> None:
        if not topic.startswith("match:") or message.get("origin") != self.service.bus.origin:
            return  # the process that ran the ball (and computes its odds) counts it
        kind = message.get("kind")
        match_id = message.get("match_id") or topic.split(":", 1)[1]
        if kind == "events" and message.get("events"):
            if not self.times_odds:
                return
            seq = message["events"][-1].get("seq")
            with self._lock:
                if isinstance(seq, int):
                    now = time.monotonic()
                    self._odds_waiting.setdefault(match_id, (seq, now))
                    self._settled_waiting.setdefault(match_id, (seq, now))
        elif kind == "odds":
            odds = message.get("odds") or {}
            seq = odds.get("seq")
            if not isinstance(seq, int):
                return
            settled = bool(odds.get("settled") or odds.get("exact"))
            with self._lock:
                first = self._take(self._odds_waiting, match_id, seq)
                done = self._take(self._settled_waiting, match_id, seq) if settled else None
            now = time.monotonic()
            if first is not None:
                self.odds_lag.observe(now - first)
            if done is not None:
                self.odds_settled_lag.observe(now - done)

    @staticmethod
    def _take(waiting: dict[str, tuple[int, float]], match_id: str, seq: int) -> float | None:
        """When the ball waiting for these odds (of event ``seq``) came, no longer waiting;
        None when no ball of the match waits for odds as far along as these."""
        oldest = waiting.get(match_id)
        if oldest is None or seq < oldest[0]:
            return None
        del waiting[match_id]
        return oldest[1]

    def odds_waiting_s(self) -> float:
        with self._lock:
            oldest = min((at for _seq, at in self._odds_waiting.values()), default=None)
        return 0.0 if oldest is None else time.monotonic() - oldest

    def exposition(self) -> bytes:
        return generate_latest(self.registry)

    def close(self) -> None:
        self.unsubscribe()


class _Readings:
    """What is read from the service at each scrape (gauges and the feeds' own counts)."""

    def __init__(self, metrics: CentreMetrics) -> None:
        self.metrics = metrics

    def describe(self) -> list:
        return []  # read at scrape time only

    def collect(self):
        metrics = self.metrics
        if metrics.feeds is not None:
            yield from _feed_families(metrics.feeds.health())
        held = GaugeMetricFamily("alley_held_balls", "Held items open on the desk.")
        try:
            held.add_metric([], len(metrics.service.router.held_log.open_items()))
            yield held
        except Exception as error:  # the ledger's database is down: /healthz says so
            log.warning("metrics: held balls unreadable: %s", error)
        if metrics.scheduler is not None:
            decisions = GaugeMetricFamily("alley_open_decisions",
                                          "Bowlers' decisions waiting, with a deadline running.")
            decisions.add_metric([], len(metrics.scheduler.pending_jobs()))
            yield decisions
        if getattr(metrics.service, "odds", None) is not None:
            waiting = GaugeMetricFamily("alley_odds_waiting_seconds",
                                        "How long the oldest ball still without odds has waited.")
            waiting.add_metric([], metrics.odds_waiting_s())
            yield waiting
        if metrics.socketio is not None:
            clients = GaugeMetricFamily("alley_socket_clients",
                                        "Socket.IO clients connected to this process.")
            clients.add_metric([], len(metrics.socketio.server.eio.sockets))
            yield clients
        if metrics.sign_in_failures is not None:
            failures = CounterMetricFamily(
                "alley_sign_in_failures", "Failed commissioner sign-ins, by what refused them.",
                labels=["refused_by"])
            for refused_by, count in metrics.sign_in_failures.counts().items():
                failures.add_metric([refused_by], count)
            yield failures
        if metrics.socket_ceiling is not None:
            refusals = CounterMetricFamily(
                "alley_socket_refusals", "New Socket.IO connections refused by the ceiling.",
                labels=["reason"])
            for reason in ("address", "centre"):
                refusals.add_metric([reason], metrics.socket_ceiling.refused[reason])
            yield refusals
            sessions = GaugeMetricFamily(
                "alley_socket_sessions", "Socket.IO sessions counted against the ceiling.")
            sessions.add_metric([], metrics.socket_ceiling.open_sessions)
            yield sessions


def _feed_families(health: list[dict[str, Any]]):
    state = StateSetMetricFamily("alley_feed_state", "Each feed's state (1: the current one).",
                                 labels=["feed"])
    lines = CounterMetricFamily("alley_feed_lines", "Lines read from each feed.",
                                labels=["feed", "outcome"])
    reconnects = CounterMetricFamily("alley_feed_reconnects",
                                     "Times each feed was opened again.", labels=["feed"])
    for feed in health:
        name = feed["source"]
        state.add_metric([name], {each: feed["state"] == each for each in FEED_STATES})
        lines.add_metric([name, "ok"], feed["lines_ok"])
        lines.add_metric([name, "rejected"], feed["lines_rejected"])
        lines.add_metric([name, "duplicate"], feed["duplicates"])
        reconnects.add_metric([name], feed["reconnects"])
    return [state, lines, reconnects]


def add_metrics_route(app: Any, metrics: CentreMetrics) -> None:
    """``GET /metrics`` on ``app``: no sign-in (like /healthz); counts only, no names."""
    from flask import Response

    metrics.watch(app=app)
    app.extensions["alley_metrics"] = metrics

    def metrics_view() -> Response:
        return Response(metrics.exposition(), mimetype=None, content_type=CONTENT_TYPE_LATEST)

    app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])


class WorkerMetrics:
    """The worker's metrics on a small HTTP server of their own (``host:port``, a thread),
    from its start: ``alley_worker_active`` is 0 while it stands by, 1 once active, and the
    centre's series (:class:`CentreMetrics`) are added when it becomes active."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        from prometheus_client import Gauge, start_http_server

        self.registry = CollectorRegistry()
        self.active = Gauge("alley_worker_active",
                            "1 while this worker is the centre's active one, 0 standing by.",
                            registry=self.registry)
        self.server, _thread = start_http_server(port, addr=host, registry=self.registry)
        self.port = self.server.server_port

    def centre(self, service: Any, *, odds: bool = False) -> CentreMetrics:
        self.active.set(1)
        return CentreMetrics(service, registry=self.registry, odds=odds)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
