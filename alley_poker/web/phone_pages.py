"""The bowler's phone's pages: a code's link opens the bowler's own page, live, for one night.

``GET /p/<token>`` (the QR code's URL) exchanges the link's token, once, for a session
cookie (``alley_phone``: HttpOnly, SameSite=Strict, gone at the night's close) and answers
303 to ``/phone``, so the token leaves the address bar and the history; it is never written
to a log (:func:`alley_poker.web.access_log.redact` rewrites it out of every line).  A code
that is unknown, spent on another phone, revoked by the desk or past its night gets a page
saying so and what to do, never an error dump.

``/phone`` shows what the lane's kiosk shows (the public match view — with the live win
odds, ``odds``, when the centre shows them — and the lane screen's lanes, who is up and the
running scores) with the bowler's own hand (and own odds) first and their own pending
decision to answer: its data and answers are the phone's JSON (:mod:`alley_poker.web.api_phone`:
``GET /api/v1/phone/me``, ``POST /api/v1/phone/decisions``), acting as that bowler only, in
that match only; its live changes come over Socket.IO in the bowler's room
(:mod:`alley_poker.web.phone_room`).  Who the phone is, and its rate, is
:mod:`alley_poker.web.phone_session`.
"""

from __future__ import annotations

from flask import Blueprint, make_response, redirect, render_template, request, url_for

from alley_poker.web.api_request import alley
from alley_poker.web.match_titles import match_title
from alley_poker.web.phone_session import CLOSED_PAGES, COOKIE, link_store, phone_session

phone = Blueprint("phone", __name__)


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

