"""The Lanes page's order: tonight's live matches first, settled ones folded away.

After a few league weeks the store holds dozens of matches; the desk wants the ones in play
now.  Each match's *night* is its league night (the date in its league tag), or for a match
made by hand the night going on when it was created (in the centre's zone, with the night's
close: :mod:`alley_poker.service.phone_nights`).  A match still in play is always tonight's
business, whatever its night.

>>> order = lanes_order([
...     {"match_id": "old", "status": "settled", "lanes": [1, 2], "tonight": False},
...     {"match_id": "done", "status": "settled", "lanes": [3, 4], "tonight": True},
...     {"match_id": "late", "status": "playing", "lanes": [3, 4], "tonight": True},
...     {"match_id": "early", "status": "open", "lanes": [1, 2], "tonight": True}])
>>> {group: [m["match_id"] for m in matches] for group, matches in order.items()}
{'live': ['early', 'late'], 'settled_tonight': ['done'], 'settled_earlier': ['old']}
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from flask import current_app

from alley_poker.ledger.match_status import FINISHED
from alley_poker.service import AlleyService
from alley_poker.service.phone_nights import night_going_on
from alley_poker.web.centre_access import current_centre
from alley_poker.web.phone_links import night_zone

#: The page's groups, in the order it shows them.
GROUPS = ("live", "settled_tonight", "settled_earlier")


def _created_at(service: AlleyService, match_id: str) -> datetime | None:
    records = service.repository.store.load(match_id, after_seq=0)
    at = records[0].get("at") if records else None
    return datetime.fromisoformat(str(at)) if at else None


def match_night(service: AlleyService, match_id: str) -> date | None:
    """The night a match belongs to (kept once known: it never changes)."""
    known: dict[str, date | None] = current_app.extensions.setdefault("match_nights", {})
    if match_id in known:
        return known[match_id]
    league = service.state(match_id).league
    if league and league.get("night_date"):
        night: date | None = date.fromisoformat(str(league["night_date"]))
    else:
        created = _created_at(service, match_id)
        night = (night_going_on(created.astimezone(UTC), current_centre().config.night.close,
                                night_zone()) if created else None)
    known[match_id] = night
    return night


def tonight() -> date:
    return night_going_on(datetime.now(UTC), current_centre().config.night.close, night_zone())


def is_tonight(service: AlleyService, match_id: str, status: str) -> bool:
    """Tonight's business: in play, or of the night going on."""
    return status not in FINISHED or match_night(service, match_id) in (None, tonight())


def lanes_order(matches: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The matches (each with ``status``, ``lanes``, ``tonight``) in the page's groups, each
    by its lanes (the earlier nights' newest night first)."""
    groups: dict[str, list[dict[str, Any]]] = {group: [] for group in GROUPS}
    for match in matches:
        if match["status"] not in FINISHED:
            groups["live"].append(match)
        else:
            groups["settled_tonight" if match["tonight"] else "settled_earlier"].append(match)
    for group in groups.values():
        group.sort(key=lambda m: (m["lanes"] or [10**6], m["match_id"]))
    groups["settled_earlier"].sort(key=lambda m: m.get("night") or "", reverse=True)
    return groups
