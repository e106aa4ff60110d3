"""A league's handicap: pins added to a bowler's natural score per game so that bowlers of
different strength compete evenly, from a percentage of the difference between a basis score
and the bowler's average ("90% of 220 minus average").

>>> rule = HandicapRule()                     # 90% of 220
>>> rule.for_average(150), rule.for_average(183), rule.for_average(220)
(63, 33, 0)
>>> rule.for_average(245)                     # better than the basis: never negative
0
>>> rule.for_average(None)                    # no average yet: no handicap
0
>>> HandicapRule(percent=0).for_average(100), str(HandicapRule(percent=0))
(0, 'scratch')
>>> str(HandicapRule(80, 210))
'80% of 210 minus average'
>>> HandicapRule(percent=120)
Traceback (most recent call last):
...
alley_poker.league.league_errors.LeagueError: handicap percent must be a whole number from 0 to \
100, not 120
"""

from __future__ import annotations

from dataclasses import dataclass

from alley_poker.league.league_errors import LeagueError

#: The best score a game of ten-pin can have; averages and the basis are within 0..300.
PERFECT_GAME = 300


def whole_number(value: object, low: int, high: int, what: str, field: str) -> int:
    """``value`` when it is an int (not a bool) within ``low..high``; LeagueError otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise LeagueError(f"{what} must be a whole number from {low} to {high}, not {value!r}",
                          field=field)
    return value


@dataclass(frozen=True)
class HandicapRule:
    """``percent``% of (``basis`` minus average), rounded down, never below zero.
    ``percent`` 0 makes a scratch league."""

    percent: int = 90
    basis: int = 220

    def __post_init__(self) -> None:
        whole_number(self.percent, 0, 100, "handicap percent", "handicap_percent")
        whole_number(self.basis, 0, PERFECT_GAME, "handicap basis", "handicap_basis_pins")

    @property
    def scratch(self) -> bool:
        return self.percent == 0

    def for_average(self, average: int | None) -> int:
        """The handicap in pins per game for a bowler averaging ``average`` (None: none yet)."""
        if average is None:
            return 0
        whole_number(average, 0, PERFECT_GAME, "an average", "average")
        # Integer arithmetic: the floor is exact, no float rounding of e.g. 0.9 * 70.
        return max(0, (self.basis - average) * self.percent // 100)

    def __str__(self) -> str:
        return "scratch" if self.scratch else f"{self.percent}% of {self.basis} minus average"
