"""The bowler's phone in the JSON API: request bodies and answers (alley_poker.web.api_phone,
alley_poker.web.phone_links).

The decision body carries the kind, a client request id and the kind's own answer; the
answer is then validated by the same pydantic model as the tablet's command of that kind
(``alley_poker.web.kiosk_decisions``), so only the envelope is described here.

>>> PhoneDecisionBody.model_validate({"kind": "guess", "request_id": "tap-0001",
...                                   "side": "left"}).answer()
{'side': 'left'}
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alley_poker.web.api_responses import ScreenMatch
from alley_poker.web.schemas import BowlerName, StrictBody

#: A client request id: what makes a double tap or a retried request one action.
RequestId = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                 description="made by the phone per tap; the same id again "
                                 "is answered as the first time, never run twice")]


class PhoneDecisionBody(BaseModel):
    """The bowler answers their own pending decision from their phone."""

    # The kind's own fields (card, side, from_bowler, accept, decision_id, expected_seq) are
    # checked by the tablet's model of that kind.
    model_config = ConfigDict(extra="allow", frozen=True)

    kind: Literal["lose-card", "guess", "guess-outcome", "steal", "end-draw", "buy"]
    request_id: RequestId
    bowler: BowlerName | None = Field(default=None, description=(
        "may be left out; a link acts only for its own bowler (403 for anyone else)"))
    match_id: str | None = Field(default=None, description=(
        "may be left out; a link acts only in its own match (403 for another)"))

    def answer(self) -> dict[str, Any]:
        """The kind's own fields, as the tablet's command body takes them."""
        return dict(self.model_extra or {})


class MintPhoneLinkBody(StrictBody):
    """Show a bowler's phone code: a new link (the bowler's codes not yet scanned stop
    working)."""

    bowler: BowlerName


class PhoneLinkView(BaseModel):
    id: int
    match_id: str
    bowler: str
    night_date: str
    status: Literal["waiting", "opened", "revoked", "expired"]
    created_at: str
    created_by: str
    expires_at: str
    opened_at: str | None
    revoked_at: str | None


class PhoneLinkList(BaseModel):
    links: list[PhoneLinkView]


class PhoneCode(BaseModel):
    """A link just made: its URL and QR code are shown now only (only a hash is kept)."""

    link: PhoneLinkView
    url: str
    svg: str = Field(description="the URL as a QR code, an inline SVG element")
    lanes: list[int]
    title: str = Field(description="the match as people name it (its league and lanes)")


class PhoneCodeSheet(BaseModel):
    codes: list[PhoneCode]


class PhoneMe(BaseModel):
    """What the bowler's phone shows: who, which night, until when, and the match board."""

    bowler: str
    match_id: str
    night_date: str
    expires_at: str
    screen: ScreenMatch | None


class PhoneDecided(BaseModel):
    ok: Literal[True]
    replayed: bool = Field(description="true when this request id was answered before")


__all__ = ["MintPhoneLinkBody", "PhoneCode", "PhoneCodeSheet", "PhoneDecided",
           "PhoneDecisionBody", "PhoneLinkList", "PhoneLinkView", "PhoneMe"]
