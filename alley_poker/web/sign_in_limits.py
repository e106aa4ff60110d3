"""How often a PIN may be tried: per device, with a growing wait, under a per-address cap.

A centre's tablets, phones and kiosks usually share one Wi-Fi address, so counting wrong PINs
per address would let one device lock every other one out.  Each browser is therefore given
a long-lived *device* cookie (a random id signed with the app's secret, so it cannot be
forged) and wrong PINs are counted per device, against a staircase of limits
(``[sign_in] per_device``, by default 5 a minute, 10 a quarter-hour, 20 a day): the more wrong
PINs, the longer the wait.  Only wrong PINs count (a sign-in that works costs nothing).  A
script that throws its cookies away (or fetches fresh ones) is still held by a generous cap
per address (``[sign_in] per_address``).  A device that has signed in with the right PIN
before is *known* (its cookie, re-signed on that sign-in, says so) and is not held by the
address cap, so a guesser on the centre's Wi-Fi cannot lock the desk's tablet out; its own
per-device staircase still holds it.  Over both, a centre-wide ceiling on PINs tried by
devices not known yet (``[sign_in] centre_wide``, :mod:`alley_poker.web.sign_in_ceiling`)
holds a guesser with many addresses.  When a limit is hit the sign-in page itself says which
and when to try again (429 with ``Retry-After``); under an address cap or the centre-wide
ceiling it also says that a tablet that has signed in here before can sign in now.  The wait
a new device sees there is the rest of the window the guessing filled (up to 10 minutes for
the address cap with the defaults): it cannot be told from a guesser's fresh cookies, so it
waits with them, and the page says so rather than only "too many wrong PINs".  Failed
sign-ins are counted by what refused them (``alley_sign_in_failures_total`` in /metrics).

>>> round_up_wait(0.2), round_up_wait(59.01)
(1, 60)
"""

from __future__ import annotations

import math
import secrets
import time
from datetime import datetime

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address
from itsdangerous import BadSignature, URLSafeSerializer

from alley_poker.config import SignInConfig
from alley_poker.web.errors import error_body
from alley_poker.web.sign_in_ceiling import CentreCeiling, sign_in_failures

DEVICE_COOKIE = "alley_device"
#: About 400 days, the longest a browser keeps a cookie.
DEVICE_COOKIE_SECONDS = 400 * 24 * 3600
SIGN_IN_VIEW = "commissioner.sign_in_with_pin"


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="alley-device")


def _device_cookie() -> tuple[str | None, bool]:
    """(id, known) from this request's device cookie, if it carries one signed by this app.

    The cookie holds the id alone, or ``{"id": id, "known": true}`` once the device has
    signed in with the right PIN."""
    cookie = request.cookies.get(DEVICE_COOKIE)
    if not cookie:
        return None, False
    try:
        value = _signer().loads(cookie)
    except BadSignature:
        return None, False
    if isinstance(value, dict) and isinstance(value.get("id"), str):
        return value["id"], value.get("known") is True
    return (value, False) if isinstance(value, str) else (None, False)


def device_id() -> str | None:
    """The id in this request's device cookie, if it carries one signed by this app."""
    return _device_cookie()[0]


def known_device() -> bool:
    """True when this device has signed in with the right PIN before (its signed cookie)."""
    return _device_cookie()[1]


def device_key() -> str:
    """The per-device counter; a request without a device cookie counts by its address."""
    device = device_id()
    return f"device:{device}" if device else f"address:{get_remote_address()}"


def address_key() -> str:
    return f"address-cap:{get_remote_address()}"


def _wrong_pin(response: Response) -> bool:
    return response.status_code == 401


def round_up_wait(seconds: float) -> int:
    return max(1, math.ceil(seconds))


def give_device_cookie(response: Response) -> Response:
    """Hand a device cookie to a browser on the commissioner pages that has none yet, and
    mark it known when it has just signed in with the right PIN (a redirect from the view)."""
    if request.blueprint != "commissioner":
        return response
    device, known = _device_cookie()
    signed_in = request.endpoint == SIGN_IN_VIEW and response.status_code == 302
    if device is None or (signed_in and not known):
        value: object = secrets.token_urlsafe(18) if device is None else device
        if signed_in:
            value = {"id": value, "known": True}
        response.set_cookie(DEVICE_COOKIE, _signer().dumps(value),
                            max_age=DEVICE_COOKIE_SECONDS, httponly=True, samesite="Lax",
                            secure=request.is_secure)
    return response


def _in_words(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    return f"{math.ceil(seconds / 60)} minutes"


#: What the sign-in page says, by the limit that refused the PIN unheard.
_REFUSALS = {
    "device": "Too many wrong PINs on this device.",
    "address": "Too many wrong PINs from this network: someone on it may be guessing the PIN.",
    "centre": "Too many wrong PINs at this centre from devices it does not know: someone may "
              "be guessing the PIN.",
}
_KNOWN_TABLETS = (" A tablet that has signed in here before can sign in now; other devices can"
                  " try again")


def _locked_out(refused_by: str, reset_at: float) -> tuple:
    """The sign-in page, in the app's style, saying why and when the next PIN will be heard."""
    sign_in_failures(current_app).count(refused_by)
    wait = round_up_wait(reset_at - time.time())
    at = datetime.fromtimestamp(reset_at).astimezone().strftime("%H:%M:%S")
    problem = _REFUSALS[refused_by]
    if refused_by == "device":
        problem += f" Try again in {_in_words(wait)} (at {at}). Other devices can still sign in."
    else:
        problem += f"{_KNOWN_TABLETS} in {_in_words(wait)} (at {at})."
    headers = {"Retry-After": str(wait)}
    if request.accept_mimetypes.best == "application/json":
        body, status = error_body("too_many_requests", problem, 429, "pin")
        return jsonify(body), status, headers
    return render_template("commissioner_sign_in.html", problem=problem), 429, headers


def _count_wrong_pins(response: Response) -> Response:
    if request.endpoint == SIGN_IN_VIEW and _wrong_pin(response):
        sign_in_failures(current_app).count("pin")
    return response


def install_sign_in_limits(app: Flask, limits: SignInConfig, centre: str) -> Limiter:
    """Limit ``commissioner.sign_in_with_pin`` per device, per address and centre-wide
    (``limits``, ``[sign_in]`` of alley.toml; see the module)."""
    limiter = Limiter(device_key, app=app, storage_uri=app.config["RATELIMIT_STORAGE_URI"],
                      # Check every limit, so the page names the longest wait, not the first.
                      fail_on_first_breach=False)
    sign_in_failures(app)
    ceiling = CentreCeiling(limiter, lambda: limits.centre_wide, lambda: centre)
    # Innermost: the centre's count is taken only for a PIN the device and address limits let
    # through, right before it is checked.
    view = ceiling.guard(app.view_functions[SIGN_IN_VIEW], exempt=known_device,
                         refused=lambda reset_at: _locked_out("centre", reset_at))
    view = limiter.limit(lambda: limits.per_device, key_func=device_key,
                         deduct_when=_wrong_pin)(view)
    view = limiter.limit(lambda: limits.per_address, key_func=address_key,
                         deduct_when=_wrong_pin, exempt_when=known_device)(view)
    app.view_functions[SIGN_IN_VIEW] = view
    app.after_request(give_device_cookie)
    app.after_request(_count_wrong_pins)

    @app.errorhandler(RateLimitExceeded)
    def _too_many(error: RateLimitExceeded):
        breached = [limit for limit in limiter.current_limits if limit.breached]
        reset_at = max((limit.reset_at for limit in breached), default=time.time() + 60)
        per_address = any("address-cap:" in limit.key for limit in breached)
        return _locked_out("address" if per_address else "device", reset_at)

    return limiter
