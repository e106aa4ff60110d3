"""The secret seeds of fairly dealt matches, kept beside the log until settlement.

A seed is drawn once per match (first come, first kept: two processes creating the same
match end up with the one seed stored first) and read back by any process that deals in the
match.  The log carries only its commitment until the match settles or is voided.

>>> from alley_poker.store.event_store import EventStore
>>> store = EventStore.open("sqlite://")
>>> vault = SeedVault(store)
>>> seed = vault.seed_for("m1", create=True)
>>> len(seed), vault.seed_for("m1") == seed, SeedVault(store).seed_for("m1") == seed
(32, True, True)
>>> SeedVault(store).seed_for("m2") is None
True
>>> store.close()
"""

from __future__ import annotations

import threading
from typing import Any

import sqlalchemy.exc
from sqlalchemy import insert, select

from alley_poker.fairness.deal import new_seed
from alley_poker.store.clock import utcnow
from alley_poker.store.schema import deal_seeds


class SeedVault:
    """Seeds of one centre's matches (a memory cache over the ``deal_seeds`` table)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._known: dict[str, bytes] = {}
        self._guard = threading.Lock()

    def seed_for(self, match_id: str, *, create: bool = False,
                 fresh: bytes | None = None) -> bytes | None:
        """The match's seed; with ``create`` ``fresh`` (or a newly drawn seed) is stored if
        it has none."""
        with self._guard:
            known = self._known.get(match_id)
            if known is not None:
                return known
            found = self._read(match_id)
            if found is None and create:
                try:
                    with self.store.engine.begin() as connection:
                        connection.execute(insert(deal_seeds).values(
                            centre=self.store.centre, match_id=match_id,
                            seed=(fresh or new_seed()).hex(), created_at=utcnow()))
                except sqlalchemy.exc.IntegrityError:
                    pass  # another process drew it first: theirs is the seed
                found = self._read(match_id)
            if found is not None:
                self._known[match_id] = found
            return found

    def _read(self, match_id: str) -> bytes | None:
        query = select(deal_seeds.c.seed).where(deal_seeds.c.centre == self.store.centre,
                                                deal_seeds.c.match_id == match_id)
        with self.store.engine.connect() as connection:
            text = connection.scalar(query)
        return bytes.fromhex(text) if text else None
