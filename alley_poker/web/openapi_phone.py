"""The bowler's phone in the OpenAPI document: the desk's codes and the phone's own routes.

>>> from alley_poker.web.openapi import openapi_document
>>> paths = openapi_document()["paths"]
>>> sorted(paths["/api/v1/phone/decisions"]["post"]["responses"])
['200', '400', '401', '403', '409', '413', '422', '429']
>>> sorted(paths["/api/v1/phone-links/{link_id}"]["delete"]["responses"])
['204', '401', '403', '404']
"""

from __future__ import annotations

from typing import Any

from alley_poker.web import phone_schemas as s

#: The phone acts with the session cookie its code was exchanged for, and a CSRF token.
PHONE = [{"phoneSession": [], "csrfToken": []}]


def add_phone_paths(doc: Any, base: str, path: Any, commissioner_session: list) -> None:
    match_id = [{**path("match_id", {"type": "string", "minLength": 1}), "example": "m1"}]
    links = f"{base}/matches/{{match_id}}/phone-links"
    doc.add(links, "get", "The match's bowlers' phone links (never a token)",
            response=s.PhoneLinkList, errors=("404",), security=commissioner_session,
            parameters=match_id)
    doc.add(links, "post", "A new phone code for a bowler (shown now only; the bowler's "
            "codes not yet scanned stop working)", response=s.PhoneCode, status="201",
            body=s.MintPhoneLinkBody, errors=("404", "409"), security=commissioner_session,
            parameters=match_id)
    doc.add(f"{base}/phone-links/sheet", "post", "A new phone code for every bowler in play: "
            "the night's printed sheet", response=s.PhoneCodeSheet, security=commissioner_session)
    doc.add(f"{base}/phone-links/{{link_id}}", "delete", "Turn a phone link off (a lost "
            "phone)", response=None, status="204", errors=("404",), security=commissioner_session,
            parameters=[path("link_id", {"type": "integer"})])
    doc.add(f"{base}/phone/me", "get", "The bowler's phone: who, the night, until when, and "
            "the match as the kiosk shows it", response=s.PhoneMe, errors=("401", "429"))
    doc.add(f"{base}/phone/decisions", "post", "The bowler answers their own pending "
            "decision (once per request id)", response=s.PhoneDecided,
            body=s.PhoneDecisionBody, errors=("409", "429"), security=PHONE)
