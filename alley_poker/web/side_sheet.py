"""The printed night sheet's side money (brackets and pots), read off the folded night.

What the treasurer signs for the side games: each bowler's entries paid, prizes won and
refunds; each bracket game's and pot's payments (who was paid what, the organiser's share,
the entries the draw could not place); and the night's totals with the check that they
balance: entries = payouts + refunds + organiser's share (+ anything still in play).

>>> from datetime import UTC, datetime
>>> from alley_poker.side_games import OpenNight, PotSettings, RecordEntry, SetSideGame
>>> from alley_poker.side_games import SideNight, run
>>> night, at = SideNight("tue-2026-11-24"), datetime(2026, 11, 24, 19, tzinfo=UTC)
>>> run(night, OpenNight("tue", "2026-11-24", 3), actor="desk", now=at)
>>> run(night, SetSideGame("hg", PotSettings(kind="high_game", scoring="scratch",
...     games=(1, 2, 3), entry_cents=200)), actor="desk", now=at)
>>> run(night, RecordEntry("hg", 7, 1, 200), actor="desk", now=at)
>>> sheet = side_sheet(night, {7: "Ann"})
>>> sheet["games"][0]["label"], sheet["totals"]["in_play_cents"], sheet["balanced"]
('High game (scratch)', 200, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alley_poker.side_games import SideNight
from alley_poker.side_games.settings import BracketSettings, PotSettings

POT_NAMES = {"high_game": "High game", "high_series": "High series", "strikes": "Strike pot"}


def _label(settings: BracketSettings | PotSettings) -> str:
    if isinstance(settings, BracketSettings):
        order = "-".join(map(str, settings.games))
        return f"Brackets ({settings.scoring}, games {order})"
    if settings.kind == "strikes":
        return POT_NAMES["strikes"]
    return f"{POT_NAMES[settings.kind]} ({settings.scoring})"


def _paid_to(table: Mapping[int, int], names: Mapping[int, str]) -> list[dict[str, Any]]:
    return [{"name": names.get(bowler, f"bowler {bowler}"), "cents": cents}
            for bowler, cents in sorted(table.items(), key=lambda item: (-item[1], item[0]))]


def side_sheet(night: SideNight, names: Mapping[int, str]) -> dict[str, Any]:
    """The sheet's side games: ``bowlers``, ``games`` (each with its ``payments``),
    ``totals`` and ``balanced``."""
    money = night.money()
    games = []
    for game, book in night.books.items():
        settings = book.settings
        entries = sum(book.entries.values())
        row: dict[str, Any] = {"game": game, "label": _label(settings), "entries": entries,
                               "entry_cents": settings.entry_cents, "payments": []}
        if isinstance(settings, BracketSettings):
            drawn = book.drawn or ()
            row["brackets"] = len(drawn)
            row["unplaced"] = entries - sum(len(b.bowlers) for b in drawn) if drawn else 0
            for bracket in drawn:
                paid = book.paid.get(bracket.number)
                row["payments"].append({
                    "label": f"Bracket {bracket.number}" + (
                        "" if len(bracket.bowlers) == 8 else f" ({len(bracket.bowlers)})"),
                    "paid": paid is not None,
                    "payouts": _paid_to(paid.payouts, names) if paid else [],
                    "organiser_cents": paid.organiser_cents if paid else 0,
                    "refunds": []})
        else:
            paid = book.paid.get(None)
            row["payments"].append({
                "label": "Pot", "paid": paid is not None,
                "payouts": _paid_to(paid.payouts, names) if paid else [],
                "organiser_cents": paid.organiser_cents if paid else 0,
                "refunds": _paid_to(paid.refunds, names) if paid else []})
        games.append(row)
    return {
        "night_id": night.night_id, "drawn": night.drawn, "revealed": night.seed is not None,
        "bowlers": [{"name": names.get(line.bowler, f"bowler {line.bowler}"),
                     "paid_cents": line.paid_cents, "won_cents": line.won_cents,
                     "refunded_cents": line.refunded_cents, "net_cents": line.net_cents}
                    for line in money.bowlers],
        "games": games,
        "totals": {"entries_cents": money.entries_cents, "payouts_cents": money.payouts_cents,
                   "refunds_cents": money.refunds_cents,
                   "organiser_cents": money.organiser_cents,
                   "in_play_cents": money.in_play_cents},
        "balanced": money.balanced}
