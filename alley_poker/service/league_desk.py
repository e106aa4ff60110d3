"""Everything a centre's league desk needs, opened once over the service's store.

The web app, the server and the command line all open the league side the same way: the
league store (rosters, nights, seat requests), the night starter, the scorer seating (which
the service consults on every ``OPEN`` line), the live standings projection, rebuilt from
the event log at start and fed from the bus after, and the nights' side games (brackets and
pots, :mod:`alley_poker.service.side_nights`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from alley_poker.ledger import MatchState
from alley_poker.service.alley import AlleyService
from alley_poker.service.league_nights import LeagueNights
from alley_poker.service.seating import ScorerSeating
from alley_poker.service.side_nights import SideNights, attach_side_games
from alley_poker.service.standings import LiveStandings
from alley_poker.store.leagues import LeagueStore


@dataclass
class LeagueDesk:
    store: LeagueStore
    nights: LeagueNights
    seating: ScorerSeating
    standings: LiveStandings
    side_games: SideNights

    def close(self) -> None:
        self.side_games.close()
        self.standings.close()
        self.seating.close()


def bowler_averages(store: LeagueStore, standings: LiveStandings | None = None,
                    ) -> Callable[[MatchState], dict[str, int]]:
    """For the live odds: the average of each bowler of a league match, by seat name — their
    league average once the season's games give one (where this process keeps the
    standings), else the roster's book average.  A match outside a league has none."""
    def averages(state: MatchState) -> dict[str, int]:
        if not state.league:
            return {}
        league_id = state.league["league_id"]
        known = {bowler.name: bowler.average
                 for bowler in store.bowlers(league_id, include_retired=True)
                 if bowler.average}
        if standings is not None:
            with standings.reading() as projection:
                known.update({row.name: row.average for row in projection.standings(league_id)
                              if row.average})
        return {name: average for name, average in known.items() if name in state.bowlers}

    return averages


def attach_scorer_seating(service: AlleyService, store: LeagueStore) -> ScorerSeating:
    """Seat the league matches of a ``service`` opened without its seating from the scorer's
    ``OPEN`` lines (their requests in the league ``store``).  A centre's service is built with
    it (:func:`alley_poker.centre.build_centre`); tests that open a bare service attach it."""
    seating = ScorerSeating(service, store)
    service.seating = seating
    return seating


def open_league_desk(service: AlleyService, store: LeagueStore) -> LeagueDesk:
    """The league side of ``service``'s centre over its league ``store``, with the seating
    and side games the service was built with (attached here to a bare one)."""
    standings = LiveStandings(service)
    seating = (service.seating if service.seating is not None
               else attach_scorer_seating(service, store))

    def league_average(bowler_id: int) -> tuple[int, int] | None:
        """(games, average) the bowler has bowled in their league so far, from the log."""
        league_id = store.bowler(bowler_id).league_id
        with standings.reading() as projection:
            row = next((r for r in projection.standings(league_id)
                        if r.bowler_id == bowler_id), None)
        return None if row is None or row.average is None else (row.games, row.average)

    nights = LeagueNights(service, store, announced=seating.announced,
                          league_average=league_average)
    return LeagueDesk(store, nights, seating, standings, attach_side_games(service))
