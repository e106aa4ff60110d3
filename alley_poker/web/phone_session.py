"""Which bowler a phone is: the session cookie a code's link was exchanged for, checked on
every page, API call and socket join of the phone (:mod:`alley_poker.web.phone_pages`,
:mod:`alley_poker.web.api_phone`, :mod:`alley_poker.web.phone_room`), within the link's rate
(:mod:`alley_poker.web.phone_gate`).  A code that does not open gets words saying why
(``CLOSED_PAGES``), never an error dump."""

from __future__ import annotations

from flask import current_app, request

from alley_poker.store.phone_links import LinkCheck, PhoneLink, PhoneLinkStore
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError

COOKIE = "alley_phone"

#: The clear page for each code that does not open, and its status.
CLOSED_PAGES = {
    "unknown": (404, "This code is not known",
                "Check that the whole code was scanned, or ask the desk for your code."),
    "used": (410, "This code was already opened on a phone",
             "A code opens one phone. If that was not you, or you changed phones, ask the "
             "desk for a new code."),
    "revoked": (410, "This code was turned off by the desk",
                "Ask the desk for a new code."),
    "expired": (410, "This code was for a night that has closed",
                "Codes last until the night's close. Ask the desk for tonight's code."),
    "none": (401, "Scan your code to follow your hand",
             "Your code is on the tablet at the desk, on the night's sheet, or on your "
             "lane's kiosk (ask it to show your code)."),
}



def link_store() -> PhoneLinkStore | None:
    return current_centre().phone_links


def phone_session() -> LinkCheck:
    """The link this browser's phone cookie belongs to (status ``none`` without one)."""
    links, session = link_store(), request.cookies.get(COOKIE, "")
    if links is None or not session:
        return LinkCheck("none")
    return links.by_session(session)



def phone_link(what: str) -> PhoneLink:
    """The caller's live link, within its rate; else the API error."""
    checked = phone_session()
    if checked.status != "ok" or checked.link is None:
        code = {"revoked": "phone_link_revoked", "expired": "phone_link_expired"}.get(
            checked.status, "phone_sign_in_required")
        raise ApiError(401, code, CLOSED_PAGES[checked.status if checked.status in
                                               CLOSED_PAGES else "none"][1])
    if not current_app.extensions["phone_gate"].allows(checked.link, what):
        raise ApiError(429, "too_many_requests", "too many requests from this phone; wait "
                       "a moment")
    return checked.link

