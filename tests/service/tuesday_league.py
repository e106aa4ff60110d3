"""The Tuesday league the service tests open a desk on: one definition, with what a test
changes (its ante, its games) named where it is used; and an early and a late league on the
same lanes the same Tuesday evening."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import time

from alley_poker.league import HandicapRule, League
from alley_poker.service.league_desk import LeagueDesk, open_league_desk
from alley_poker.store.leagues import LeagueStore


def tuesday_league(*, ante_cents: int, games: int) -> League:
    """Tuesday Poker ("tue") on lanes 1-2 and 3-4 at 19:00 Chicago time, 90% of 220."""
    return League(
        "tue", "Tuesday Poker", "house-rev-1.2", ante_cents=ante_cents, weekday=1,
        start_time=time(19, 0), time_zone="America/Chicago", lane_pairs=((1, 2), (3, 4)),
        games=games, handicap=HandicapRule(90, 220))


def tuesday_desk(service, roster: str, *, ante_cents: int, games: int) -> Iterator[LeagueDesk]:
    """A league desk over ``service`` with the Tuesday league and ``roster`` in it (for a
    fixture to yield from: the desk is closed after)."""
    desk = league_desk(service)
    desk.store.create_league(tuesday_league(ante_cents=ante_cents, games=games))
    desk.store.import_roster("tue", roster)
    yield desk
    desk.close()


def league_desk(service) -> LeagueDesk:
    """A league desk over ``service`` and its centre's league store (the caller closes it)."""
    return open_league_desk(service, LeagueStore(service.repository.store.engine,
                                                 centre=service.centre))


def early_and_late_desk(service, early_roster: str, late_roster: str, *,
                        lane_pairs: tuple[tuple[int, int], ...]) -> LeagueDesk:
    """A league desk over ``service`` with two Tuesday leagues on the same ``lane_pairs``:
    the Early Birds ("early", 18:00) and the Late Owls ("late", 20:30), one game each, with
    their rosters in (the caller closes the desk)."""
    desk = league_desk(service)
    for league_id, name, start, roster in (("early", "Early Birds", time(18), early_roster),
                                           ("late", "Late Owls", time(20, 30), late_roster)):
        desk.store.create_league(League(
            league_id, name, "house-rev-1.2", ante_cents=200, weekday=1, start_time=start,
            time_zone="America/Chicago", lane_pairs=lane_pairs, games=1,
            handicap=HandicapRule(90, 220)))
        desk.store.import_roster(league_id, roster)
    return desk
