"""Serving the centre's pages: ``alley-poker serve`` (one box) and ``alley-poker web``.

:class:`AlleyServer` puts the web app (kiosks, commissioner tablet, JSON API, Socket.IO) in
front of the centre, wired by :class:`alley_poker.centre.Centre` (the alley service on
``database.url``, the scoreboard feeds and the centre's jobs), and stops them in the reverse
order.

:class:`WebServer` is one of any number of stateless web processes of a scaled-out centre:
the web app only, over PostgreSQL, with the Redis bus and the Socket.IO message queue; the
feeds and jobs run in the centre's ``worker`` (:mod:`alley_poker.cli.centre_worker`).

>>> PIN_ENV
'ALLEY_POKER_COMMISSIONER_PIN'
>>> commissioner_pin({})
Traceback (most recent call last):
...
alley_poker.web.server.MissingPin: set ALLEY_POKER_COMMISSIONER_PIN to the commissioner's PIN \
(at least 4 characters) before starting the server; the tablet cannot be signed in without one
>>> commissioner_pin({"ALLEY_POKER_COMMISSIONER_PIN": " 2468 "})
'2468'
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable, Mapping
from types import FrameType

from flask import Flask, Response, jsonify
from werkzeug.serving import BaseWSGIServer, make_server

from alley_poker.centre import Centre, open_centre_service, scaled_settings
from alley_poker.config import AlleyConfig
from alley_poker.service import AlleyService, open_service
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
MIN_PIN_LENGTH = 4
MIN_SECRET_KEY_LENGTH = 32


class MissingPin(RuntimeError):
    """The commissioner's PIN is not configured; the server must not start without one."""


def commissioner_pin(env: Mapping[str, str] | None = None) -> str:
    """The PIN from ``ALLEY_POKER_COMMISSIONER_PIN`` (or its hash from
    ``ALLEY_POKER_COMMISSIONER_PIN_HASH``, see :func:`pin_settings`); refuses a missing or
    short one."""
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


def pin_settings(pin: str) -> dict[str, str]:
    """The app's setting for ``pin``: the PIN (hashed by the app at once) or its hash.

    >>> pin_settings("2468")
    {'COMMISSIONER_PIN': '2468'}
    >>> list(pin_settings("scrypt:32768:8:1$salt$00"))
    ['COMMISSIONER_PIN_HASH']
    """
    if pin.startswith("scrypt:"):
        return {"COMMISSIONER_PIN_HASH": pin}
    return {"COMMISSIONER_PIN": pin}


def shared_secret_key(env: Mapping[str, str] | None = None) -> str:
    """The session-signing key every web process of a centre must share.

    A tablet's session cookie and CSRF token, signed by one process, must verify on the
    next request, which the load balancer may send to another.

    >>> shared_secret_key({})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.web.server.MissingPin: set ALLEY_POKER_SECRET_KEY to the same random value ...
    """
    key = (os.environ if env is None else env).get(SECRET_KEY_ENV, "").strip()
    if len(key) < MIN_SECRET_KEY_LENGTH:
        raise MissingPin(
            f"set {SECRET_KEY_ENV} to the same random value (at least {MIN_SECRET_KEY_LENGTH} "
            "characters, e.g. from 'python -c \"import secrets; print(secrets.token_hex(32))\"') "
            "for every web process of the centre")
    return key


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


class WebServer:
    """One stateless web process of a scaled-out centre (``alley-poker web``)."""

    def __init__(self, config: AlleyConfig, *, pin: str, secret_key: str,
                 host: str = "127.0.0.1", port: int = 8000, listen: bool = True) -> None:
        from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix

        self.config = config
        centre = config.centre.id
        database_url, redis_url = scaled_settings(config)
        self.bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre))
        try:
            self.service = open_service(database_url, centre=centre, bus=self.bus)
            self.app = create_app({
                **pin_settings(pin), "SECRET_KEY": secret_key, "CENTRE": centre,
                "LANES": config.centre.lanes, "TIME_ZONE": config.centre.time_zone,
                "NIGHT_CLOSE": config.night.close, "NIGHT_TIMEZONE": config.night.timezone,
                "DATABASE_URL": database_url, "SOCKETIO_MESSAGE_QUEUE": redis_url,
                # Sign-in attempts are counted across every web process of the centre (and
                # per centre: a chain's centres behind one address do not share a count).
                "RATELIMIT_STORAGE_URI": redis_url,
                "RATELIMIT_KEY_PREFIX": f"alley:{centre}:limiter",
                **config.odds.app_settings(), **config.sockets.app_settings(),
            }, service=self.service)
            add_health_check(self.app, self.service, self.bus)
            add_metrics_route(self.app, CentreMetrics(self.service))
            # listen=False: another server (production_server's gunicorn) serves self.app.
            self.http = HttpThread(self.app, host, port) if listen else None
        except BaseException:
            self.bus.close()
            raise
        self._stopped = threading.Event()

    @property
    def base_url(self) -> str:
        return self.http.base_url

    def start(self) -> WebServer:
        if self.http is not None:
            self.http.start()
        return self

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self.http is not None:
            self.http.stop()
        if self.service.odds is not None:
            self.service.odds.stop()
        self.bus.close()
        store = getattr(self.service.repository, "store", None)
        if store is not None:
            store.close()

    def serve_until_signalled(self, echo: Callable[[str], None] = print) -> None:
        def start() -> None:
            self.start()
            echo(f"{self.config.centre.name} (centre {self.config.centre.id}): web process "
                 f"serving on {self.base_url}")

        run_until_signalled(start, self.stop, echo)


class AlleyServer:
    """The service, feeds, scheduler and web app of one centre, started and stopped together."""

    def __init__(self, config: AlleyConfig, *, pin: str, host: str = "127.0.0.1",
                 port: int = 8000, service: AlleyService | None = None,
                 listen: bool = True) -> None:
        self.config = config
        self.service = service if service is not None else open_centre_service(config)
        self.metrics = CentreMetrics(self.service)  # GET /metrics (web.metrics)
        # The centre (feeds, jobs), built before anything starts: a bad feed dialect stops us
        # with nothing running.
        self.centre = Centre(config, self.service, count_balls=self.metrics.counting)
        self.feeds, self.scheduler = self.centre.feeds, self.centre.scheduler
        # serve makes its own session key unless one is set (init sets one): with it a
        # tablet stays signed in across a restart.
        own_key = os.environ.get(SECRET_KEY_ENV, "").strip()
        self.app = create_app({**pin_settings(pin), "CENTRE": self.service.centre,
                               **({"SECRET_KEY": own_key}
                                  if len(own_key) >= MIN_SECRET_KEY_LENGTH else {}),
                               "LANES": config.centre.lanes,
                               "TIME_ZONE": config.centre.time_zone,
                               "NIGHT_CLOSE": config.night.close,
                               "NIGHT_TIMEZONE": config.night.timezone,
                               **config.odds.app_settings(),
                               **config.sockets.app_settings()},
                              service=self.service)
        add_health_check(self.app, self.service)
        add_metrics_route(self.app, self.metrics.watch(feeds=self.feeds,
                                                       scheduler=self.scheduler))
        # listen=False: another server (production_server's gunicorn) serves self.app.
        self.web = HttpThread(self.app, host, port) if listen else None
        self.host, self.port = host, (self.web.port if self.web is not None else port)
        self._stopped = threading.Event()

    @property
    def base_url(self) -> str:
        return self.web.base_url

    def urls(self, base_url: str | None = None) -> list[tuple[str, str]]:
        """(what, URL) for the tablet, the API and every lane pair's kiosk."""
        base = base_url or self.base_url
        urls = [("commissioner tablet", f"{base}/commissioner"),
                ("JSON API", f"{base}/api/v1/openapi.json")]
        urls += [(f"kiosk lanes {a}-{b}", f"{base}/kiosk/{a}-{b}")
                 for a, b in self.config.centre.lane_pairs]
        return urls

    def start(self) -> AlleyServer:
        self.centre.start()
        if self.web is not None:
            self.web.start()
        return self

    def stop(self) -> None:
        """Stop taking requests, then the feeds, then the scheduler; close the ledger."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self.web is not None:
            self.web.stop()
        self.centre.stop()

    def serve_until_signalled(self, echo: Callable[[str], None] = print) -> None:
        """Start, print the URLs and run until SIGINT (Ctrl-C) or SIGTERM; then stop cleanly."""

        def start() -> None:
            self.start()
            echo(f"{self.config.centre.name}: serving on {self.base_url}")
            for what, url in self.urls():
                echo(f"  {what}: {url}")
            echo("press Ctrl-C to stop")

        run_until_signalled(start, self.stop, echo)
