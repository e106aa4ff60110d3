"""Pots on a number: high game, high series, the strike pot.

A pot takes one entry from each bowler in it.  The organiser's share (``organiser_percent``
of the pot, rounded down; 0 unless the league sets it) comes off first; what is left is the
prize money.

- **High game** ranks each entrant by their best counted game, **high series** by the sum of
  their counted games (scratch, or with each game's handicap).  Places are paid by
  ``places_percent`` of the prize money (rounded down; the cents left go to first place),
  ties share the places they fill (:func:`~alley_poker.side_games.money.pay_places`).
- **The strike pot** pays a share per strike: each entrant gets ``prize * their strikes //
  all the entrants' strikes``; the few cents this leaves go one each to the entrants with the
  most strikes (then the lowest bowler id).  A night with no strike among the entrants
  refunds every entry (and the organiser takes nothing).

>>> from alley_poker.side_games.rounds import GameScore
>>> from alley_poker.side_games.settings import PotSettings
>>> high_game = PotSettings(kind="high_game", scoring="scratch", games=(1, 2, 3),
...                         entry_cents=100, places_percent=(70, 30))
>>> scores = {(1, 1): GameScore(201), (1, 2): GameScore(180), (1, 3): GameScore(150),
...           (2, 1): GameScore(199), (2, 2): GameScore(201), (2, 3): GameScore(120),
...           (3, 1): GameScore(170), (3, 2): GameScore(160), (3, 3): GameScore(190)}
>>> outcome = pot_outcome(high_game, [1, 2, 3], scores)
>>> outcome.payouts, outcome.standings
({1: 150, 2: 150}, ((1, 201), (2, 201), (3, 190)))
>>> strikes = PotSettings(kind="strikes", scoring="scratch", games=(1, 2, 3), entry_cents=100)
>>> struck = {(b, g): GameScore(150, strikes=b) for b in (1, 2, 3) for g in (1, 2, 3)}
>>> pot_outcome(strikes, [1, 2, 3], struck).payouts      # 3, 6 and 9 strikes of 18
{1: 50, 2: 100, 3: 150}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from alley_poker.side_games.money import pay_places
from alley_poker.side_games.rounds import Scores
from alley_poker.side_games.settings import PotSettings


@dataclass(frozen=True)
class PotOutcome:
    """A pot as the games stand.  ``waiting_on``: entrants with a counted game not in yet
    (the pot is decided when nobody is, or when the desk pays it as it stands)."""

    entrants: tuple[int, ...]
    standings: tuple[tuple[int, int], ...]      # (bowler, their number), best first
    waiting_on: tuple[int, ...]
    payouts: dict[int, int]
    organiser_cents: int
    refunds: dict[int, int]

    @property
    def finished(self) -> bool:
        return not self.waiting_on


def pot_outcome(settings: PotSettings, entrants: Iterable[int], scores: Scores) -> PotOutcome:
    """The pot's standings and payouts, counting the games in ``scores`` (a missing or an
    absent game counts as not bowled: nothing for high game, 0 pins in the series, no
    strikes)."""
    people = tuple(sorted(set(entrants)))
    waiting = tuple(b for b in people if any((b, g) not in scores for g in settings.games))
    numbers = {b: _number(settings, b, scores) for b in people}
    standings = tuple(sorted(numbers.items(), key=lambda item: (-item[1], item[0])))
    pot = settings.entry_cents * len(people)
    organiser = pot * settings.organiser_percent // 100
    prize = pot - organiser
    if not people:
        return PotOutcome(people, standings, waiting, {}, 0, {})
    if settings.kind == "strikes":
        total = sum(numbers.values())
        if total == 0:
            return PotOutcome(people, standings, waiting, {}, 0,
                              {b: settings.entry_cents for b in people})
        paid = {b: prize * n // total for b, n in standings if n}
        for bowler, _ in standings[:prize - sum(paid.values())]:
            paid[bowler] += 1
        return PotOutcome(people, standings, waiting, dict(sorted(paid.items())), organiser,
                          {})
    prizes = [prize * percent // 100 for percent in settings.places_percent]
    prizes[0] += prize - sum(prizes)
    return PotOutcome(people, standings, waiting, pay_places(standings, prizes), organiser, {})


def _number(settings: PotSettings, bowler: int, scores: Scores) -> int:
    games = [scores[bowler, g] for g in settings.games if (bowler, g) in scores]
    if settings.kind == "strikes":
        return sum(game.strikes for game in games)
    counted = [game.counted(settings.scoring) for game in games if not game.absent]
    if settings.kind == "high_game":
        return max(counted, default=0)
    return sum(counted)
