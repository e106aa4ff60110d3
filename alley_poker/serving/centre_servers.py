"""Serving the centre's pages: ``alley-poker serve`` (one box) and ``alley-poker web``.

:class:`AlleyServer` puts the web app (kiosks, commissioner tablet, JSON API, Socket.IO) in
front of a one-box centre built by :func:`alley_poker.centre.build_centre` (the alley service
on ``database.url``, the scoreboard feeds and the centre's jobs), and stops them in the reverse
order.

:class:`WebServer` is one of any number of stateless web processes of a scaled-out centre:
the web app only, over PostgreSQL, with the Redis bus and the Socket.IO message queue; the
feeds and jobs run in the centre's ``worker`` (:mod:`alley_poker.cli.centre_worker`).

The commissioner's PIN and the session key are the configuration's (``[commissioner]`` and
``[web]``, set from ALLEY_POKER_COMMISSIONER_PIN(_HASH) and ALLEY_POKER_SECRET_KEY); a
server refuses to start without them:

>>> from alley_poker.config import load_config_text
>>> require_commissioner_pin(load_config_text('[centre]\\nname = "X"\\nlanes = 2', env={}))
Traceback (most recent call last):
...
alley_poker.serving.centre_servers.MissingPin: set ALLEY_POKER_COMMISSIONER_PIN \
to the commissioner's PIN (at least 4 characters) before starting the server; \
the tablet cannot be signed in without one
>>> require_commissioner_pin(load_config_text('[centre]\\nname = "X"\\nlanes = 2',
...     env={PIN_ENV: " 2468 "}))
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Self

from flask import Flask, Response, jsonify
from werkzeug.serving import BaseWSGIServer, make_server

from alley_poker.centre import Centre, Role, build_centre
from alley_poker.config import AlleyConfig
from alley_poker.config.screen_sections import MIN_PIN_LENGTH, MIN_SECRET_KEY_LENGTH
from alley_poker.service import AlleyService
from alley_poker.serving.http_timeouts import GuardedRequestHandler
from alley_poker.serving.memory_report import write_memory_snapshot
from alley_poker.serving.process_tuning import tune_garbage_collector, tune_thread_switching
from alley_poker.web import create_app
from alley_poker.web.metrics import CentreMetrics, add_metrics_route

log = logging.getLogger(__name__)

PIN_ENV = "ALLEY_POKER_COMMISSIONER_PIN"
#: Or the PIN's scrypt hash (``alley-poker init`` writes this; the PIN itself is kept nowhere).
PIN_HASH_ENV = "ALLEY_POKER_COMMISSIONER_PIN_HASH"
SECRET_KEY_ENV = "ALLEY_POKER_SECRET_KEY"


class MissingPin(RuntimeError):
    """The commissioner's PIN is not configured; the server must not start without one."""


def require_commissioner_pin(config: AlleyConfig) -> None:
    """Refuse a configuration with no commissioner's PIN (the tablet could not sign in)."""
    if config.commissioner.pin_hash is None:
        raise MissingPin(
            f"set {PIN_ENV} to the commissioner's PIN (at least {MIN_PIN_LENGTH} characters) "
            "before starting the server; the tablet cannot be signed in without one")


def require_shared_secret_key(config: AlleyConfig) -> None:
    """Refuse a scaled-out web process without the session-signing key every web process of
    the centre shares: a tablet's session cookie and CSRF token, signed by one process, must
    verify on the next request, which the load balancer may send to another.

    >>> from alley_poker.config import load_config_text
    >>> require_shared_secret_key(load_config_text('[centre]\\nname = "X"\\nlanes = 2',
    ...     env={}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.serving.centre_servers.MissingPin: set ALLEY_POKER_SECRET_KEY to the same ...
    """
    if config.web.secret_key is None:
        raise MissingPin(
            f"set {SECRET_KEY_ENV} to the same random value (at least {MIN_SECRET_KEY_LENGTH} "
            "characters, e.g. from 'python -c \"import secrets; print(secrets.token_hex(32))\"') "
            "for every web process of the centre")


def commissioner_pin(env: Mapping[str, str] | None = None) -> str:
    """The PIN (or its hash) an environment file sets, for ``doctor``'s advice on it; a
    server reads it from its configuration (:func:`require_commissioner_pin`).

    >>> commissioner_pin({"ALLEY_POKER_COMMISSIONER_PIN": " 2468 "})
    '2468'
    """
    env = os.environ if env is None else env
    pin = env.get(PIN_ENV, "").strip()
    hashed = env.get(PIN_HASH_ENV, "").strip()
    if not pin and hashed.startswith("scrypt:"):
        return hashed
    if len(pin) < MIN_PIN_LENGTH:
        raise MissingPin(
            f"set {PIN_ENV} to the commissioner's PIN (at least {MIN_PIN_LENGTH} characters) "
            "before starting the server; the tablet cannot be signed in without one")
    return pin


def add_health_check(app: Flask, service: AlleyService, bus: object | None = None) -> None:
    """``GET /healthz`` for a load balancer or monitor: 200 when the ledger's database (and
    the Redis bus, if any) answer, else 503 naming what failed.  No sign-in; shows no data."""
    from sqlalchemy import text

    def healthz() -> tuple[Response, int]:
        checks: dict[str, str] = {}
        store = getattr(service.repository, "store", None)
        if store is not None:
            try:
                with store.engine.connect() as connection:
                    connection.execute(text("SELECT 1"))
                checks["database"] = "ok"
            except Exception as error:  # any failure at all is "not healthy"
                checks["database"] = f"down: {type(error).__name__}"
        if bus is not None:
            try:
                bus.ping()  # type: ignore[attr-defined]
                checks["redis"] = "ok"
            except Exception as error:
                checks["redis"] = f"down: {type(error).__name__}"
        healthy = all(value == "ok" for value in checks.values())
        return jsonify({"ok": healthy, "centre": service.centre, **checks}), (
            200 if healthy else 503)

    app.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])


class HttpThread:
    """The app on ``host:port`` (threaded werkzeug, WebSocket upgrades included) in a thread."""

    def __init__(self, app: object, host: str, port: int) -> None:
        self.host = host
        # Deadlines for reading requests: slow or idle clients cannot pile up (http_timeouts).
        self.http: BaseWSGIServer = make_server(host, port, app, threaded=True,
                                                request_handler=GuardedRequestHandler)
        self.port = self.http.server_port
        self._thread = threading.Thread(target=self.http.serve_forever, name="alley-web",
                                        daemon=True)

    @property
    def base_url(self) -> str:
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{shown}:{self.port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self._thread.join(timeout=5)


def run_until_signalled(start: Callable[[], None], stop: Callable[[], None],
                        echo: Callable[[str], None] = print) -> None:
    """``start()``, then wait for SIGINT (Ctrl-C) or SIGTERM; then ``stop()`` cleanly."""
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        echo(f"{signal.Signals(signum).name}: stopping")
        stop_requested.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    pacer = None
    try:
        start()
        pacer = tune_garbage_collector()
        tune_thread_switching()
        while not stop_requested.wait(0.5):
            pass
        # Only when asked for (web.memory_report): what the night left allocated.
        write_memory_snapshot()
    finally:
        if pacer is not None:
            pacer.stop()
        stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        echo("stopped")


class _ServedCentre:
    """What both servers share: a centre and its app, served by our own HTTP thread
    (``http``; None when another server, production_server's gunicorn, serves the app)."""

    centre: Centre
    http: HttpThread | None
    _stopped: threading.Event

    @property
    def base_url(self) -> str:
        return self.http.base_url

    def serving_lines(self, base_url: str) -> list[str]:
        """What is said once the server has started: where it serves (at ``base_url``, ours or
        gunicorn's)."""
        raise NotImplementedError

    def start(self) -> Self:
        """The centre's jobs and feeds (a web process has none), then taking requests."""
        self.centre.start()
        if self.http is not None:
            self.http.start()
        return self

    def serve_until_signalled(self, echo: Callable[[str], None] = print) -> None:
        """Start, say where it serves and run until SIGINT (Ctrl-C) or SIGTERM; then stop
        cleanly."""

        def start() -> None:
            self.start()
            for line in self.serving_lines(self.base_url):
                echo(line)

        run_until_signalled(start, self.stop, echo)

    def stop(self) -> None:
        """Stop taking requests, then the centre (its feeds, its scheduler); close the ledger."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self.http is not None:
            self.http.stop()
        self.centre.stop()


class WebServer(_ServedCentre):
    """One stateless web process of a scaled-out centre (``alley-poker web``)."""

    def __init__(self, config: AlleyConfig, *, host: str = "127.0.0.1", port: int = 8000,
                 listen: bool = True) -> None:
        self.config = config
        require_shared_secret_key(config)
        self.centre = build_centre(config, Role.WEB)
        try:
            self.service, self.bus = self.centre.service, self.centre.bus
            self.app = create_app(self.centre)
            add_health_check(self.app, self.service, self.bus)
            add_metrics_route(self.app, CentreMetrics(self.service,
                                                      odds=self.centre.odds is not None))
            # listen=False: another server (production_server's gunicorn) serves self.app.
            self.http = HttpThread(self.app, host, port) if listen else None
        except BaseException:
            self.centre.stop()
            raise
        self._stopped = threading.Event()

    def serving_lines(self, base_url: str) -> list[str]:
        return [f"{self.config.centre.name} (centre {self.config.centre.id}): web process "
                f"serving on {base_url}"]


class AlleyServer(_ServedCentre):
    """The service, feeds, scheduler and web app of one centre, started and stopped together.

    The centre is built here (:func:`~alley_poker.centre.build_centre`, one box), with its
    balls counted for ``GET /metrics``; ``rng_factory`` seeds the deals (demos, tests).  Without
    ``[web] secret_key`` the app makes its own session key (a tablet then signs in again after
    a restart; ``init`` sets one).
    """

    def __init__(self, config: AlleyConfig, *, host: str = "127.0.0.1", port: int = 8000,
                 listen: bool = True, rng_factory: Callable[[], object] | None = None) -> None:
        self.config = config
        metrics: list[CentreMetrics] = []

        def count_balls(service: AlleyService):
            # GET /metrics (web.metrics); made before the odds, which it times.
            metrics.append(CentreMetrics(service, odds=config.odds.enabled))
            return metrics[0].counting

        # Built before anything starts: a bad feed dialect stops us with nothing running.
        self.centre: Centre = build_centre(config, Role.ONE_BOX, count_balls=count_balls,
                                           rng_factory=rng_factory)  # type: ignore[arg-type]
        try:
            self.service = self.centre.service
            self.metrics = metrics[0]
            self.feeds, self.scheduler = self.centre.feeds, self.centre.scheduler
            self.app = create_app(self.centre)
            add_health_check(self.app, self.service)
            add_metrics_route(self.app, self.metrics.watch(feeds=self.feeds,
                                                           scheduler=self.scheduler))
            # listen=False: another server (production_server's gunicorn) serves self.app.
            self.http = HttpThread(self.app, host, port) if listen else None
        except BaseException:
            self.centre.stop()
            raise
        self.host, self.port = host, (self.http.port if self.http is not None else port)
        self._stopped = threading.Event()

    def urls(self, base_url: str | None = None) -> list[tuple[str, str]]:
        """(what, URL) for the tablet, the API and every lane pair's kiosk."""
        base = base_url or self.base_url
        urls = [("commissioner tablet", f"{base}/commissioner"),
                ("JSON API", f"{base}/api/v1/openapi.json")]
        urls += [(f"kiosk lanes {a}-{b}", f"{base}/kiosk/{a}-{b}")
                 for a, b in self.config.centre.lane_pairs]
        return urls

    def serving_lines(self, base_url: str) -> list[str]:
        return [f"{self.config.centre.name}: serving on {base_url}",
                *(f"  {what}: {url}" for what, url in self.urls(base_url)),
                "press Ctrl-C to stop"]
