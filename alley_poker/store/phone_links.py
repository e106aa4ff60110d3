"""Phone links at the store layer: bowlers' links beside the ledger (hashes of secrets only).

The desk's API and pages for them are :mod:`alley_poker.web.phone_links`.

A link lets one bowler of one match follow the match and answer their own decisions from
their phone, for one night.  Its token (32 random bytes, 256 bits) is shown once, as a QR
code; only its SHA-256 is stored.  On its first open the token is exchanged for a session
secret (the phone's cookie; also kept only as a hash), and the token is spent: a second open
of the same code is refused, so a code photographed off a table is worth nothing once its
bowler has scanned it.  A link ends at ``expires_at`` (the night's close) or when the desk
revokes it.  Showing a bowler's code again mints a new one and revokes the codes of that
bowler not opened yet (an opened phone keeps working).

>>> from datetime import date, datetime, timedelta, UTC
>>> from alley_poker.store import EventStore
>>> store = EventStore.open("sqlite://")
>>> links = PhoneLinkStore(store.engine, centre="north")
>>> close = datetime.now(UTC) + timedelta(hours=3)
>>> made = links.mint("m1", "Ann", date(2026, 11, 25), close, actor="commissioner")
>>> len(made.secret) >= 43, made.link.bowler
(True, 'Ann')
>>> opened = links.open(made.secret)
>>> opened.status, opened.link.bowler, len(opened.session) >= 43
('ok', 'Ann', True)
>>> links.open(made.secret).status  # a code opens one phone
'used'
>>> links.by_session(opened.session).link.match_id
'm1'
>>> PhoneLinkStore(store.engine, centre="south").by_session(opened.session).status
'unknown'
>>> links.revoke(made.link.id), links.by_session(opened.session).status
(True, 'revoked')
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from alley_poker.store.api_tokens import centre_row, revoke_live, token_hash
from alley_poker.store.clock import as_utc, utcnow
from alley_poker.store.schema import DEFAULT_CENTRE, phone_links, phone_requests


@dataclass(frozen=True)
class PhoneLink:
    """A link as listed: never its token or session."""

    id: int
    match_id: str
    bowler: str
    night_date: date
    created_at: datetime
    created_by: str
    expires_at: datetime
    opened_at: datetime | None
    revoked_at: datetime | None

    def status(self, now: datetime | None = None) -> str:
        """``revoked``, ``expired``, ``opened`` (on a phone) or ``waiting`` (not scanned)."""
        if self.revoked_at is not None:
            return "revoked"
        if (now or datetime.now(UTC)) >= self.expires_at:
            return "expired"
        return "opened" if self.opened_at is not None else "waiting"


@dataclass(frozen=True)
class MintedLink:
    """A link just made: the only time its token is known."""

    link: PhoneLink
    secret: str


@dataclass(frozen=True)
class LinkCheck:
    """What a token or a session is worth now: ``status`` is ``ok``, ``unknown``, ``used``,
    ``revoked`` or ``expired``; ``session`` is set only by the open that exchanged a token."""

    status: str
    link: PhoneLink | None = None
    session: str | None = None


_COLUMNS = (phone_links.c.id, phone_links.c.match_id, phone_links.c.bowler,
            phone_links.c.night_date, phone_links.c.created_at, phone_links.c.created_by,
            phone_links.c.expires_at, phone_links.c.opened_at, phone_links.c.revoked_at)


def _link(row: Any) -> PhoneLink:
    def aware(moment: datetime | None) -> datetime | None:
        return as_utc(moment) if moment is not None else None

    return PhoneLink(int(row.id), row.match_id, row.bowler, row.night_date,
                     as_utc(row.created_at), row.created_by, as_utc(row.expires_at),
                     aware(row.opened_at), aware(row.revoked_at))


def _refusal(link: PhoneLink, now: datetime) -> str | None:
    status = link.status(now)
    return status if status in ("revoked", "expired") else None


class PhoneLinkStore:
    """Mints, opens, checks and revokes the phone links of one centre."""

    def __init__(self, engine: Engine, *, centre: str = DEFAULT_CENTRE):
        self.engine = engine
        self.centre = centre

    def mint(self, match_id: str, bowler: str, night_date: date, expires_at: datetime, *,
             actor: str) -> MintedLink:
        """A new link for ``bowler`` of ``match_id``; that bowler's codes not yet opened
        are revoked (only the newest code shown works)."""
        table = phone_links
        now = utcnow()
        secret = secrets.token_urlsafe(32)
        with self.engine.begin() as connection:
            connection.execute(update(table).where(
                table.c.centre == self.centre, table.c.match_id == match_id,
                table.c.bowler == bowler, table.c.opened_at.is_(None),
                table.c.revoked_at.is_(None)).values(revoked_at=now))
            result = connection.execute(insert(table).values(
                centre=self.centre, match_id=match_id, bowler=bowler, night_date=night_date,
                token_hash=token_hash(secret), created_at=now, created_by=actor,
                expires_at=expires_at))
            link_id = int(result.inserted_primary_key[0])
        link = self.get(link_id)
        assert link is not None
        return MintedLink(link, secret)

    def get(self, link_id: int) -> PhoneLink | None:
        row = centre_row(self.engine, phone_links, _COLUMNS, link_id, self.centre)
        return None if row is None else _link(row)

    def _find(self, column: Any, secret: str) -> PhoneLink | None:
        if not secret:
            return None
        with self.engine.connect() as connection:
            row = connection.execute(select(*_COLUMNS).where(
                column == token_hash(secret), phone_links.c.centre == self.centre)).first()
        return None if row is None else _link(row)

    def open(self, secret: str, now: datetime | None = None) -> LinkCheck:
        """Exchange a link's token for a session, once."""
        now = now or utcnow()
        link = self._find(phone_links.c.token_hash, secret)
        if link is None:
            return LinkCheck("unknown")
        refused = _refusal(link, now)
        if refused is not None:
            return LinkCheck(refused, link)
        session = secrets.token_urlsafe(32)
        table = phone_links
        with self.engine.begin() as connection:
            taken = connection.execute(update(table).where(
                table.c.id == link.id, table.c.opened_at.is_(None),
                table.c.revoked_at.is_(None)).values(
                    opened_at=now, session_hash=token_hash(session))).rowcount
        if taken != 1:
            return LinkCheck("used", link)
        return LinkCheck("ok", self.get(link.id), session)

    def by_session(self, session: str, now: datetime | None = None) -> LinkCheck:
        """The link a phone's session secret belongs to, if it is still good."""
        link = self._find(phone_links.c.session_hash, session)
        if link is None:
            return LinkCheck("unknown")
        refused = _refusal(link, now or utcnow())
        return LinkCheck(refused or "ok", link)

    def list(self, match_id: str | None = None) -> list[PhoneLink]:
        """The centre's links (of one match), oldest first; revoked ones too, for the record."""
        table = phone_links
        query = select(*_COLUMNS).where(table.c.centre == self.centre)
        if match_id is not None:
            query = query.where(table.c.match_id == match_id)
        with self.engine.connect() as connection:
            return [_link(row) for row in connection.execute(query.order_by(table.c.id))]

    def revoke(self, link_id: int) -> bool:
        """Revoke a live link of this centre; False when there is none with that id."""
        return revoke_live(self.engine, phone_links, link_id, self.centre)

    # --- one action per client request id ----------------------------------------------------
    def claim_request(self, link_id: int, request_id: str) -> tuple[dict, int] | None:
        """None when ``request_id`` is new for the link (the caller runs it, then
        :meth:`finish_request`); else the answer it got the first time (or, while that first
        one is still running, a 409 saying so)."""
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(phone_requests).values(
                    link_id=link_id, request_id=request_id, created_at=utcnow()))
            return None
        except IntegrityError:
            pass
        table = phone_requests
        with self.engine.connect() as connection:
            row = connection.execute(select(table.c.status, table.c.answer).where(
                table.c.link_id == link_id, table.c.request_id == request_id)).first()
        if row is None or row.status is None:
            return ({"error": {"code": "in_progress", "message": "this request is still being "
                               "answered; it is taken once", "field": "request_id"}}, 409)
        return dict(row.answer), int(row.status)

    def finish_request(self, link_id: int, request_id: str, answer: dict, status: int) -> None:
        table = phone_requests
        with self.engine.begin() as connection:
            connection.execute(update(table).where(
                table.c.link_id == link_id, table.c.request_id == request_id).values(
                    status=status, answer=answer))
