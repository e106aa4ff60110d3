"""The league desk: everything a centre needs to run leagues, built over one service.

The web app, the all-in-one server and the CLI (``alley-poker league ...``) all call
:func:`open_leagues`, so each process has one league store, one live standings projection,
one night starter and one scorer seating — and the service's ``seating`` hook is set, so the
scorer's ``OPEN`` lines seat league matches in any process that reads a feed.

A service without a database behind it (a bare in-memory repository) runs no leagues:
:func:`open_leagues` answers None and the league pages say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone

from alley_poker.league import League, night_date_of
from alley_poker.service.alley import AlleyService
from alley_poker.service.league_nights import LeagueNights
from alley_poker.service.seating import ScorerSeating
from alley_poker.service.standings import LiveStandings
from alley_poker.store.leagues import LeagueStore


@dataclass
class LeagueDesk:
    """The league parts of one centre's service."""

    service: AlleyService
    store: LeagueStore
    standings: LiveStandings
    nights: LeagueNights
    seating: ScorerSeating

    def tonight(self, league: League, now: datetime | None = None) -> date:
        """The night a league is bowling now, in its own time zone (after midnight the night
        that began the evening before)."""
        return night_date_of(league, now or datetime.now(timezone.utc))

    def league_average(self, bowler_id: int) -> tuple[int, int] | None:
        """(games bowled, league average) of a roster bowler so far, from the standings."""
        bowler = self.store.bowler(bowler_id)
        for row in self.standings.projection.standings(bowler.league_id):
            if row.bowler_id == bowler_id and row.games:
                return row.games, row.average
        return None


def open_leagues(service: AlleyService) -> LeagueDesk | None:
    """The service's league desk, made once per service (None without a database)."""
    made = getattr(service, "league_desk", None)
    if made is not None:
        return made
    store = getattr(service.repository, "store", None)
    if store is None:
        return None
    leagues = LeagueStore(store.engine, service.centre)
    seating = ScorerSeating(service, leagues)
    standings = LiveStandings(service)
    desk = LeagueDesk(service, leagues, standings, nights=None,  # type: ignore[arg-type]
                      seating=seating)
    desk.nights = LeagueNights(service, leagues, announced=seating.announced,
                               league_average=desk.league_average)
    service.seating = seating
    service.league_desk = desk  # type: ignore[attr-defined]
    return desk


__all__ = ["LeagueDesk", "open_leagues"]
