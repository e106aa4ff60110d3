"""Everything a centre's league desk needs, opened once over the service's store.

The web app, the server and the command line all open the league side the same way: the
league store (rosters, nights, seat requests), the night starter, the scorer seating (which
the service consults on every ``OPEN`` line) and the live standings projection, rebuilt from
the event log at start and fed from the bus after.
"""

from __future__ import annotations

from dataclasses import dataclass

from alley_poker.service.alley import AlleyService
from alley_poker.service.league_nights import LeagueNights
from alley_poker.service.seating import ScorerSeating
from alley_poker.service.standings import LiveStandings
from alley_poker.store.leagues import LeagueStore


@dataclass
class LeagueDesk:
    store: LeagueStore
    nights: LeagueNights
    seating: ScorerSeating
    standings: LiveStandings

    def close(self) -> None:
        self.standings.close()
        self.seating.close()


def attach_scorer_seating(service: AlleyService,
                          store: LeagueStore | None = None) -> ScorerSeating:
    """Seat ``service``'s league matches from the scorer's ``OPEN`` lines: every process that
    reads a scorer's feed needs it (the all-in-one server, and a centre's worker)."""
    if store is None:
        store = LeagueStore(service.repository.store.engine, centre=service.centre)
    seating = ScorerSeating(service, store)
    service.seating = seating
    return seating


def open_league_desk(service: AlleyService) -> LeagueDesk:
    """The league side of ``service``'s centre; sets ``service.seating``."""
    store = LeagueStore(service.repository.store.engine, centre=service.centre)
    standings = LiveStandings(service)
    seating = attach_scorer_seating(service, store)

    def league_average(bowler_id: int) -> tuple[int, int] | None:
        """(games, average) the bowler has bowled in their league so far, from the log."""
        league_id = store.bowler(bowler_id).league_id
        with standings.reading() as projection:
            row = next((r for r in projection.standings(league_id)
                        if r.bowler_id == bowler_id), None)
        return None if row is None or row.average is None else (row.games, row.average)

    nights = LeagueNights(service, store, announced=seating.announced,
                          league_average=league_average)
    return LeagueDesk(store, nights, seating, standings)
