"""CSV exports for the treasurer: the night, the standings and the roster.  Money is written
as dollars (``"12.50"``, ``"-1.00"``), times in the league's time zone (``zoneinfo``; the
store and the log keep UTC).  Every file goes through the one writer of
:mod:`alley_poker.csv_cells`: a name a spreadsheet would run as a formula is written as text
(a leading apostrophe), money stays a number, and a download carries a byte-order mark.

>>> dollars(1250), dollars(-101), dollars(0)
('12.50', '-1.01', '0.00')
>>> from datetime import datetime, UTC
>>> local_time(datetime(2026, 11, 25, 2, 30, tzinfo=UTC), "America/Chicago")
'2026-11-24 20:30 CST'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from alley_poker.csv_cells import csv_text
from alley_poker.league.night_sheet import NightSheet
from alley_poker.league.standings import StandingRow


def dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole}.{part:02d}"


def local_time(moment: datetime | None, time_zone: str) -> str:
    """An aware moment in the league's zone, with the zone's abbreviation ("" for None)."""
    if moment is None:
        return ""
    return moment.astimezone(ZoneInfo(time_zone)).strftime("%Y-%m-%d %H:%M %Z")


NIGHT_HEADER = ("match_id", "lanes", "status", "started", "settled", "seat", "bowler_id",
                "scores", "handicap", "ante", "buys", "refund", "won", "net", "winner",
                "hand")


def night_csv(sheet: NightSheet, time_zone: str) -> str:
    """One row per seat of every match of the night, then a TOTAL row; with side games, a
    SIDE GAMES row per bowler with side money and a SIDE TOTAL row."""
    rows: list[list[Any]] = []
    for match in sheet.matches:
        for line in match.lines:
            rows.append([
                match.match_id, "-".join(map(str, match.lanes)), line.status,
                local_time(match.created_at, time_zone), local_time(match.settled_at, time_zone),
                line.seat, "" if line.bowler_id is None else line.bowler_id,
                " ".join(map(str, line.scores)), line.handicap, dollars(line.antes_cents),
                dollars(line.buys_cents), dollars(line.refunds_cents), dollars(line.won_cents),
                dollars(line.net_cents), "yes" if line.won else "", line.hand])
    rows.append(["TOTAL", "", "", "", "", "", "", "", "", dollars(sheet.antes_cents),
                 dollars(sheet.buys_cents), dollars(sheet.refunded_cents),
                 dollars(sheet.paid_out_cents), "", "",
                 f"house {dollars(sheet.house_cents)}; in play {dollars(sheet.in_play_cents)}"])
    side = sheet.side_money
    if side is not None:
        # The side games' money, one row per bowler (entries in the "buys" column), then
        # their total: entries = won + refunded + organiser + in play.
        names = {line.bowler_id: line.seat for m in sheet.matches for line in m.lines
                 if line.bowler_id is not None}
        for money in side.bowlers:
            rows.append(["SIDE GAMES", "", "", "", "", names.get(money.bowler, ""),
                         money.bowler, "", "", "", dollars(money.paid_cents),
                         dollars(money.refunded_cents), dollars(money.won_cents),
                         dollars(money.net_cents), "", ""])
        rows.append(["SIDE TOTAL", "", "", "", "", "", "", "", "", "",
                     dollars(side.entries_cents), dollars(side.refunds_cents),
                     dollars(side.payouts_cents), "", "",
                     f"organiser {dollars(side.organiser_cents)}; in play "
                     f"{dollars(side.in_play_cents)}"])
    return csv_text(NIGHT_HEADER, rows)


STANDINGS_HEADER = ("place", "bowler_id", "name", "nights", "matches", "won", "money_won",
                    "antes", "buys", "refunds", "net", "best_hand", "strikes", "spares",
                    "gutters", "games", "pins", "average")


def standings_csv(rows: Sequence[StandingRow], *, house_cents: int = 0) -> str:
    """The standings in order, then a HOUSE row when the house kept money (so the net
    column sums to zero with it)."""
    body: list[list[Any]] = [[
        place, row.bowler_id, row.name, row.nights, row.matches, row.matches_won,
        dollars(row.money_won_cents), dollars(row.antes_cents), dollars(row.buys_cents),
        dollars(row.refunds_cents), dollars(row.net_cents),
        row.best_hand.describe if row.best_hand else "", row.strikes, row.spares,
        row.gutters, row.games, row.pins, "" if row.average is None else row.average]
        for place, row in enumerate(rows, start=1)]
    if house_cents:
        body.append(["", "", "HOUSE", "", "", "", "", "", "", "", dollars(house_cents),
                     "", "", "", "", "", "", ""])
    return csv_text(STANDINGS_HEADER, body)


ROSTER_HEADER = ("name", "scorer_name", "average", "handicap_basis", "team", "active")


def roster_csv(bowlers: Iterable[Any]) -> str:
    """The roster in the import format (``name,scorer_name,average,handicap_basis,team,
    active``), from anything with those attributes (the roster's ``Bowler``): importing it
    into an empty league gives the same roster, retired bowlers retired."""
    return csv_text(ROSTER_HEADER, [[
        b.name, b.scorer_name, "" if b.average is None else b.average, b.handicap_basis,
        b.team or "", "yes" if b.active else "no"] for b in bowlers])
