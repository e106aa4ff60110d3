"""Commissioner sign-in: a PIN checked against a real password hash, kept in the session.

The PIN is never stored: the app keeps only its scrypt hash (werkzeug).  A signed-in tablet
carries ``commissioner`` in its (HttpOnly, SameSite=Lax, signed) session cookie; every
state-changing request also needs the CSRF token (Flask-WTF), checked before any view runs.

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

from flask import session
from werkzeug.security import check_password_hash, generate_password_hash

from alley_poker.web.errors import ApiError

SESSION_KEY = "commissioner"
COMMISSIONER_ACTOR = "commissioner:tablet"


def hash_pin(pin: str) -> str:
    """The scrypt hash of ``pin`` to keep in configuration instead of the PIN itself."""
    if not pin or not pin.strip():
        raise ValueError("the commissioner PIN must not be empty")
    return generate_password_hash(pin, method="scrypt")


def pin_matches(pin_hash: str | None, pin: str) -> bool:
    """True when ``pin`` is the PIN behind ``pin_hash`` (False when no PIN is configured)."""
    if not pin_hash or not pin:
        return False
    return check_password_hash(pin_hash, pin)


def is_commissioner() -> bool:
    return bool(session.get(SESSION_KEY))


def sign_in() -> None:
    # A fresh session on sign-in, so a token planted before sign-in is not carried over.
    session.clear()
    session[SESSION_KEY] = True
    session.permanent = False


def sign_out() -> None:
    session.clear()


def commissioner_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse (401) a caller without the commissioner session."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_commissioner():
            raise ApiError(401, "sign_in_required", "sign in as the commissioner first")
        return view(*args, **kwargs)

    wrapper.commissioner_only = True  # type: ignore[attr-defined]
    return wrapper
