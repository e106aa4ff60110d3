"""Kiosks paired by the commissioner, kept beside the ledger (only hashes of their secrets).

Only a paired kiosk may send a bowler's decision.  On its first start a kiosk asks for
pairing with its lane pair (:meth:`KioskDeviceStore.request`): it gets a secret (kept in the
kiosk's browser) and a short code it shows on screen.  The commissioner types the code on
the tablet (:meth:`~KioskDeviceStore.approve`); from then on the secret opens that lane pair
only, until the commissioner revokes it.  A request nobody approves within
``PENDING_FOR`` is forgotten.  A request is never pushed out by others: with ``MAX_PENDING``
waiting, a new one is refused (None) until one is approved, withdrawn or forgotten.

>>> from alley_poker.store import EventStore
>>> store = EventStore.open("sqlite://")
>>> devices = KioskDeviceStore(store.engine, centre="north")
>>> asked = devices.request("1-2")
>>> len(asked.code), devices.verify(asked.secret) is None  # not approved yet
(6, True)
>>> devices.approve(asked.code, actor="commissioner:tablet").lanes
'1-2'
>>> devices.verify(asked.secret).lanes
'1-2'
>>> KioskDeviceStore(store.engine, centre="south").verify(asked.secret) is None
True
>>> devices.revoke(asked.id), devices.verify(asked.secret)
(True, None)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, func, insert, select, update

from alley_poker.store.api_tokens import centre_row, revoke_live, token_hash
from alley_poker.store.clock import as_utc, utcnow
from alley_poker.store.schema import DEFAULT_CENTRE, kiosk_devices

#: Letters and digits that cannot be misread for each other on a kiosk screen.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: How long a kiosk's pairing request waits for the commissioner.
PENDING_FOR = timedelta(hours=1)
#: Most requests waiting at once per centre: past it new requests are refused (the waiting
#: ones stay: a kiosk's code is never pushed out by others' requests).  Who may hold how many
#: of them is the web side's business (web.kiosk_pairing: per address, bound to a socket).
MAX_PENDING = 50


@dataclass(frozen=True)
class KioskDevice:
    """A kiosk as listed: never its secret."""

    id: int
    lanes: str
    code: str
    requested_at: datetime
    paired_at: datetime | None
    paired_by: str | None
    revoked_at: datetime | None

    @property
    def paired(self) -> bool:
        return self.paired_at is not None and self.revoked_at is None


@dataclass(frozen=True)
class PairingRequest:
    """A kiosk's request, just made: the only time its secret is known."""

    id: int
    lanes: str
    code: str
    secret: str


_COLUMNS = (kiosk_devices.c.id, kiosk_devices.c.lanes, kiosk_devices.c.code,
            kiosk_devices.c.requested_at, kiosk_devices.c.paired_at,
            kiosk_devices.c.paired_by, kiosk_devices.c.revoked_at)


def _device(row) -> KioskDevice:
    def aware(moment: datetime | None) -> datetime | None:
        return as_utc(moment) if moment is not None else None

    return KioskDevice(int(row.id), row.lanes, row.code, as_utc(row.requested_at),
                       aware(row.paired_at), row.paired_by, aware(row.revoked_at))


class KioskDeviceStore:
    """Pairing requests, paired kiosks and their revocation, for one centre."""

    def __init__(self, engine: Engine, *, centre: str = DEFAULT_CENTRE):
        self.engine = engine
        self.centre = centre

    def request(self, lanes: str) -> PairingRequest | None:
        """A new pairing request for ``lanes`` (a lane pair such as ``"1-2"``); None when
        ``MAX_PENDING`` requests are already waiting (none of them is dropped for it)."""
        table = kiosk_devices
        now = utcnow()
        secret = secrets.token_urlsafe(32)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        with self.engine.begin() as connection:
            connection.execute(delete(table).where(
                table.c.centre == self.centre, table.c.paired_at.is_(None),
                table.c.requested_at < now - PENDING_FOR))
            waiting = connection.execute(select(func.count()).select_from(table).where(
                table.c.centre == self.centre, table.c.paired_at.is_(None))).scalar_one()
            if waiting >= MAX_PENDING:
                return None
            result = connection.execute(insert(table).values(
                centre=self.centre, lanes=lanes, code=code, token_hash=token_hash(secret),
                requested_at=now))
            device_id = int(result.inserted_primary_key[0])
        return PairingRequest(device_id, lanes, code, secret)

    def waiting(self) -> list[int]:
        """The ids of the requests still waiting for the commissioner, oldest first."""
        table = kiosk_devices
        with self.engine.connect() as connection:
            return [int(row.id) for row in connection.execute(select(table.c.id).where(
                table.c.centre == self.centre, table.c.paired_at.is_(None),
                table.c.requested_at >= utcnow() - PENDING_FOR).order_by(table.c.id))]

    def waiting_with(self, secret: str) -> int | None:
        """The id of the request still waiting whose secret is ``secret``, or None."""
        if not secret:
            return None
        table = kiosk_devices
        with self.engine.connect() as connection:
            row = connection.execute(select(table.c.id).where(
                table.c.token_hash == token_hash(secret), table.c.centre == self.centre,
                table.c.paired_at.is_(None),
                table.c.requested_at >= utcnow() - PENDING_FOR)).first()
        return None if row is None else int(row.id)

    def withdraw(self, device_id: int) -> None:
        """Forget a request still waiting (its kiosk asked again: the newer one counts)."""
        table = kiosk_devices
        with self.engine.begin() as connection:
            connection.execute(delete(table).where(
                table.c.id == device_id, table.c.centre == self.centre,
                table.c.paired_at.is_(None)))

    def approve(self, code: str, *, actor: str) -> KioskDevice | None:
        """Pair the kiosk showing ``code`` (a request still waiting); None when none is."""
        table = kiosk_devices
        code = code.strip().upper().replace("-", "").replace(" ", "")
        now = utcnow()
        with self.engine.begin() as connection:
            row = connection.execute(select(*_COLUMNS).where(
                table.c.centre == self.centre, table.c.code == code,
                table.c.paired_at.is_(None), table.c.revoked_at.is_(None),
                table.c.requested_at >= now - PENDING_FOR).order_by(table.c.id.desc())).first()
            if row is None:
                return None
            connection.execute(update(table).where(table.c.id == row.id).values(
                paired_at=now, paired_by=actor))
        return self.get(int(row.id))

    def get(self, device_id: int) -> KioskDevice | None:
        row = centre_row(self.engine, kiosk_devices, _COLUMNS, device_id, self.centre)
        return None if row is None else _device(row)

    def verify(self, secret: str) -> KioskDevice | None:
        """The paired, unrevoked kiosk of this centre whose secret is ``secret``, or None."""
        if not secret:
            return None
        table = kiosk_devices
        with self.engine.connect() as connection:
            row = connection.execute(select(*_COLUMNS).where(
                table.c.token_hash == token_hash(secret), table.c.centre == self.centre,
                table.c.paired_at.is_not(None), table.c.revoked_at.is_(None))).first()
        return None if row is None else _device(row)

    def list(self) -> list[KioskDevice]:
        """Paired kiosks (revoked ones too, for the record), oldest first."""
        table = kiosk_devices
        with self.engine.connect() as connection:
            return [_device(row) for row in connection.execute(
                select(*_COLUMNS).where(table.c.centre == self.centre,
                                        table.c.paired_at.is_not(None)).order_by(table.c.id))]

    def revoke(self, device_id: int) -> bool:
        """Revoke a paired kiosk of this centre; False when there is no live one with that id."""
        return revoke_live(self.engine, kiosk_devices, device_id, self.centre,
                           kiosk_devices.c.paired_at.is_not(None))
