"""A league night in one step: check in who is here, and every match is created and started.

The commissioner (on the tablet, or ``alley-poker league night start``) names the bowlers
who came tonight.  One action then lays them out over the league's lane pairs
(:mod:`alley_poker.league.night_plan`: where the scorer already opened a lane, its bowlers sit
where the scorer has them), and for each pair creates the match under the league's rule
book, ante and games, tagged with the league, the night and who each seat is on the roster
(so standings follow people, not names), with each bowler's handicap for the night.
Checking in is the bowler's consent to the league's ante, which the check-in page states:
the desk records each consent and starts the match, as rev 1.2 I.1 asks.

Everything is checked before anything is written: a night already started, a bowler not on
the roster or retired, lanes still held by an unfinished match, a rule book that does not
load.  If the ledger still refuses a match midway (it should not), the matches already made
tonight are voided with that reason and their lanes freed: a night starts whole or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

from alley_poker.config.sections import rule_book_path
from alley_poker.league import LeagueNotFound
from alley_poker.league.calendar import night_id
from alley_poker.league.night_plan import NightPlanError, plan_night
from alley_poker.ledger import CommandRefused
from alley_poker.ledger import commands as c
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.rules import RuleBook, RuleBookError
from alley_poker.service.alley import AlleyService


class LeagueNightError(ValueError):
    """A night that cannot start as asked; ``field`` names what to fix."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class LeagueBook(Protocol):
    """What a night needs of the league store (``alley_poker.store.leagues.LeagueStore``)."""

    def league(self, league_id: str) -> Any: ...

    def bowlers(self, league_id: str, *, include_retired: bool = False) -> list[Any]: ...

    def nights(self, league_id: str) -> list[Any]: ...

    def record_night(self, league_id: str, night_date: date, checked_in: Sequence[int], *,
                     actor: str) -> str: ...


#: A bowler's league record so far, as (games bowled, average), or None: from the standings.
LeagueAverage = Callable[[int], "tuple[int, int] | None"]


@dataclass(frozen=True)
class NightStarted:
    night_id: str
    night_date: date
    matches: tuple[str, ...]
    #: match id → {(lane, slot): seat name}, as created.
    seating: dict[str, dict[tuple[int, int], str]]


def match_id_for(night: str, lanes: tuple[int, int]) -> str:
    """A night's match on a lane pair: ``tue-2026-11-24-1-2``.

    >>> match_id_for("tue-2026-11-24", (3, 4))
    'tue-2026-11-24-3-4'
    """
    return f"{night}-{lanes[0]}-{lanes[1]}"


def handicap_of(bowler: Any, league: Any, league_average: LeagueAverage | None) -> int:
    """Tonight's handicap under the league's rule (the bowler's basis picks the average)."""
    so_far = league_average(bowler.bowler_id) if league_average is not None else None
    games, average = so_far if so_far is not None else (0, None)
    return bowler.handicap(league.handicap, league_average=average, league_games=games)


class LeagueNights:
    """Starts league nights on an :class:`AlleyService` from the league store."""

    def __init__(self, service: AlleyService, book: LeagueBook, *,
                 announced: Callable[[], dict[int, list[tuple[int, str]]]] | None = None,
                 league_average: LeagueAverage | None = None):
        self.service = service
        self.book = book
        self.announced = announced or (lambda: {})
        self.league_average = league_average

    def start(self, league_id: str, checked_in: Iterable[int], *, actor: str,
              night_date: date, now: datetime | None = None) -> NightStarted:
        """Create and start tonight's matches for the ``checked_in`` roster ids."""
        league = self._league(league_id)
        night = night_id(league.league_id, night_date)
        if any(known.night_id == night for known in self.book.nights(league_id)):
            raise LeagueNightError(
                f"the night of {night_date.isoformat()} has already started for "
                f"{league.name}", "night_date")
        people = self._checked_in(league, list(checked_in))
        rules = self._rules(league)
        try:
            league.check_rule_book(rules)
        except ValueError as problem:
            raise LeagueNightError(str(problem), "ante_cents") from problem
        try:
            plan = plan_night(league.lane_pairs, people, announced=self.announced(),
                              min_per_match=rules.min_bowlers,
                              max_per_match=rules.max_bowlers)
        except NightPlanError as problem:
            raise LeagueNightError(str(problem), "checked_in") from problem
        self._lanes_are_free([pair.lanes for pair in plan.pairs])
        by_name = {person.name: person for person in people}
        overrides = {**rules.model_dump(), "lowest_score_draw_by": league.lowest_draw_by}
        made: list[str] = []
        seating: dict[str, dict[tuple[int, int], str]] = {}
        try:
            for pair in plan.pairs:
                match_id = match_id_for(night, pair.lanes)
                names = pair.bowlers
                tag = {"league_id": league.league_id, "night_id": night,
                       "night_date": night_date.isoformat(),
                       "people": {name: by_name[name].bowler_id for name in names}}
                handicaps = {name: handicap_of(by_name[name], league, self.league_average)
                             for name in names}
                self.service.create_match(
                    match_id, pair.slots, games=league.games, ante_cents=league.ante_cents,
                    rules=overrides, actor=actor, league=tag, handicaps=handicaps)
                made.append(match_id)
                for name in names:
                    self.service.execute(match_id, c.ConsentToAnte(name, actor=actor))
                self.service.execute(match_id, c.StartMatch(actor=actor))
                seating[match_id] = dict(pair.slots)
            self.book.record_night(league.league_id, night_date,
                                   [p.bowler_id for p in people], actor=actor)
        except (CommandRefused, ValueError) as refused:
            self._undo_half_night(made, actor, str(refused))
            raise LeagueNightError(f"the night did not start: {refused}") from refused
        self.service.announce("alley", {"kind": "league_night_started", "night_id": night,
                                        "matches": made, "actor": actor})
        return NightStarted(night, night_date, tuple(made), seating)

    def _league(self, league_id: str) -> Any:
        try:
            return self.book.league(league_id)
        except LeagueNotFound as missing:
            raise LeagueNightError(f"there is no league {league_id!r}", "league_id") from missing

    def _checked_in(self, league: Any, ids: list[int]) -> list[Any]:
        if len(set(ids)) != len(ids):
            raise LeagueNightError("a bowler is checked in twice", "checked_in")
        roster = {b.bowler_id: b for b in self.book.bowlers(league.league_id,
                                                              include_retired=True)}
        unknown = [str(i) for i in ids if i not in roster]
        if unknown:
            raise LeagueNightError(f"not on the roster of {league.name}: bowler id "
                                   + ", ".join(unknown), "checked_in")
        retired = [roster[i].name for i in ids if not roster[i].active]
        if retired:
            raise LeagueNightError("retired (re-activate them first): " + ", ".join(retired),
                                   "checked_in")
        return [roster[i] for i in ids]

    @staticmethod
    def _rules(league: Any) -> RuleBook:
        try:
            return RuleBook.load(rule_book_path(league.rule_book))
        except (OSError, RuleBookError) as problem:
            raise LeagueNightError(f"the league's rule book {league.rule_book!r} does not "
                                   f"load: {problem}", "rule_book") from problem

    def _lanes_are_free(self, pairs: list[tuple[int, int]]) -> None:
        for pair in pairs:
            for lane in pair:
                busy = [m for m in self.service.lanes.matches_on(lane)
                        if self.service.state(m).status not in FINISHED]
                if busy:
                    who = ", ".join(self.service.state(busy[0]).bowlers)
                    raise LeagueNightError(
                        f"lane {lane} is still held by an unfinished match ({who}'s): settle "
                        "or void it first", "lanes")

    def _undo_half_night(self, made: list[str], actor: str, why: str) -> None:
        for match_id in made:
            try:
                self.service.execute(match_id, c.CommissionerVoidMatch(
                    reason=f"the league night did not start: {why}", actor=actor))
            except CommandRefused:
                continue

