"""What the web layer may send to any client: public match state and public events.

The public state is the ledger's :func:`~alley_poker.ledger.views.public_match_view`.  Ledger
events mostly describe what everybody saw (a card drawn face up, a ball); the few that carry
the order of the draw pile are stripped of it here before any event leaves the server.

>>> public_event({"seq": 4, "type": "pile_shuffled", "at": "t",
...               "data": {"order": ["7H", "2C"], "why": "start", "actor": "x"}})
{'seq': 4, 'type': 'pile_shuffled', 'at': 't', 'data': {'why': 'start'}}
>>> public_event({"seq": 1, "type": "match_created", "at": "t", "data": {"league": {
...     "league_id": "tue", "night_id": "n1", "people": {"Ann": 17}}}})["data"]
{'league': {'league_id': 'tue', 'night_id': 'n1'}}
"""

from __future__ import annotations

from typing import Any

from alley_poker.ledger.events import withheld_keys
from alley_poker.ledger.views import public_match_view

#: Keys of a league match's ``league`` tag that stay on the desk (the roster ids).
PRIVATE_LEAGUE_KEYS = frozenset({"people"})
#: Bookkeeping keys no screen needs (who typed it, the raw command).
INTERNAL_KEYS = frozenset({"actor", "command"})


def public_event(record: dict[str, Any]) -> dict[str, Any]:
    """An event record (``event_to_record``) without anything a bowler must not know."""
    hidden = withheld_keys(record.get("type", "")) | INTERNAL_KEYS
    data = {key: value for key, value in (record.get("data") or {}).items()
            if key not in hidden}
    if isinstance(data.get("league"), dict):
        # A league match's tag names the bowlers' roster ids: they stay on the desk.
        data["league"] = {key: value for key, value in data["league"].items()
                          if key not in PRIVATE_LEAGUE_KEYS}
    return {"seq": record.get("seq"), "type": record.get("type"), "at": record.get("at"),
            "data": data}


def with_odds(view: dict[str, Any], odds: Any) -> dict[str, Any]:
    """``view`` with the match's latest live odds as ``odds`` when the centre shows them
    (``odds`` is the service's ``LiveOdds`` or None) and they are computed; else as it is.

    >>> class Odds:
    ...     def latest(self, match_id): return {"seq": 3, "bowlers": {}}
    >>> with_odds({"match_id": "m1"}, Odds())["odds"]["seq"], with_odds({"match_id": "m1"}, None)
    (3, {'match_id': 'm1'})
    """
    latest = odds.latest(view["match_id"]) if odds is not None else None
    return view if latest is None else {**view, "odds": latest}


__all__ = ["public_event", "public_match_view", "with_odds"]
