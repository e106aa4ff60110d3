"""The web service: one Flask app for the kiosk, the commissioner's tablet and the JSON API.

>>> from alley_poker.centre import build_centre
>>> from alley_poker.config import AlleyConfig
>>> centre = build_centre(AlleyConfig.model_validate({
...     "centre": {"name": "Doc Lanes", "lanes": 4}, "database": {"url": "sqlite://"},
...     "odds": {"enabled": False}}))
>>> app = create_app(centre, {"TESTING": True})
>>> client = app.test_client()
>>> client.get("/api/v1/matches").get_json()
{'matches': []}
>>> client.post("/api/v1/matches/m1/commands/record-ball").status_code  # no CSRF token
403
>>> centre.stop()
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
from alley_poker.centre import Centre, Role
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
from alley_poker.web.centre_access import keep_centre
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
from alley_poker.web.socket_ceiling import SocketLimits, install_socket_ceiling
from alley_poker.web.socket_frames import GuardedPacket, register_refused_frames
from alley_poker.web.sockets import SocketBridge, socketio_channel
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

#: Flask's and its extensions' own settings; the centre's are typed, in its configuration
#: (``alley_poker.config.AlleyConfig``, read through ``web.centre_access``).
FLASK_SETTINGS: dict[str, Any] = {
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    # A tablet stays signed in for the night; the token lives as long as the session.
    "WTF_CSRF_TIME_LIMIT": None,
    # CSRF is checked by web.tokens' request guard, which lets API-token requests skip it.
    "WTF_CSRF_CHECK_DEFAULT": False,
    "RATELIMIT_STORAGE_URI": "memory://",
    # The largest body a request may carry: every API body is a few hundred bytes, so 64 KB
    # is room to spare; a larger one is answered 413 from its Content-Length, unread.
    "MAX_CONTENT_LENGTH": 64 * 1024,
}


def create_app(centre: Centre, flask_settings: Mapping[str, Any] | None = None) -> Flask:
    """The web app in front of ``centre`` (built by :func:`alley_poker.centre.build_centre`).

    It registers the blueprints, page filters, guards and Socket.IO, and keeps the centre
    once (:func:`alley_poker.web.centre_access.current_centre`).  ``flask_settings`` are
    Flask's own (``TESTING``, ``SECRET_KEY``, ``RATELIMIT_*``); the session key is the
    configuration's ``web.secret_key`` (ALLEY_POKER_SECRET_KEY), else made for this app.
    The Socket.IO server is ``app.extensions["socketio"]``.
    """
    app = Flask(__name__, template_folder=str(KIOSK_DIR / "templates"),
                static_folder=str(KIOSK_DIR / "static"), static_url_path="/static")
    config = centre.config
    app.config.update(FLASK_SETTINGS)
    if centre.role is Role.WEB:
        # Sign-in attempts are counted across every web process of the centre (and per
        # centre: a chain's centres behind one address do not share a count).
        app.config.update(RATELIMIT_STORAGE_URI=config.redis.url,
                          RATELIMIT_KEY_PREFIX=f"alley:{centre.id}:limiter")
    secret = config.web.secret_key
    app.config["SECRET_KEY"] = (secret.get_secret_value() if secret is not None
                                else secrets.token_hex(32))
    app.config.update(flask_settings or {})
    keep_centre(app, centre)
    # A phone link's token must never reach a log: not the access log's request lines, not
    # Flask's own error lines.
    install_log_redaction(logging.getLogger("werkzeug"), app.logger)
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
    install_sign_in_limits(app, config.sign_in, centre.id)
    # Browsers ask for /favicon.ico whatever the page links: answer it, not a 404 per visit.
    app.add_url_rule("/favicon.ico", "favicon", lambda: redirect(
        url_for("static", filename="favicon.svg"), code=301))

    # A frame the server cannot read is answered with an error (web.socket_frames).
    socketio = SocketIO(app, async_mode="threading", serializer=GuardedPacket,
                        message_queue=config.redis.url if centre.role is Role.WEB else None,
                        channel=socketio_channel(centre.id),
                        ping_interval=config.sockets.ping_interval_s,
                        ping_timeout=config.sockets.ping_timeout_s)
    register_refused_frames(socketio)
    install_socket_ceiling(app, socketio, SocketLimits.from_config(config.sockets))
    # Every request, Socket.IO's and the ceiling's refusals included, is a line of the access
    # log (web.access_log), with the address the proxy below believed.
    app.wsgi_app = AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    # Outermost: every part of the app (the socket ceiling, the sign-in limits) counts by the
    # client's address as nginx saw it (web.client_address).
    app.wsgi_app = BelievedProxy(app.wsgi_app)
    gate = KioskGate(centre.kiosk_devices, per_window=config.kiosks.decisions_per_minute,
                     window_s=60.0, waiting_per_address=config.kiosks.pairing_per_address)
    app.extensions["socketio_bridge"] = SocketBridge(socketio, centre.service, gate,
                                                     odds=centre.odds)
    # Per phone link: its decisions and reads a minute (web.phone_gate).
    app.extensions["phone_gate"] = PhoneGate(
        decisions_per_minute=config.phones.decisions_per_minute,
        reads_per_minute=config.phones.reads_per_minute)
    return app


__all__ = ["create_app"]
