"""The tablet's league pages (``/commissioner/leagues...``), on the commissioner blueprint.

- the leagues, and a form to make one;
- a league: its settings and its roster (add, edit, retire, re-activate, import a CSV file);
- the night's check-in: tick who is here and start every match in one step;
- the season standings (by net money or by matches won), each bowler's page with history;
- a night's sheet for the treasurer, printable (a print stylesheet: no navigation, black on
  white, signature lines).

Read-only pages are rendered here from the same reports the API answers (so the page and the
API cannot disagree); the forms act through the JSON API (``commissioner_league*.js``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort, request

from alley_poker.web.api_league_reports import (
    bowler_history_report,
    night_date_from,
    night_sheet_report,
    standings_report,
    started_night,
)
from alley_poker.web.api_leagues import (
    bowler_view,
    existing_bowler,
    existing_league,
    league_desk,
    league_records,
    league_view,
    night_view,
)
from alley_poker.web.auth import is_commissioner
from alley_poker.web.commissioner_pages import commissioner, commissioner_page
from alley_poker.web.commissioner_story import sheet_stories
from alley_poker.web.errors import ApiError
from alley_poker.web.side_sheet import side_sheet

Found = TypeVar("Found")


def _or_404(find: Callable[[], Found]) -> Found:
    """What ``find`` finds; a page's 404 where the API would answer its 404 (ApiError)."""
    try:
        return find()
    except ApiError:
        abort(404)


def _league_or_404(league_id: str) -> Any:
    return _or_404(lambda: existing_league(league_id))


def _signed_in_page(template: str, build) -> Any:
    """The page built by ``build()`` for the commissioner; the sign-in form for anyone else
    (before anything is looked up, so a stranger learns nothing of the leagues)."""
    if not is_commissioner():
        return commissioner_page(template)
    return commissioner_page(template, **build())


@commissioner.get("/leagues")
def leagues():
    def build() -> dict[str, Any]:
        desk = current_desk()
        return {"leagues": [league_view(league) for league in desk.store.leagues()]}
    return _signed_in_page("commissioner_leagues.html", build)


def current_desk():
    try:
        return league_desk()
    except ApiError:
        abort(503)


@commissioner.get("/leagues/<league_id>")
def league(league_id: str):
    def build() -> dict[str, Any]:
        found = _league_or_404(league_id)
        return {"league": league_view(found)}
    return _signed_in_page("commissioner_league.html", build)


@commissioner.get("/leagues/<league_id>/night")
def league_night(league_id: str):
    def build() -> dict[str, Any]:
        found = _league_or_404(league_id)
        desk = current_desk()
        records = league_records(found)
        bowlers = [bowler_view(found, b, records) for b in desk.store.bowlers(found.league_id)]
        nights = [night_view(found, night) for night in desk.store.nights(found.league_id)]
        view = league_view(found)
        # Tonight already started: the page shows its matches, not a second check-in.
        started = next((n for n in nights if n["night_date"] == view["tonight"]), None)
        return {"league": view, "bowlers": bowlers, "started": started,
                "nights": sorted(nights, key=lambda n: n["night_date"], reverse=True)}
    return _signed_in_page("commissioner_league_night.html", build)


@commissioner.get("/leagues/<league_id>/standings")
def league_standings(league_id: str):
    def build() -> dict[str, Any]:
        found = _league_or_404(league_id)
        report = standings_report(found)
        by = "wins" if request.args.get("by") == "wins" else "net"
        rows = report["standings"]
        if by == "wins":
            order = {bowler_id: place for place, bowler_id in enumerate(report["by_wins"])}
            rows = sorted(rows, key=lambda row: order[row["bowler_id"]])
        nights = [night_view(found, night)
                  for night in current_desk().store.nights(found.league_id)]
        return {"league": league_view(found), "report": report, "rows": rows, "by": by,
                "nights": sorted(nights, key=lambda n: n["night_date"], reverse=True)}
    return _signed_in_page("commissioner_league_standings.html", build)


@commissioner.get("/leagues/<league_id>/bowlers/<int:bowler_id>")
def league_bowler(league_id: str, bowler_id: int):
    def build() -> dict[str, Any]:
        found = _league_or_404(league_id)
        bowler = _or_404(lambda: existing_bowler(found, bowler_id))
        return {"league": league_view(found), "bowler": bowler_view(found, bowler),
                "history": bowler_history_report(found, bowler)}
    return _signed_in_page("commissioner_league_bowler.html", build)


@commissioner.get("/leagues/<league_id>/nights/<night_date>")
def league_night_sheet(league_id: str, night_date: str):
    def build() -> dict[str, Any]:
        found = _league_or_404(league_id)
        night = _or_404(lambda: started_night(found, night_date_from(night_date)))
        sheet = night_sheet_report(found, night)
        with_stories = request.args.get("stories") == "1"
        side = league_desk().side_games.night(night.night_id)
        names = {b.bowler_id: b.name for b in league_desk().store.bowlers(
            found.league_id, include_retired=True)}
        return {"league": league_view(found), "night": night_view(found, night), "sheet": sheet,
                "stories": sheet_stories(sheet) if with_stories else None,
                "side": side_sheet(side, names) if side is not None else None}
    return _signed_in_page("commissioner_league_sheet.html", build)
