"""Each bowler's ball model for the odds: the simulator's model, adjusted by what the bowler
has actually bowled, shrunk toward the centre's averages.

A bowler with no history bowls as the simulator's bowler of the centre's average; a league
bowler starts from their own average (the league's, or the roster's book average).  Each rate
the bowler's balls say something about (strikes per full rack, spares per second-ball
chance, gutter balls per ball) is a weighted mean of what they did and the centre's rate, as
if the centre's rate had been seen ``weight`` more times (a beta prior, "shrinkage"): after
a few balls the estimate barely moves, after a few games it is mostly the bowler's own.

>>> balls = [{"frame": f, "ball": 1, "pins": 10, "mark": "strike", "gutter_ball": False,
...           "gutter": False} for f in range(1, 10)]
>>> centre = CentreAverages(average=150)
>>> hot = learn_profile("ANN", balls, centre)
>>> prior = centre.profile("ANN")
>>> prior.strike_rate < hot.strike_rate < 1.0
True
>>> learn_profile("BOB", [], centre) == centre.profile("BOB")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from alley_poker.odds.ball_model import BowlerProfile


@dataclass(frozen=True)
class CentreAverages:
    """What the centre's bowlers do on average: the prior every bowler's model starts from.

    ``average`` picks the simulator's model; the weights are how many chances the prior
    counts as (first balls for strikes, second-ball chances for spares, balls for gutters).
    """

    average: int = 150
    strike_weight: float = 24.0
    spare_weight: float = 16.0
    gutter_weight: float = 60.0

    def __post_init__(self) -> None:
        if not 100 <= self.average <= 240:
            raise ValueError(f"centre average {self.average} is outside 100-240")

    def profile(self, name: str) -> BowlerProfile:
        """The centre's typical bowler, named ``name``."""
        return BowlerProfile.for_average(name, self.average)


@dataclass
class _Counts:
    racks: int = 0
    strikes: int = 0
    chances: int = 0
    spares: int = 0
    balls: int = 0
    gutters: int = 0


def _count(balls: Iterable[Mapping[str, Any]]) -> _Counts:
    """Strike, spare and gutter chances in ledger ball records (in the order bowled)."""
    counts = _Counts()
    full_rack = True
    for ball in balls:
        counts.balls += 1
        counts.gutters += bool(ball.get("gutter_ball") or ball.get("gutter"))
        mark = ball.get("mark")
        if full_rack:
            counts.racks += 1
            counts.strikes += mark == "strike"
        else:
            counts.chances += 1
            counts.spares += mark == "spare"
        # The next ball faces a full rack after a mark, or at the start of a new frame.
        ended_frame = ball.get("frame", 1) < 10 and (mark is not None or ball.get("ball") == 2)
        full_rack = mark is not None or ended_frame or bool(ball.get("completes_game"))
    return counts


def _shrunk(hits: int, chances: int, prior: float, weight: float) -> float:
    return (hits + weight * prior) / (chances + weight)


def learn_profile(name: str, balls: Iterable[Mapping[str, Any]],
                  centre: CentreAverages, average: int | None = None) -> BowlerProfile:
    """The ball model of ``name`` from the balls they bowled (ledger ball records, one game
    after another), shrunk toward their history: the simulator's bowler of ``average`` (the
    bowler's league or book average) when it is known, else the centre's typical bowler.

    >>> learn_profile("CY", [], CentreAverages(), average=205).average
    205
    """
    prior = (centre.profile(name) if average is None
             else BowlerProfile.for_average(name, min(240, max(100, average))))
    counts = _count(balls)
    if not counts.balls:
        return prior
    return replace(
        prior,
        strike_rate=_shrunk(counts.strikes, counts.racks, prior.strike_rate,
                            centre.strike_weight),
        spare_rate=_shrunk(counts.spares, counts.chances, prior.spare_rate,
                           centre.spare_weight),
        gutter_rate=_shrunk(counts.gutters, counts.balls, prior.gutter_rate,
                            centre.gutter_weight),
    )


def profiles_for(balls_by_bowler: Mapping[str, list[list[dict]]],
                 centre: CentreAverages,
                 averages: Mapping[str, int] | None = None) -> dict[str, BowlerProfile]:
    """A model for every bowler of a match from its ``MatchState.balls`` (per bowler, per
    game) and, where known, the bowler's average (``averages``, by name)."""
    averages = averages or {}
    return {bowler: learn_profile(bowler, (ball for game in games for ball in game), centre,
                                  averages.get(bowler))
            for bowler, games in balls_by_bowler.items()}
