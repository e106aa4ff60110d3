"""A league's reports in ``/api/v1``: season standings, a bowler's history, a night's sheet,
and the treasurer's CSV files (the night, the standings, the roster).

Every figure comes from the live standings projection (:mod:`alley_poker.league.standings`,
fed from the event log), never from a second copy of the money; times are written in the
league's own time zone.  Money and names are not for the settee: the commissioner only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from typing import Any

from flask import Blueprint, jsonify

from alley_poker.league import League, exports, to_local
from alley_poker.league.night_sheet import NightSheet, night_sheet
from alley_poker.store.chain import chain_head
from alley_poker.web.api_leagues import existing_bowler, existing_league, league_desk
from alley_poker.web.api_reports import csv_file
from alley_poker.web.api_request import API_PREFIX, alley
from alley_poker.web.auth import commissioner_required
from alley_poker.web.errors import ApiError
from alley_poker.web.queries import _iso_day

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_league_reports", __name__, url_prefix=API_PREFIX)

LANES_AT_END = re.compile(r"-(\d+)-(\d+)$")


def plain(league: League, value: Any) -> Any:
    """``value`` as JSON: dataclasses as objects, tuples as lists, days as YYYY-MM-DD and
    moments in the league's time zone (ISO 8601 with its offset).

    >>> from datetime import time, timezone
    >>> tue = League("tue", "Tue", "house-rev-1.2", 200, 1, time(19), "America/Chicago",
    ...              ((1, 2),))
    >>> plain(tue, {"at": datetime(2026, 11, 25, 2, 30, tzinfo=timezone.utc),
    ...             "night": date(2026, 11, 24), "cards": ("AS", "KS")})
    {'at': '2026-11-24T20:30:00-06:00', 'night': '2026-11-24', 'cards': ['AS', 'KS']}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain(league, getattr(value, field.name))
                for field in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return to_local(league, value).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): plain(league, item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(league, item) for item in value]
    return value


def night_date_from(text: str) -> date:
    """A night's date from the URL, or 404 naming ``night_date``."""
    try:
        return _iso_day(text)
    except ValueError:
        raise ApiError(404, "not_found", f"no night {text[:20]!r}: a night is named by its "
                       "date, YYYY-MM-DD", "night_date") from None


def started_night(league: League, night_date: date) -> Any:
    for night in league_desk().store.nights(league.league_id):
        if night.night_date == night_date:
            return night
    raise ApiError(404, "not_found", f"{league.name} has no night on {night_date.isoformat()}",
                   "night_date")


@contextmanager
def projection() -> Iterator[Any]:
    """The live season projection of this process (fed from the bus, rebuilt at start),
    held still while it is read."""
    with league_desk().standings.reading() as season:
        yield season


def standings_report(league: League) -> dict[str, Any]:
    """The season table (by net money; ``by_wins`` gives the order by matches won) and the
    money's reconciliation: every bowler's net plus the house's share is zero; the side
    games' season money per bowler beside it (``side_games``)."""
    with projection() as season:
        rows = season.standings(league.league_id)
        check = season.reconciliation(league.league_id)
    side = league_desk().side_games.season_money(league.league_id)
    return {"league_id": league.league_id, "time_zone": league.time_zone,
            "standings": plain(league, rows),
            # The side games' season (brackets, pots), apart from the matches' money.
            "side_games": {**plain(league, side), "balanced": side.balanced},
            "by_wins": [row.bowler_id for row in sorted(
                rows, key=lambda row: (-row.matches_won, -row.net_cents, row.name))],
            "net_cents": check.bowlers_net_cents, "guests_net_cents": check.guests_net_cents,
            "house_cents": check.house_cents, "in_play_cents": check.in_play_cents,
            "reconciles": check.balanced}


def bowler_history_report(league: League, bowler: Any) -> dict[str, Any]:
    with projection() as season:
        row = next((row for row in season.standings(league.league_id)
                    if row.bowler_id == bowler.bowler_id), None)
        matches = season.history(bowler.bowler_id)
    return {"bowler_id": bowler.bowler_id, "name": bowler.name, "time_zone": league.time_zone,
            "totals": plain(league, row) if row is not None else None,
            "matches": plain(league, matches)}


def sheet_of(league: League, night: Any) -> NightSheet:
    """The projection's sheet of a started night (its matches with the lanes they hold or
    held: a league match's id ends with its lane pair, ``tue-2026-11-24-3-4``)."""
    service = alley()
    with projection() as season:
        match_ids = season.match_ids(league.league_id, night.night_id)
        lanes = {}
        for match_id in match_ids:
            held = service.lanes.assignment(match_id)
            pair = LANES_AT_END.search(match_id)
            lanes[match_id] = (list(held.lanes) if held else
                               [int(pair[1]), int(pair[2])] if pair else [])
        side = league_desk().side_games.night(night.night_id)
        try:
            return night_sheet(season, league.league_id, night.night_id, lanes=lanes,
                               side_money=side.money() if side is not None else None)
        except KeyError:
            raise ApiError(404, "not_found", f"{league.name} has no match on the night of "
                           f"{night.night_date.isoformat()}", "night_date") from None


def night_sheet_report(league: League, night: Any) -> dict[str, Any]:
    """The treasurer's sheet of one night: every match, its pot, winners, hands, payouts,
    refunds, and the night's totals; times in the league's time zone."""
    sheet = sheet_of(league, night)
    store = alley().repository.store
    # The hash of each match's last event, so a paper copy pins the log (docs/fairness.md).
    heads = {m.match_id: chain_head(store, m.match_id) for m in sheet.matches}
    side = sheet.side_money
    return {**plain(league, sheet), "time_zone": league.time_zone,
            "balanced": sheet.balanced, "chain_heads": heads,
            "side_balanced": None if side is None else side.balanced}


@api.get("/leagues/<league_id>/standings")
@commissioner_required
def standings(league_id: str):
    return jsonify(standings_report(existing_league(league_id)))


@api.get("/leagues/<league_id>/bowlers/<int:bowler_id>/history")
@commissioner_required
def bowler_history(league_id: str, bowler_id: int):
    league = existing_league(league_id)
    return jsonify(bowler_history_report(league, existing_bowler(league, bowler_id)))


@api.get("/leagues/<league_id>/nights/<night_date>/sheet")
@commissioner_required
def night_sheet_json(league_id: str, night_date: str):
    league = existing_league(league_id)
    night = started_night(league, night_date_from(night_date))
    return jsonify(night_sheet_report(league, night))


@api.get("/leagues/<league_id>/nights/<night_date>.csv")
@commissioner_required
def night_csv(league_id: str, night_date: str):
    league = existing_league(league_id)
    night = started_night(league, night_date_from(night_date))
    return csv_file(f"{night.night_id}.csv", exports.night_csv(sheet_of(league, night),
                                                                 league.time_zone))


@api.get("/leagues/<league_id>/standings.csv")
@commissioner_required
def standings_csv(league_id: str):
    league = existing_league(league_id)
    with projection() as season:
        rows = season.standings(league.league_id)
        house = season.house_cents(league.league_id)
    return csv_file(f"{league.league_id}-standings.csv",
                    exports.standings_csv(rows, house_cents=house))


@api.get("/leagues/<league_id>/roster.csv")
@commissioner_required
def roster_csv(league_id: str):
    league = existing_league(league_id)
    bowlers = league_desk().store.bowlers(league.league_id, include_retired=True)
    return csv_file(f"{league.league_id}-roster.csv", exports.roster_csv(bowlers))
