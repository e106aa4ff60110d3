"""API tokens: made and revoked on the signed-in tablet, sent as ``Authorization: Bearer``.

A centre's own systems act as its commissioner with a token instead of a session.  Browsers
never attach an ``Authorization`` header on their own, so a token request needs no CSRF token;
every other state-changing request does.  A token that is unknown, revoked or another
centre's is refused with 401 before any view runs, whatever the route.
"""

from __future__ import annotations

from flask import Blueprint, Flask, g, jsonify, request
from flask_wtf.csrf import CSRFProtect

from alley_poker.store.api_tokens import ApiToken, ApiTokenStore
from alley_poker.store.event_store import as_utc
from alley_poker.web.api_request import API_PREFIX, validated_body
from alley_poker.web.auth import commissioner_session_required
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, revoked_or_not_found
from alley_poker.web.schemas import CreateTokenBody

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("tokens", __name__, url_prefix=API_PREFIX)

BEARER = "bearer "
CSRF_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def token_store() -> ApiTokenStore:
    tokens = current_centre().api_tokens
    if tokens is None:
        raise ApiError(503, "tokens_unavailable", "API tokens need the event store's database")
    return tokens


def bearer_secret() -> str | None:
    """The secret of an ``Authorization: Bearer`` header on an API request, if any."""
    header = request.headers.get("Authorization", "")
    if not request.path.startswith("/api/") or header[:len(BEARER)].lower() != BEARER:
        return None
    return header[len(BEARER):].strip()


def install_request_guard(app: Flask, csrf: CSRFProtect) -> None:
    """Check every request's token or CSRF token before its view (CSRFProtect's own check is
    off: ``WTF_CSRF_CHECK_DEFAULT`` is False so that token requests can skip it)."""

    @app.before_request
    def _authenticate_or_check_csrf() -> None:
        secret = bearer_secret()
        if secret is not None:
            token = token_store().verify(secret)
            if token is None:
                raise ApiError(401, "bad_token",
                               "the API token is unknown, revoked or not this centre's",
                               "Authorization")
            g.api_token = token
            return
        if request.method in CSRF_METHODS:
            csrf.protect()


def token_view(token: ApiToken) -> dict:
    return {"id": token.id, "name": token.name,
            "created_at": as_utc(token.created_at).isoformat(),
            "revoked_at": as_utc(token.revoked_at).isoformat() if token.revoked_at else None}


@api.get("/tokens")
@commissioner_session_required
def list_tokens():
    return jsonify({"tokens": [token_view(token) for token in token_store().list()]})


@api.post("/tokens")
@commissioner_session_required
def create_token():
    body = validated_body(CreateTokenBody)
    made = token_store().create(body.name)
    return jsonify({"id": made.id, "name": made.name, "token": made.secret}), 201


@api.delete("/tokens/<int:token_id>")
@commissioner_session_required
def revoke_token(token_id: int):
    return revoked_or_not_found(token_store().revoke, token_id,
                                f"no live API token {token_id}", "token_id")
