"""When a state's simulated odds have settled: the stopping rule the live odds check after
every chunk of runs, and the runs a chunk should still ask for.

Plain arithmetic on the runs made and each bowler's wins (a tie of *k* counted 1/*k*), kept
apart from the service that schedules the runs (:mod:`alley_poker.service.live_odds`).

>>> runs_wanted(4800, [2400, 2400], SETTLED_ERROR)   # a coin toss needs the most runs
15625
>>> has_settled(2400, [2328, 72], target_error=SETTLED_ERROR, least=2400, most=20_000)
True
"""

from __future__ import annotations

import math

#: The odds have settled once no bowler's chance has a standard error above this, or at
#: ``iterations`` runs.  ±1.5 points is the accuracy asked of them, checked against a
#: reference of 20,000 runs that is itself ±0.35 points: at ±0.45 the difference's own
#: standard error was 0.57 points and the largest of a league night's ~200 chances came to
#: 1.36 and 1.49 points; at ±0.40 it is 0.53 (a quarter more runs: docs/performance.md).
SETTLED_ERROR = 0.0040


def standard_error(runs: int, wins: list[float]) -> float:
    """The largest standard error of the bowlers' chances after ``runs`` runs in which each
    won ``wins`` (a tie of *k* as 1/*k*): the binomial's, sqrt(p(1 - p) / runs), which bounds
    a share's (a run's share lies in [0, 1], so its variance is at most p(1 - p)).  A chance
    near 0 or 1 is known to the same error from far fewer runs than one near 1/2 (at 95 %,
    a fifth as many).  A chance of 0 or 1 is counted as one run nearer the middle, so a few
    runs never look certain."""
    return max(math.sqrt((won + 1) / (runs + 2) * (1 - (won + 1) / (runs + 2)) / runs)
               for won in wins)


def runs_wanted(runs: int, wins: list[float], target_error: float) -> int:
    """The runs at which every chance would be known to ``target_error``, were the chances
    what ``wins`` of ``runs`` say (as :func:`standard_error` counts them)."""
    shares = [(won + 1) / (runs + 2) for won in wins]
    return math.ceil(max(share * (1 - share) for share in shares) / target_error ** 2)


def has_settled(runs: int, wins: list[float], *, target_error: float, least: int,
                most: int) -> bool:
    """The stopping rule, checked after every chunk: ``most`` runs made, or at least
    ``least`` and every bowler's chance known to ``target_error`` (one standard error).
    Checking as the runs come in and stopping at the first chunk within the target spends
    runs where the figure is uncertain and no more (tests/odds/test_odds_stopping.py holds
    the shown odds' error to the target's bound)."""
    return runs >= most or (runs >= least and standard_error(runs, wins) <= target_error)
