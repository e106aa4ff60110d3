"""Phone links at the web layer: the commissioner's side of them — show a code, print the
night's codes, revoke.

A code is a link ``/p/<token>`` for one bowler of one match and that match's night, drawn as
a QR code (``segno``, SVG).  Only a hash of the token is kept, so a code can be shown only
when it is made: showing a bowler's code again makes a new one, and the bowler's codes not
scanned yet stop working (a phone that already opened one keeps working).  Revoking a link
(a lost phone) ends it at once; the desk then shows a new code.

- ``GET /api/v1/matches/<id>/phone-links``: the match's links (never a token);
- ``POST /api/v1/matches/<id>/phone-links`` ``{"bowler"}``: a new code for that bowler;
- ``POST /api/v1/phone-links/sheet``: a new code for every bowler of every match in play,
  for the tablet's printed sheet;
- ``DELETE /api/v1/phone-links/<link_id>``: revoke a link.

A paired kiosk asks for a bowler's code over Socket.IO (``phone_code`` ``{match_id,
bowler}``), for a match on its own lanes, within its decision rate.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import segno
from flask import Blueprint, jsonify, request, url_for
from markupsafe import escape

from alley_poker.ledger import CommandRefused
from alley_poker.service import AlleyService
from alley_poker.service.phone_nights import night_of_match
from alley_poker.store.phone_links import PhoneLink, PhoneLinkStore
from alley_poker.web.api_request import (
    API_PREFIX,
    alley,
    existing_match,
    known_match_ids,
    validated_body,
)
from alley_poker.web.auth import commissioner_actor, commissioner_session_required
from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError, error_body, revoked_or_not_found
from alley_poker.web.match_titles import match_title
from alley_poker.web.phone_schemas import MintPhoneLinkBody

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("phone_links", __name__, url_prefix=API_PREFIX)

#: The states of a match whose bowlers may be given a code (seated, not finished).
SEATED = ("open", "playing", "ending")


def link_store() -> PhoneLinkStore:
    links = current_centre().phone_links
    if links is None:
        raise ApiError(503, "phones_unavailable", "phone links need the event store's database")
    return links


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment is not None else None


def link_view(link: PhoneLink) -> dict[str, Any]:
    return {"id": link.id, "match_id": link.match_id, "bowler": link.bowler,
            "night_date": link.night_date.isoformat(), "status": link.status(),
            "created_at": _iso(link.created_at), "created_by": link.created_by,
            "expires_at": _iso(link.expires_at), "opened_at": _iso(link.opened_at),
            "revoked_at": _iso(link.revoked_at)}


def qr_svg(url: str, label: str) -> str:
    """``url`` as a QR code: an inline SVG named ``label`` for assistive technology.

    >>> svg = qr_svg("http://alley/p/x", "Ann's phone code")
    >>> svg.startswith('<svg role="img" aria-label="Ann&#39;s phone code"'), "<path" in svg
    (True, True)
    """
    svg = segno.make(url, error="m").svg_inline(scale=4, border=2, svgclass="qr",
                                                lineclass="qr-line")
    return svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1)


def night_zone():
    """The zone of the night's close: ``[night] timezone``, else the centre's."""
    config = current_centre().config
    name = config.night.timezone
    return ZoneInfo(name) if name else config.centre.zone


def mint_code(service: AlleyService, links: PhoneLinkStore, match_id: str, bowler: str, *,
              actor: str) -> dict[str, Any]:
    """A new code for ``bowler`` of ``match_id``; CommandRefused when none can be made."""
    state = service.state(match_id)
    if state.status not in SEATED:
        raise CommandRefused(f"the match is {state.status}: its bowlers get no phone code",
                             field="match_id")
    if bowler not in state.bowlers:
        raise CommandRefused(f"{bowler} does not bowl in this match", field="bowler")
    now = datetime.now(UTC)
    night, closes = night_of_match(state.league, now, current_centre().config.night.close,
                                   night_zone())
    if closes <= now:
        raise CommandRefused(f"the night of {night.isoformat()} closed at "
                             f"{current_centre().config.night.close}: no more codes for it",
                             field="match_id")
    made = links.mint(match_id, bowler, night, closes, actor=actor)
    url = url_for("phone.open_link", token=made.secret, _external=True)
    assignment = service.lanes.assignment(match_id)
    lanes = sorted(lane for (lane, _slot), name in assignment.slots.items()
                   if name == bowler) if assignment else []
    return {"link": link_view(made.link), "url": url,
            "svg": qr_svg(url, f"{bowler}'s phone code"), "lanes": lanes,
            "title": match_title(service, match_id)}


@api.get("/matches/<match_id>/phone-links")
@commissioner_session_required
def list_phone_links(match_id: str):
    existing_match(match_id)
    return jsonify({"links": [link_view(link) for link in link_store().list(match_id)]})


@api.post("/matches/<match_id>/phone-links")
@commissioner_session_required
def mint_phone_link(match_id: str):
    service = existing_match(match_id)
    body = validated_body(MintPhoneLinkBody)
    try:
        code = mint_code(service, link_store(), match_id, body.bowler,
                         actor=commissioner_actor() or "commissioner")
    except CommandRefused as refused:
        raise ApiError(409, "command_refused", refused.reason, refused.field) from None
    return jsonify(code), 201


@api.post("/phone-links/sheet")
@commissioner_session_required
def phone_code_sheet():
    service, links = alley(), link_store()
    actor = commissioner_actor() or "commissioner"
    codes = []
    for match_id in known_match_ids(service):
        state = service.state(match_id)
        if state.status not in SEATED or service.lanes.assignment(match_id) is None:
            continue
        for bowler in state.bowlers:
            try:
                codes.append(mint_code(service, links, match_id, bowler, actor=actor))
            except CommandRefused:
                continue  # the night closed: nothing to print for it
    return jsonify({"codes": codes})


@api.delete("/phone-links/<int:link_id>")
@commissioner_session_required
def revoke_phone_link(link_id: int):
    return revoked_or_not_found(link_store().revoke, link_id,
                                f"no live phone link {link_id}", "link_id")


def register_kiosk_codes(socketio: Any, service: AlleyService, kiosk_matches: Any,
                         gate: Any) -> None:
    """A paired kiosk shows a bowler's code when asked (``phone_code``)."""

    @socketio.on("phone_code")
    def _phone_code(data: Any) -> dict[str, Any]:
        refused = gate.may_decide(request.sid)
        if refused is not None:
            return refused
        data = data if isinstance(data, dict) else {}
        match_id, bowler = data.get("match_id"), data.get("bowler")
        if not isinstance(match_id, str) or match_id not in kiosk_matches(request.sid):
            return error_body("forbidden", "this kiosk's lanes have no such match", 403,
                              "match_id")[0]
        links = current_centre().phone_links
        if links is None:
            return error_body("phones_unavailable", "phone links need the event store's "
                              "database", 503)[0]
        try:
            code = mint_code(service, links, match_id, str(bowler or ""),
                             actor=f"kiosk:{gate.device_of(request.sid)}")
        except CommandRefused as no_code:
            return error_body("command_refused", no_code.reason, 409, no_code.field)[0]
        return {"ok": True, **code}
