"""Who is calling: the commissioner's signed-in tablet, an API token, or anybody.

The PIN is never stored: the app keeps only its scrypt hash (werkzeug).  A signed-in tablet
carries the centre it signed in to in its (HttpOnly, SameSite=Lax, signed) session cookie, and
is the commissioner only of that centre.  Every state-changing request from a session also
needs the CSRF token; a request with ``Authorization: Bearer <token>`` is judged by the token
alone (:mod:`alley_poker.web.tokens` checks it before any view runs and puts it in ``g``).

>>> hashed = hash_pin("4321")
>>> hashed.startswith("scrypt:"), pin_matches(hashed, "4321"), pin_matches(hashed, "1234")
(True, True, False)
>>> pin_matches(None, "4321")
False
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import g, session
from werkzeug.security import check_password_hash

from alley_poker.config.screen_sections import hash_pin  # noqa: F401 (the PIN's hash: set-pin, init, tests)
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError

SESSION_KEY = "commissioner"
COMMISSIONER_ACTOR = "commissioner:tablet"


def pin_matches(pin_hash: str | None, pin: str) -> bool:
    """True when ``pin`` is the PIN behind ``pin_hash`` (False when no PIN is configured)."""
    if not pin_hash or not pin:
        return False
    return check_password_hash(pin_hash, pin)


def centre() -> str:
    return current_centre().id


def is_commissioner() -> bool:
    """True for a session signed in to this app's centre (a token does not count here)."""
    signed_in_to = session.get(SESSION_KEY)
    return isinstance(signed_in_to, str) and signed_in_to == centre()


def api_token() -> Any | None:
    """The verified API token of this request, if it came with one."""
    return g.get("api_token")


def commissioner_actor() -> str | None:
    """The ledger actor of this request's commissioner: the tablet or a named token."""
    token = api_token()
    if token is not None:
        return f"commissioner:token-{token.id}"
    return COMMISSIONER_ACTOR if is_commissioner() else None


def acting_commissioner() -> str:
    """The ledger actor of a route behind :func:`commissioner_required`, which lets no
    anonymous caller through."""
    actor = commissioner_actor()
    assert actor is not None, "commissioner_required lets no anonymous caller through"
    return actor


def sign_in() -> None:
    # A fresh session on sign-in, so a token planted before sign-in is not carried over.
    session.clear()
    session[SESSION_KEY] = centre()
    session.permanent = False


def sign_out() -> None:
    session.clear()


def commissioner_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse (401) a caller that is neither the signed-in commissioner nor an API token."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if commissioner_actor() is None:
            raise ApiError(401, "sign_in_required",
                           "sign in as the commissioner or send an API token first")
        return view(*args, **kwargs)

    wrapper.commissioner_only = True  # type: ignore[attr-defined]
    return wrapper


def commissioner_session_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Only the commissioner's signed-in session, on the tablet (401 anonymous, 403 for an API
    token).  The error code ``tablet_required`` is the API's, kept as clients know it."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if api_token() is not None:
            raise ApiError(403, "tablet_required",
                           "API tokens are made and revoked on the signed-in tablet only")
        if not is_commissioner():
            raise ApiError(401, "sign_in_required", "sign in as the commissioner first")
        return view(*args, **kwargs)

    wrapper.commissioner_only = True  # type: ignore[attr-defined]
    return wrapper
