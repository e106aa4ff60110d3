"""The bowler's phone: a code's link opens the bowler's own page, live, for one night.

``GET /p/<token>`` (the QR code's URL) exchanges the link's token, once, for a session
cookie (``alley_phone``: HttpOnly, SameSite=Strict, gone at the night's close) and answers
303 to ``/phone``, so the token leaves the address bar and the history; it is never written
to a log (:func:`alley_poker.web.access_log.redact` rewrites it out of every line).  A code
that is unknown, spent on another phone, revoked by the desk or past its night gets a page
saying so and what to do, never an error dump.

``/phone`` shows what the lane's kiosk shows (the public match view — with the live win odds,
``odds``, when the centre shows them — and the lane screen's lanes, who is up and the running
scores, ``GET /api/v1/phone/me``) with the bowler's own hand (and own odds) first and their
own pending decision to answer, ``POST /api/v1/phone/decisions``: the same validation and
ledger commands as the kiosk and the tablet
(:func:`~alley_poker.web.kiosk_decisions.decide_for_bowler`), acting as that bowler only, in
that match only.  Each answer carries the phone's request id: a double tap or a retried
request is answered as the first time and acted on once.  Live changes come over Socket.IO:
``phone_join`` puts the socket in the bowler's room (:mod:`alley_poker.web.rooms`), which
receives every ``match_update`` and ``match_odds`` of the match (the latest odds also follow
the ``state`` of each join); the page joins again on every reconnection and when the phone
wakes, and so is whole again.  Reads and decisions are rate-limited per link.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_socketio import SocketIO, emit
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from alley_poker.service import AlleyService
from alley_poker.store.phone_links import LinkCheck, PhoneLink, PhoneLinkStore
from alley_poker.web.api_request import API_PREFIX, alley, validated_body
from alley_poker.web.api_screen import match_screen, screen_facts
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, error_body
from alley_poker.web.kiosk_decisions import decide_for_bowler
from alley_poker.web.match_titles import match_title
from alley_poker.web.phone_schemas import PhoneDecisionBody
from alley_poker.web.public import public_match_view
from alley_poker.web.rooms import bowler_room, enter

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("phone_api", __name__, url_prefix=API_PREFIX)

phone = Blueprint("phone", __name__)

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


class PhoneGate:
    """Per-link rate limits: reads (page data, socket joins) and decisions."""

    def __init__(self, *, decisions_per_minute: int, reads_per_minute: int):
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._decisions = RateLimitItemPerMinute(decisions_per_minute)
        self._reads = RateLimitItemPerMinute(reads_per_minute)

    def allows(self, link: PhoneLink, what: str) -> bool:
        limit = self._decisions if what == "decide" else self._reads
        return self._limiter.hit(limit, "phone", what, str(link.id))


def link_store() -> PhoneLinkStore | None:
    return current_centre().phone_links


def phone_session() -> LinkCheck:
    """The link this browser's phone cookie belongs to (status ``none`` without one)."""
    links, session = link_store(), request.cookies.get(COOKIE, "")
    if links is None or not session:
        return LinkCheck("none")
    return links.by_session(session)


def closed_page(status: str):
    code, title, advice = CLOSED_PAGES[status]
    answer = make_response(render_template("phone_closed.html", title=title, advice=advice,
                                           reason=status), code)
    return _private(answer)


def _private(answer):
    answer.headers["Cache-Control"] = "no-store"
    answer.headers["Referrer-Policy"] = "no-referrer"
    return answer


@phone.get("/p/<token>")
def open_link(token: str):
    links = link_store()
    if links is None:
        return closed_page("unknown")
    checked = links.open(token)
    if checked.status == "used":
        mine = phone_session()
        if mine.status == "ok" and mine.link is not None and mine.link.id == checked.link.id:
            checked = mine  # the same phone scanning its code again
    if checked.status != "ok" or checked.link is None:
        return closed_page(checked.status)
    answer = _private(redirect(url_for("phone.phone_page"), code=303))
    if checked.session is not None:
        answer.set_cookie(COOKIE, checked.session, expires=checked.link.expires_at,
                          httponly=True, samesite="Strict", secure=request.is_secure, path="/")
    return answer


@phone.get("/phone")
def phone_page():
    checked = phone_session()
    if checked.status != "ok" or checked.link is None:
        return closed_page(checked.status)
    link = checked.link
    return _private(make_response(render_template(
        "phone.html", bowler=link.bowler, match_id=link.match_id,
        match_title=match_title(alley(), link.match_id),
        expires_at=link.expires_at.isoformat())))


# --- the phone's JSON ------------------------------------------------------------------------
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


def phone_screen(service: AlleyService, link: PhoneLink) -> dict[str, Any] | None:
    """The match as the kiosk shows it (its lanes, who is up, running scores, balls held
    for the desk, and the live odds in its state when the centre shows them)."""
    state = service.state(link.match_id)
    if state.status == "new":
        return None
    return match_screen(service, state)


@api.get("/phone/me")
def phone_me():
    link = phone_link("read")
    return jsonify({"bowler": link.bowler, "match_id": link.match_id,
                    "night_date": link.night_date.isoformat(),
                    "expires_at": link.expires_at.isoformat(),
                    "screen": phone_screen(alley(), link)})


@api.post("/phone/decisions")
def phone_decide():
    link = phone_link("decide")
    body = validated_body(PhoneDecisionBody)
    if body.bowler is not None and body.bowler != link.bowler:
        raise ApiError(403, "forbidden", f"this phone answers for {link.bowler} only",
                       "bowler")
    if body.match_id is not None and body.match_id != link.match_id:
        raise ApiError(403, "forbidden", f"this phone answers in match {link.match_id} only",
                       "match_id")
    links = link_store()
    assert links is not None  # phone_link found the link there
    earlier = links.claim_request(link.id, body.request_id)
    if earlier is not None:
        answer, status = earlier
        return jsonify({**answer, "replayed": True} if status == 200 else answer), status
    try:
        answer, status = decide_for_bowler(
            alley(), [link.match_id],
            {**body.answer(), "match_id": link.match_id, "kind": body.kind,
             "bowler": link.bowler})
    except Exception:
        links.finish_request(link.id, body.request_id, *error_body(
            "server_error", "the decision could not be answered", 500))
        raise
    if status == 200:
        answer = {"ok": True, "replayed": False}
    links.finish_request(link.id, body.request_id, answer, status)
    return jsonify(answer), status


# --- the bowler's room -----------------------------------------------------------------------
def register_phone_room(socketio: SocketIO, service: AlleyService) -> None:
    """``phone_join``: the socket joins its bowler's room and receives the match's state, then
    its latest odds (when the centre shows them), as a kiosk's ``join`` does."""
    @socketio.on("phone_join")
    def _phone_join(*_data: Any) -> dict[str, Any]:
        try:
            link = phone_link("read")
        except ApiError as refused:
            return error_body(refused.code, refused.message, refused.status)[0]
        enter(service.centre, bowler_room(link.match_id, link.bowler))
        state = service.state(link.match_id)
        if state.status != "new":
            emit("state", {"match_id": link.match_id, "state": public_match_view(state),
                           "screen": screen_facts(service, state)})
            odds = current_centre().odds
            odds = odds.latest(link.match_id) if odds is not None else None
            if odds is not None:
                emit("match_odds", {"match_id": link.match_id, "odds": odds})
        return {"ok": True, "match_id": link.match_id, "bowler": link.bowler}
