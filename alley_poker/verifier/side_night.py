"""``alley-poker verify`` on a bracket night's export: its sealed draw and its payouts.

The export (:func:`alley_poker.service.side_export.side_night_export`) is the night's whole
side-game log.  :func:`verify_side_export` trusts nothing in it but the rules: it replays the
log (:func:`alley_poker.side_games.verify_side_night`): the draw sealed before any game was
in, the revealed seed is the committed one, every bracket is exactly what that seed draws from
the entries (a re-ordered bracket fails), every payment is what the games decide, and the
money reconciles to the cent.

>>> verify_side_export({"format": "something else"}).ok
False
>>> str(verify_side_export({"format": SIDE_EXPORT_FORMAT, "version": 1, "events": []}))
'FAILED: side games of night None: the log is empty'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alley_poker.side_games import verify_side_night

SIDE_EXPORT_FORMAT = "alley-poker-side-night-export"
SIDE_EXPORT_VERSION = 1


@dataclass(frozen=True)
class SideVerdict:
    """OK, or what does not hold (``problems``), or what cannot be proven yet."""

    night_id: str | None
    problems: tuple[str, ...]
    unproven: tuple[str, ...] = ()
    draws: int = 0
    payments: int = 0
    events: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unproven

    def __str__(self) -> str:
        where = f"side games of night {self.night_id}"
        if self.problems:
            return f"FAILED: {where}: " + "; ".join(self.problems)
        if self.unproven:
            return f"NOT YET PROVABLE: {where}: " + "; ".join(self.unproven)
        return (f"OK: {where}: {self.events} events, {self.draws} draws re-done from the "
                f"revealed seed, {self.payments} payments as the games decide, the money "
                "reconciles to the cent")


def is_side_export(export: Any) -> bool:
    return isinstance(export, Mapping) and export.get("format") == SIDE_EXPORT_FORMAT


def verify_side_export(export: Mapping[str, Any]) -> SideVerdict:
    """The verdict on one side night's export."""
    if not is_side_export(export) or export.get("version") != SIDE_EXPORT_VERSION:
        return SideVerdict(None, (f'not a side night export (format must be '
                                  f'"{SIDE_EXPORT_FORMAT}", version {SIDE_EXPORT_VERSION})',))
    night_id = export.get("night_id")
    records = export.get("events")
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        return SideVerdict(night_id, ("events must be a list of records",))
    check = verify_side_night(records)
    problems = list(check.problems)
    if records and check.night_id and night_id != check.night_id:
        problems.insert(0, f"the export names night {night_id!r}, its log {check.night_id!r}")
    return SideVerdict(night_id, tuple(problems), check.unproven, check.draws_checked,
                       check.payments_checked, len(records))
