"""The ball model as tables over pin masks: the fast engine's balls, drawn from exactly the
distribution :meth:`BowlerProfile.ball <alley_poker.odds.ball_model.BowlerProfile.ball>`
draws from, in one or two ``random()`` calls, with no frozensets.

``BowlerProfile.ball`` draws a ball in steps, a ``random()`` each: foul, gutter, strike (at
a full rack) or a leave; a first ball's leave is a split or a cluster of a size, then which
split or cluster; a later ball's clears the pins or misses some of them, then how many fall
and which (``random.sample``).  Every step's chances are the model's own rates
(:class:`~alley_poker.odds.rates.Rates`) and leave tables
(:mod:`~alley_poker.odds.leaves`), so they can be laid out once:

- a full rack: one ``random()`` ``u`` against running totals of foul, gutter, strike and
  the leave's kind (a split, a cluster of 1 to 9 pins: each the rates' chance of a leave
  times the kind's share), then one more for which leave of that kind, from the same running
  totals ``BowlerProfile.ball`` bisects;
- a leave: ``u`` against foul, gutter (the second ball's rate) and the clearing of that
  leave (``(1 - foul - gutter) * conversion``), then, for a miss, one more for the pins
  left, from a table of every subset of the standing pins with its exact chance (how many
  fall, 0 half as likely as each other count, then any choice of the pins that stay, each
  as likely: ``BowlerProfile.second_ball_leave``).

The chances are the same numbers, added in another order (a few units of 2**-53 apart).
The ledger engine and the scoreboard simulator keep calling ``BowlerProfile.ball`` (so the
odds reference's fingerprint and every seeded practice match stay as they are); the fast
engine uses the tables for the model it knows (a plain in-form ``BowlerProfile``) and
``form.ball`` for any other.  tests/odds/test_ball_tables.py compares the two ball by ball.

>>> import random
>>> from alley_poker.odds.ball_model import BowlerProfile
>>> form = BowlerProfile.for_average("Ann", 180).for_game(random.Random(1))
>>> table = ball_table(form)
>>> pins, after, foul, gutter = table.ball(FULL_RACK, random.Random(2).random)
>>> pins + after.bit_count() == 10 or foul
True
"""

from __future__ import annotations

from bisect import bisect
from itertools import accumulate
from math import comb

from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.odds.compact import FULL_RACK, MASK_PINS, PIN_MASK, POPCOUNT
from alley_poker.odds.leaves import _FIRST_BALL_CLUSTERS, SPLIT_LEAVES, SPLIT_TOTALS
from alley_poker.odds.rates import Rates

#: Past the last running total: ``random()`` is below 1, so a bisect always finds a place
#: even when a total adds up to a hair under 1.
_END = float("inf")

#: The leaves of each kind a first ball leaves, as masks, with the running totals of their
#: chances (the very lists ``leaves.random_split`` and ``leaves.first_ball_cluster`` bisect):
#: the splits, then clusters of 1 to 9 pins.
_KIND_LEAVES: tuple[tuple[tuple[int, ...], list[float]], ...] = (
    (tuple(PIN_MASK[leave] for leave in SPLIT_LEAVES), SPLIT_TOTALS),
    *((tuple(PIN_MASK[leave] for leave in _FIRST_BALL_CLUSTERS[size][0]),
       _FIRST_BALL_CLUSTERS[size][1]) for size in range(1, 10)),
)


def _miss_leaves(mask: int) -> tuple[tuple[int, ...], list[float]]:
    """Every leave a ball that neither clears ``mask`` nor gutters can leave, with running
    totals of their chances: ``k`` of the ``n`` pins fall with weight 1 for ``k = 0`` and 2
    for each other ``k < n`` (``ball_model._MISS_TOTALS``), and which ``n - k`` stay is any
    of the ``comb(n, n - k)`` choices, each as likely."""
    n = POPCOUNT[mask]
    leaves, weights = [], []
    subset = mask
    while subset:  # every non-empty subset of the standing pins
        fallen = n - POPCOUNT[subset]
        leaves.append(subset)
        weights.append((1 if fallen == 0 else 2) / comb(n, n - fallen))
        subset = (subset - 1) & mask
    return tuple(leaves), list(accumulate(weights))


_MISSES: list[tuple[tuple[int, ...], list[float]] | None] = [None] * (FULL_RACK + 1)


class BallTable:
    """One game's form as running totals over ``random()`` (see the module)."""

    __slots__ = ("_rates", "foul", "gutter", "kinds", "later", "strike")

    def __init__(self, rates: Rates):
        self._rates = rates
        self.foul = rates.foul
        self.gutter = rates.foul + rates.gutter
        self.strike = self.gutter + rates.strike
        leave = 1 - self.strike
        shares = [rates.split] + [(1 - rates.split) * size / rates.leave_totals[-1]
                                  for size in rates.leave_sizes]
        kinds = [self.strike + leave * total for total in accumulate(shares)]
        kinds[-1] = _END
        self.kinds = kinds
        #: For each leave (by mask): the running totals of foul, gutter and clearing it.
        self.later: list[tuple[float, float] | None] = [None] * (FULL_RACK + 1)

    def _later(self, mask: int) -> tuple[float, float]:
        rates = self._rates
        gutter = rates.foul + rates.gutter2
        clear = gutter + (1 - gutter) * rates.cleared(MASK_PINS[mask])
        self.later[mask] = totals = (gutter, clear)
        return totals

    def ball(self, mask: int, random) -> tuple[int, int, bool, bool]:
        """A ball at the pins ``mask`` (:data:`~alley_poker.odds.compact.FULL_RACK`: a fresh
        rack): ``(pins down, pins left as a mask, foul, gutter)``, as
        ``BowlerProfile.ball`` gives them; ``random`` is the run's ``Random.random``."""
        u = random()
        if u < self.foul:
            return 0, mask, True, False
        if mask == FULL_RACK:
            if u < self.gutter:
                return 0, mask, False, True
            if u < self.strike:
                return 10, 0, False, False
            leaves, totals = _KIND_LEAVES[bisect(self.kinds, u)]
            after = leaves[bisect(totals, random() * totals[-1])]
            return 10 - POPCOUNT[after], after, False, False
        gutter, clear = self.later[mask] or self._later(mask)
        if u < gutter:
            return 0, mask, False, True
        if u < clear:
            return POPCOUNT[mask], 0, False, False
        leaves, totals = _MISSES[mask] or _miss_table(mask)
        after = leaves[bisect(totals, random() * totals[-1])]
        return POPCOUNT[mask] - POPCOUNT[after], after, False, False


def _miss_table(mask: int) -> tuple[tuple[int, ...], list[float]]:
    _MISSES[mask] = table = _miss_leaves(mask)
    return table


def ball_table(form) -> BallTable | None:
    """The tables of a plain ``BowlerProfile`` (what ``for_game`` returns: a game's form);
    None for a mixture or any other model (the engine then calls its ``ball``).
    Made once per :class:`~alley_poker.odds.rates.Rates` (shared by every game bowled in
    that form)."""
    if type(form) is not BowlerProfile or form.members:
        return None
    rates = form._rates
    table = rates.ball_table
    if table is None:
        table = rates.ball_table = BallTable(rates)
    return table


__all__ = ["BallTable", "ball_table"]
