"""A bracket night's export: its whole side-game log, what ``alley-poker verify`` reads.

Unlike a match's deal, a draw hides nothing once made (its brackets are on the desk's
screen), so a night can be exported at any time; its draw is provable once the seed is
revealed at the night's close (before that ``verify`` says the draw is not yet provable).
"""

from __future__ import annotations

from typing import Any

from alley_poker.service.side_nights import SideNightError, SideNights
from alley_poker.verifier.side_night import SIDE_EXPORT_FORMAT, SIDE_EXPORT_VERSION


def side_night_export(side: SideNights, night_id: str) -> dict[str, Any]:
    """The export of ``night_id``'s side games; SideNightError (404) for a night without."""
    night = side.night(night_id)
    if night is None:
        raise SideNightError(f"night {night_id!r} has no side games", "night_id", status=404)
    return {"format": SIDE_EXPORT_FORMAT, "version": SIDE_EXPORT_VERSION,
            "night_id": night_id, "centre": side.log.centre, "league_id": night.league_id,
            "night_date": night.night_date, "events": side.records(night_id)}
