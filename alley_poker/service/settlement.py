"""The settlement at the service layer: the night's matches read from the store, added up.

The arithmetic is the ledger's (:mod:`alley_poker.ledger.settlement`); this module picks the
matches: every match the centre's store holds, or those created on one (UTC) day.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from alley_poker.ledger.settlement import Settlement, settle


def centre_match_ids(service: Any) -> list[str]:
    """Every match the service's store holds for its centre, oldest first."""
    store = getattr(service.repository, "store", None)
    if store is None or not hasattr(store, "match_ids"):
        return []
    centre = getattr(store, "centre", None)
    return list(store.match_ids(centre=centre) if centre is not None else store.match_ids())


def match_created_on(service: Any, match_id: str) -> date | None:
    """The UTC day a match was created (from its first event), None if it has none."""
    records = service.repository.store.load(match_id)
    if not records or not records[0].get("at"):
        return None
    return date.fromisoformat(str(records[0]["at"])[:10])


def night_settlement(service: Any, *, on: date | None = None) -> Settlement:
    """Settlement of every match of the centre (created on ``on``, if given)."""
    match_ids = centre_match_ids(service)
    if on is not None:
        match_ids = [m for m in match_ids if match_created_on(service, m) == on]
    return settle(service.state(match_id) for match_id in match_ids)
