"""API tokens kept beside the ledger: a name, the centre, and the SHA-256 of the secret.

The secret itself is shown once when the token is made and never stored: tokens are 32 random
bytes (``secrets.token_urlsafe``), so a plain SHA-256 is enough to make a stolen table useless
(a slow password hash protects guessable secrets; these are not guessable).  A token belongs to
one centre and is refused by every other; a revoked token is kept (with when it was revoked) so
the audit still names it.

>>> from alley_poker.store import EventStore
>>> store = EventStore.open("sqlite://")
>>> tokens = ApiTokenStore(store.engine, centre="north")
>>> made = tokens.create("league office")
>>> made.name, len(made.secret) > 40
('league office', True)
>>> tokens.verify(made.secret).name
'league office'
>>> ApiTokenStore(store.engine, centre="south").verify(made.secret) is None
True
>>> tokens.revoke(made.id), tokens.verify(made.secret)
(True, None)
>>> [(token.name, token.revoked) for token in tokens.list()]
[('league office', True)]
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Engine, Row, Table, insert, select, update

from alley_poker.store.clock import utcnow
from alley_poker.store.schema import DEFAULT_CENTRE, MAX_TOKEN_NAME_LENGTH, api_tokens


def token_hash(secret: str) -> str:
    """The stored form of a token's secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def revoke_live(engine: Engine, table: Table, row_id: int, centre: str,
                *live: ColumnElement[bool]) -> bool:
    """Revoke row ``row_id`` of ``centre`` in ``table`` (API tokens, kiosk devices, phone
    links: whatever holds a secret's hash) if it is live: not revoked yet and ``live``; whether
    it was.  The row is kept, with when it was revoked, so the audit still names it."""
    with engine.begin() as connection:
        result = connection.execute(
            update(table)
            .where(table.c.id == row_id, table.c.centre == centre, *live,
                   table.c.revoked_at.is_(None))
            .values(revoked_at=utcnow()))
    return result.rowcount == 1


def centre_row(engine: Engine, table: Table, columns: Sequence[ColumnElement[Any]],
               row_id: int, centre: str) -> Row[Any] | None:
    """The ``columns`` of row ``row_id`` of ``centre`` in ``table``, or None (another
    centre's row is none of this centre's business)."""
    with engine.connect() as connection:
        return connection.execute(select(*columns).where(
            table.c.id == row_id, table.c.centre == centre)).first()


@dataclass(frozen=True)
class ApiToken:
    """A token as listed: never its secret."""

    id: int
    name: str
    created_at: datetime
    revoked_at: datetime | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True)
class NewApiToken(ApiToken):
    """A token just made: the only time its secret is known."""

    secret: str = ""


class ApiTokenStore:
    """Creates, lists, verifies and revokes the API tokens of one centre."""

    def __init__(self, engine: Engine, *, centre: str = DEFAULT_CENTRE):
        self.engine = engine
        self.centre = centre

    def create(self, name: str) -> NewApiToken:
        name = name.strip()
        if not name or len(name) > MAX_TOKEN_NAME_LENGTH:
            raise ValueError(f"a token name is 1 to {MAX_TOKEN_NAME_LENGTH} characters")
        secret = secrets.token_urlsafe(32)
        created_at = utcnow()
        with self.engine.begin() as connection:
            result = connection.execute(insert(api_tokens).values(
                centre=self.centre, name=name, token_hash=token_hash(secret),
                created_at=created_at))
            token_id = int(result.inserted_primary_key[0])
        return NewApiToken(token_id, name, created_at, None, secret=secret)

    def list(self) -> list[ApiToken]:
        table = api_tokens
        query = (select(table.c.id, table.c.name, table.c.created_at, table.c.revoked_at)
                 .where(table.c.centre == self.centre).order_by(table.c.id))
        with self.engine.connect() as connection:
            return [ApiToken(int(row.id), row.name, row.created_at, row.revoked_at)
                    for row in connection.execute(query)]

    def verify(self, secret: str) -> ApiToken | None:
        """The live token of this centre whose secret is ``secret``, or None."""
        if not secret:
            return None
        table = api_tokens
        query = (select(table.c.id, table.c.name, table.c.created_at, table.c.revoked_at)
                 .where(table.c.token_hash == token_hash(secret),
                        table.c.centre == self.centre, table.c.revoked_at.is_(None)))
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        return None if row is None else ApiToken(int(row.id), row.name, row.created_at, None)

    def revoke(self, token_id: int) -> bool:
        """Revoke a live token of this centre; False when there is none with that id."""
        return revoke_live(self.engine, api_tokens, token_id, self.centre)
