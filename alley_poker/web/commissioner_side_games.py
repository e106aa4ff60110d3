"""The desk's side games of a league night (``/commissioner/leagues/<id>/nights/<date>/
side-games``), on the commissioner blueprint.

The page is the frame (the league, the night, its bowlers for the entry grid); everything on
it is read from and done through the JSON API's side-game routes
(:mod:`alley_poker.web.api_side_games`) by ``commissioner_side_games.js``, and followed live by
the ``side_changed`` push (:mod:`alley_poker.web.side_pushes`), so the page and the API
cannot disagree.
"""

from __future__ import annotations

from typing import Any

from flask import abort

from alley_poker.league.calendar import night_id as night_id_for
from alley_poker.web.api_league_reports import night_date_from
from alley_poker.web.api_leagues import existing_league, league_view
from alley_poker.web.auth import is_commissioner
from alley_poker.web.commissioner_league import current_desk
from alley_poker.web.commissioner_pages import commissioner, commissioner_page
from alley_poker.web.errors import ApiError


def night_bowlers(league_id: str, checked_in: list[int] | None) -> list[dict[str, Any]]:
    """The entry grid's rows: the night's checked-in bowlers once it started, else the
    active roster (a bowler may buy in before checking in); by name."""
    roster = current_desk().store.bowlers(league_id, include_retired=True)
    rows = [{"bowler_id": b.bowler_id, "name": b.name, "scorer_name": b.scorer_name}
            for b in roster
            if (b.bowler_id in checked_in if checked_in is not None else b.active)]
    return sorted(rows, key=lambda row: row["name"].casefold())


@commissioner.get("/leagues/<league_id>/nights/<night_date>/side-games")
def side_games_desk(league_id: str, night_date: str):
    if not is_commissioner():           # the sign-in form; nothing looked up for a stranger
        return commissioner_page("commissioner_side_games.html")
    try:
        league = existing_league(league_id)
        day = night_date_from(night_date)
    except ApiError:
        abort(404)
    night_id = night_id_for(league.league_id, day)
    started = next((n for n in current_desk().store.nights(league.league_id)
                    if n.night_id == night_id), None)
    checked_in = list(started.checked_in) if started is not None else None
    return commissioner_page("commissioner_side_games.html", league=league_view(league),
                       night_date=day.isoformat(), night_id=night_id,
                       started=started is not None,
                       bowlers=night_bowlers(league.league_id, checked_in))
