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

import threading
from bisect import bisect
from collections import Counter
from itertools import accumulate
from math import comb

from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.odds.compact import FULL_RACK, MASK_PINS, PIN_MASK, POPCOUNT, SPLIT
from alley_poker.odds.leaves import _FIRST_BALL_CLUSTERS, SPLIT_CLASS, SPLIT_LEAVES, SPLIT_TOTALS
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


_SEVEN_TEN = PIN_MASK[frozenset({7, 10})]


def _conversion_class(mask: int) -> tuple[int, str | None, bool]:
    """What a leave's conversion depends on, as ``Rates.cleared`` reads it: how many pins,
    the split class (a split the table of splits does not name is wide), the 7-10."""
    split = SPLIT_CLASS.get(MASK_PINS[mask])
    if split is None and POPCOUNT[mask] > 1 and SPLIT[mask]:
        split = "wide"
    return POPCOUNT[mask], split, mask == _SEVEN_TEN


#: Each leave's conversion class, by mask.
_CLASS_OF: tuple[tuple[int, str | None, bool], ...] = tuple(
    _conversion_class(mask) for mask in range(FULL_RACK + 1))


def _kind_classes(leaves: tuple[int, ...], totals: list[float]) -> dict:
    """The chance of each conversion class among one kind's leaves."""
    chances: Counter = Counter()
    previous = 0.0
    for leave, total in zip(leaves, totals, strict=True):
        chances[_CLASS_OF[leave]] += (total - previous) / totals[-1]
        previous = total
    return chances


#: For each kind of first-ball leave (as :data:`_KIND_LEAVES`), its conversion classes.
_KIND_CLASSES = tuple(_kind_classes(leaves, totals) for leaves, totals in _KIND_LEAVES)


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

    __slots__ = ("_by_class", "_frames", "_rates", "foul", "gutter", "kinds", "later",
                 "shares", "strike")

    def __init__(self, rates: Rates):
        self._rates = rates
        self.foul = rates.foul
        self.gutter = rates.foul + rates.gutter
        self.strike = self.gutter + rates.strike
        leave = 1 - self.strike
        shares = [rates.split] + [(1 - rates.split) * size / rates.leave_totals[-1]
                                  for size in rates.leave_sizes]
        self.shares = shares
        kinds = [self.strike + leave * total for total in accumulate(shares)]
        kinds[-1] = _END
        self.kinds = kinds
        #: For each leave met (by mask): the running totals of foul and gutter, and clearing
        #: it (a dict: a form meets a few dozen leaves, and a night makes thousands of forms).
        self.later: dict[int, tuple[float, float]] = {}
        self._by_class: dict[tuple, tuple[float, float]] = {}
        self._frames: tuple[tuple[tuple, ...], list[float]] | None = None

    def _later(self, mask: int) -> tuple[float, float]:
        cls = _CLASS_OF[mask]
        totals = self._by_class.get(cls)
        if totals is None:
            rates = self._rates
            gutter = rates.foul + rates.gutter2
            clear = gutter + (1 - gutter) * rates.conversion_of(*cls)
            totals = self._by_class[cls] = (gutter, clear)
        self.later[mask] = totals
        return totals

    def frames(self) -> tuple[tuple[tuple, ...], list[float]]:
        """Frames 1-9 from a fresh rack, whole: :func:`frame_table`."""
        if self._frames is None:
            self._frames = frame_table(self)
        return self._frames

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
        gutter, clear = self.later.get(mask) or self._later(mask)
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


#: What a frame was, as :func:`frame_table` gives it.
OPEN, SPARE, STRIKE = range(3)
#: Every frame :func:`frame_table` gives a chance, in its order: a strike; a leave of 1 to
#: 9 pins, then a foul or a miss of all (0), a gutter, a spare, or 1 to all-but-one pins;
#: a foul, then a gutter, at a full rack, then a foul, a gutter, a spare, or 1 to 9 pins.
FRAME_OUTCOMES: tuple[tuple[int, int, int, bool, bool], ...] = (
    (STRIKE, 10, 0, False, False),
    *(outcome for pins in range(1, 10) for outcome in (
        (OPEN, 10 - pins, 0, False, False), (OPEN, 10 - pins, 0, False, True),
        (SPARE, 10 - pins, pins, False, False),
        *((OPEN, 10 - pins, fallen, False, False) for fallen in range(1, pins)))),
    *(outcome for lost in (False, True) for outcome in (
        (OPEN, 0, 0, lost, False), (OPEN, 0, 0, lost, True), (SPARE, 0, 10, lost, False),
        *((OPEN, 0, 10 - pins, lost, False) for pins in range(1, 10)))),
)


def frame_table(table: BallTable) -> tuple[tuple[tuple, ...], list[float]]:
    """Every way a frame of frames 1-9 can go from a fresh rack, with running totals of
    their chances, for the fast engine to draw a whole frame with one ``random()``.

    A frame is ``(kind, first ball's pins, second ball's pins, first ball a gutter, second
    ball a gutter)``: all that the cards and the score read of it (a foul credits 0 and
    moves no card; which pins stood does not outlive the frame).  Its chance is the sum
    over the balls that make it, each ball's chance the tables' (:meth:`BallTable.ball`):
    the first ball's foul, gutter, strike or leave (a leave's second ball reads only its
    pins and its conversion class, so the leaves are summed by class), then the second
    ball's foul, gutter, clearing or miss (0 to all-but-one pins down, as
    :func:`_miss_leaves` weighs them), or after a foul or a gutter a ball at a full rack
    (a "strike" then being a spare).
    """
    rates = table._rates
    foul, gutter, strike = rates.foul, rates.gutter, rates.strike
    leave = 1 - table.strike
    # The first ball's leaves, by conversion class.
    classes: Counter = Counter()
    for share, kind in zip(table.shares, _KIND_CLASSES, strict=True):
        for cls, chance in kind.items():
            classes[cls] += leave * share * chance
    # Summed by the leave's size: its chance, and its chance of being cleared.
    by_size = [0.0] * 11
    cleared = [0.0] * 11
    for cls, chance in classes.items():
        by_size[cls[0]] += chance
        cleared[cls[0]] += chance * rates.conversion_of(*cls)
    second_gutter = rates.gutter2
    hit = 1 - foul - second_gutter
    chances = [strike]  # in the order of FRAME_OUTCOMES
    for pins in range(1, 10):
        chance = by_size[pins]
        missed = hit * (chance - cleared[pins]) / (2 * pins - 1)
        chances += (chance * foul + missed, chance * second_gutter, hit * cleared[pins])
        chances += [2 * missed] * (pins - 1)
    for chance in (foul, gutter):  # a full rack for the second ball
        chances += (chance * foul, chance * gutter, chance * strike)
        chances += [chance * by_size[pins] for pins in range(1, 10)]
    # An outcome of no chance (a rate of 0) has a running total equal to the one before
    # it: bisect never lands on it.
    totals = list(accumulate(chances))
    totals[-1] = _END
    return FRAME_OUTCOMES, totals


#: The tables made so far, by the form's rates (one object per form step: ``rates_for``),
#: oldest first; as many as ``rates_for`` keeps, the oldest forgotten first.  Kept here, not
#: on the rates, so that a forgotten table and its rates are freed at once (no cycle).
_TABLES: dict[Rates, BallTable] = {}
_TABLES_KEPT = 16_384
_TABLES_LOCK = threading.Lock()


def ball_table(form) -> BallTable | None:
    """The tables of a plain ``BowlerProfile`` (what ``for_game`` returns: a game's form);
    None for a mixture or any other model (the engine then calls its ``ball``).
    Made once per :class:`~alley_poker.odds.rates.Rates` (shared by every game bowled in
    that form)."""
    if type(form) is not BowlerProfile or form.members:
        return None
    return rates_table(form._rates)


def rates_table(rates: Rates) -> BallTable:
    """The tables of a game bowled at ``rates`` (made once, kept as :func:`ball_table`
    keeps them)."""
    table = _TABLES.get(rates)
    if table is None:
        table = BallTable(rates)
        with _TABLES_LOCK:
            while len(_TABLES) >= _TABLES_KEPT:
                del _TABLES[next(iter(_TABLES))]
            _TABLES[rates] = table
    return table


__all__ = ["OPEN", "SPARE", "STRIKE", "BallTable", "ball_table", "frame_table", "rates_table"]
