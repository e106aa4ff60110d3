"""The web service: one Flask app for the kiosk, the commissioner's tablet and the JSON API.

>>> app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})
>>> client = app.test_client()
>>> client.get("/api/v1/matches").get_json()
{'matches': []}
>>> client.post("/api/v1/matches/m1/commands/record-ball").status_code  # no CSRF token
403
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask, redirect, url_for
from flask_socketio import SocketIO
from flask_wtf.csrf import CSRFProtect

from alley_poker.actors import actor_words
from alley_poker.odds.stopping import SETTLED_ERROR
from alley_poker.service import AlleyService, open_service
from alley_poker.service.health import FeedStatusBoard
from alley_poker.service.league_desk import bowler_averages, open_league_desk
from alley_poker.service.night_close import NightCloseBoard
from alley_poker.service.odds import LiveOdds
from alley_poker.service.odds_history import CentreKnowledgeSource
from alley_poker.service.odds_record import OddsRecordSource
from alley_poker.store.api_tokens import ApiTokenStore
from alley_poker.store.kiosk_devices import KioskDeviceStore
from alley_poker.store.phone_links import PhoneLinkStore
from alley_poker.web import (
    api_commands,
    api_held,
    api_league_reports,
    api_leagues,
    api_phone,
    api_reads,
    api_reports,
    api_screen,
    api_side_games,
    api_story,
    commissioner,
    commissioner_league,
    commissioner_pages,
    commissioner_side_games,
    commissioner_story,
    first_night,
    kiosk_pairing,
    odds_record_page,
    phone_links,
    tokens,
)
from alley_poker.web.access_log import AccessLog, install_log_redaction
from alley_poker.web.auth import hash_pin
from alley_poker.web.client_address import BelievedProxy
from alley_poker.web.errors import register_error_handlers
from alley_poker.web.fair_verify_page import verify_page
from alley_poker.web.kiosk import kiosk
from alley_poker.web.kiosk_pairing import KioskGate
from alley_poker.web.offline import offline
from alley_poker.web.page_filters import cards_markup, counted, money_markup
from alley_poker.web.phone_gate import PhoneGate
from alley_poker.web.phone_pages import phone
from alley_poker.web.security_headers import install_security_headers
from alley_poker.web.sign_in_limits import install_sign_in_limits
from alley_poker.web.socket_ceiling import install_socket_ceiling
from alley_poker.web.socket_frames import GuardedPacket, register_refused_frames
from alley_poker.web.sockets import SocketBridge, socket_heartbeat, socketio_channel
from alley_poker.web.tokens import install_request_guard
from kiosk import KIOSK_DIR

#: The JSON API's route modules, each a blueprint of its own under /api/v1 (web.api_request).
API_ROUTES = (api_reads, api_commands, api_held, api_reports, api_story, api_screen,
              api_leagues, api_league_reports, api_side_games, kiosk_pairing, api_phone,
              phone_links, tokens, odds_record_page)
#: The commissioner's page modules: their views are on one blueprint, ``commissioner``
#: (web.commissioner_pages).
COMMISSIONER_PAGE_MODULES = (commissioner, commissioner_league, commissioner_side_games,
                             commissioner_story, first_night, odds_record_page)

DEFAULTS: dict[str, Any] = {
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    # A tablet stays signed in for the night; the token lives as long as the session.
    "WTF_CSRF_TIME_LIMIT": None,
    "RATELIMIT_STORAGE_URI": "memory://",
    # Wrong PINs per device: the more of them, the longer the wait (web.sign_in_limits).
    "SIGN_IN_RATE_LIMIT": "5 per minute; 10 per 15 minutes; 20 per day",
    # Wrong PINs per network address, whatever the device: the cap against brute force.
    "SIGN_IN_ADDRESS_LIMIT": "30 per 10 minutes; 100 per day",
    # PINs tried centre-wide by devices not known yet (a tablet that signed in before is
    # not held): the ceiling over many addresses, its wait growing (web.sign_in_ceiling).
    "SIGN_IN_CENTRE_LIMIT": "50 per 10 minutes; 100 per hour; 200 per day",
    "COMMISSIONER_PIN_HASH": None,
    "DATABASE_URL": "sqlite://",
    # The centre this app serves: its commissioner signs in to this centre only.
    "CENTRE": "default",
    # The centre's time zone for people (IANA name; None: the machine's), from alley.toml.
    "TIME_ZONE": None,
    # Socket.IO's heartbeat (web.sockets.socket_heartbeat): a client that hears no ping for
    # interval + timeout says "Reconnecting…": a hung server shows within 8 s, not the
    # library's 45 (25 + 20).  Its cost, a ping and a pong per client every 4 s, is in
    # docs/deployment.md ("A hung server").
    "SOCKETIO_PING_INTERVAL": 4,
    "SOCKETIO_PING_TIMEOUT": 4,
    # Redis URL when several web processes share the Socket.IO clients (None: one process).
    "SOCKETIO_MESSAGE_QUEUE": None,
    # CSRF is checked by web.tokens' request guard, which lets API-token requests skip it.
    "WTF_CSRF_CHECK_DEFAULT": False,
    # The largest body a request may carry: every API body is a few hundred bytes, so 64 KB
    # is room to spare; a larger one is answered 413 from its Content-Length, unread.
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # Decisions one paired kiosk may send per minute (a bowler taps a few times a frame).
    "KIOSK_DECISIONS_PER_MINUTE": 20,
    # Kiosks one network address may have waiting for pairing at once (web.kiosk_pairing).
    "KIOSK_PAIRING_PER_ADDRESS": 4,
    # The night's close ([night] in alley.toml): a bowler's phone link ends then.
    "NIGHT_CLOSE": "23:30",
    # The close's time zone (IANA name); None or empty: TIME_ZONE's.
    "NIGHT_TIMEZONE": None,
    # Per phone link: decisions and reads (page data, live joins) a minute.
    "PHONE_DECISIONS_PER_MINUTE": 20,
    "PHONE_READS_PER_MINUTE": 120,
    # Live win odds ([odds] in alley.toml, which turns them on unless it says otherwise; an
    # app made without a config, as a test's, has none): Monte Carlo runs per update, pool
    # processes (0: in a thread of this process), the centre's average.
    "ODDS_ENABLED": False,
    "ODDS_ITERATIONS": 20_000,
    "ODDS_FIRST_ITERATIONS": None,  # None: LiveOdds' 400, or the settled count when smaller
    "ODDS_PROCESSES": 1,
    "ODDS_CENTRE_AVERAGE": 150,
    "ODDS_SETTLED_ERROR": SETTLED_ERROR,  # a chance's standard error at which they settle
    # Open Socket.IO connections ([sockets] in alley.toml, web.socket_ceiling): per client
    # address, in all, and how many of those are kept for paired kiosks and the tablet.
    "SOCKETS_PER_ADDRESS": 20,
    "SOCKETS_IN_ALL": 600,
    "SOCKETS_KEPT_FOR_KNOWN": 100,
}


def create_app(config_overrides: Mapping[str, Any] | None = None, *,
               service: AlleyService | None = None) -> Flask:
    """Build the app.  ``config_overrides`` beat ``ALLEY_POKER_*`` environment variables.

    ``COMMISSIONER_PIN`` (plain) is hashed at once and only the hash kept; or give
    ``COMMISSIONER_PIN_HASH``.  Without ``service`` one is opened over ``DATABASE_URL``.
    The Socket.IO server is ``app.extensions["socketio"]``.
    """
    app = Flask(__name__, template_folder=str(KIOSK_DIR / "templates"),
                static_folder=str(KIOSK_DIR / "static"), static_url_path="/static")
    app.config.update(DEFAULTS)
    app.config.from_prefixed_env("ALLEY_POKER")
    app.config.update(config_overrides or {})
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secrets.token_hex(32)
    plain_pin = app.config.pop("COMMISSIONER_PIN", None)
    if plain_pin:
        app.config["COMMISSIONER_PIN_HASH"] = hash_pin(str(plain_pin))

    if service is None:
        service = open_service(app.config["DATABASE_URL"], centre=app.config["CENTRE"])
    app.extensions["alley_service"] = service

    store = getattr(service.repository, "store", None)
    app.extensions["api_tokens"] = (
        ApiTokenStore(store.engine, centre=app.config["CENTRE"]) if store is not None else None)
    app.extensions["kiosk_devices"] = (
        KioskDeviceStore(store.engine, centre=app.config["CENTRE"]) if store is not None
        else None)
    app.extensions["phone_links"] = (
        PhoneLinkStore(store.engine, centre=app.config["CENTRE"]) if store is not None
        else None)
    app.extensions["phone_gate"] = PhoneGate(
        decisions_per_minute=int(app.config["PHONE_DECISIONS_PER_MINUTE"]),
        reads_per_minute=int(app.config["PHONE_READS_PER_MINUTE"]))
    # A phone link's token must never reach a log: not the access log's request lines, not
    # Flask's own error lines.
    install_log_redaction(logging.getLogger("werkzeug"), app.logger)
    # Leagues (rosters, nights, standings) live in the same database as the events.
    app.extensions["league_desk"] = (
        getattr(service, "league_desk", None) or open_league_desk(service)
        if store is not None else None)
    install_request_guard(app, CSRFProtect(app))
    register_error_handlers(app)
    # CSP, framing, sniffing and referrer headers on every answer (web.security_headers).
    install_security_headers(app)
    app.add_template_filter(cards_markup, "cards")
    app.add_template_filter(money_markup, "money")
    app.add_template_filter(actor_words, "who")
    app.add_template_filter(counted, "counted")
    for blueprint in (kiosk, commissioner_pages.commissioner, phone, offline, verify_page,
                      odds_record_page.public_record):
        app.register_blueprint(blueprint)
    for routes in API_ROUTES:
        app.register_blueprint(routes.api)
    install_sign_in_limits(app)
    # Browsers ask for /favicon.ico whatever the page links: answer it, not a 404 per visit.
    app.add_url_rule("/favicon.ico", "favicon", lambda: redirect(
        url_for("static", filename="favicon.svg"), code=301))

    app.extensions["feed_status"] = FeedStatusBoard(service.bus)
    app.extensions["night_close"] = NightCloseBoard(service)
    # A frame the server cannot read is answered with an error (web.socket_frames).
    socketio = SocketIO(app, async_mode="threading", serializer=GuardedPacket,
                        message_queue=app.config["SOCKETIO_MESSAGE_QUEUE"],
                        channel=socketio_channel(service.centre),
                        **socket_heartbeat(app.config))
    register_refused_frames(socketio)
    install_socket_ceiling(app, socketio)
    # Every request, Socket.IO's and the ceiling's refusals included, is a line of the access
    # log (web.access_log), with the address the proxy below believed.
    app.wsgi_app = AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    # Outermost: every part of the app (the socket ceiling, the sign-in limits) counts by the
    # client's address as nginx saw it (web.client_address).
    app.wsgi_app = BelievedProxy(app.wsgi_app)
    gate = KioskGate(app.extensions["kiosk_devices"],
                     per_window=int(app.config["KIOSK_DECISIONS_PER_MINUTE"]), window_s=60.0,
                     waiting_per_address=int(app.config["KIOSK_PAIRING_PER_ADDRESS"]))
    app.extensions["socketio_bridge"] = SocketBridge(socketio, service, gate)
    if app.config["ODDS_ENABLED"] and service.odds is None:
        first = app.config["ODDS_FIRST_ITERATIONS"]
        service.odds = LiveOdds(service.bus, iterations=int(app.config["ODDS_ITERATIONS"]),
                                first_iterations=None if first is None else int(first),
                                processes=int(app.config["ODDS_PROCESSES"]),
                                centre_average=int(app.config["ODDS_CENTRE_AVERAGE"]),
                                settled_error=float(app.config["ODDS_SETTLED_ERROR"]),
                                service=service, averages=_league_averages(app),
                                knowledge=CentreKnowledgeSource(
                                    service.repository.store,
                                    average=int(app.config["ODDS_CENTRE_AVERAGE"])))
    if app.config["ODDS_ENABLED"]:
        # The odds' record (the tablet's Odds page, the phone's link): worked out in a
        # process of its own, or in a thread where the odds themselves are (processes=0).
        app.extensions["odds_record"] = OddsRecordSource(
            service.repository.store, processes=min(1, int(app.config["ODDS_PROCESSES"])))
    return app


def _league_averages(app: Flask):
    desk = app.extensions.get("league_desk")
    return None if desk is None else bowler_averages(desk.store, desk.standings)


__all__ = ["create_app"]
