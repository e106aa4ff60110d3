"""The pins a ball leaves: clusters of neighbouring pins, and the splits that happen on real
lanes, weighted by how often they happen.  Shared by the ball model and the calibration's
second generator's fallbacks.

>>> import random
>>> leave = cluster(random.Random(1), 3)
>>> len(leave), leave <= set(range(1, 11))
(3, True)
>>> SPLIT_CLASS[frozenset({7, 10})], SPLIT_CLASS[frozenset({3, 10})]
('wide', 'baby')
"""

from __future__ import annotations

import random
from itertools import accumulate

from alley_poker.bowling import PINS

#: Pins that touch on the deck (diagonal neighbours), so a leave grows as real leaves do.
NEIGHBOURS: dict[int, tuple[int, ...]] = {
    1: (2, 3), 2: (1, 4, 5), 3: (1, 5, 6), 4: (2, 7, 8), 5: (2, 3, 8, 9),
    6: (3, 9, 10), 7: (4,), 8: (4, 5), 9: (5, 6), 10: (6,),
}
#: Where a leave starts, weighted: corner pins and the pocket's leftovers are left most.
_LEAVE_SEEDS = ((10, 30), (7, 14), (4, 10), (6, 12), (2, 8), (5, 8), (3, 6), (8, 5), (9, 5),
                (1, 2))
#: Splits as they happen on real lanes, weighted by frequency.
SPLITS: tuple[tuple[frozenset[int], int], ...] = tuple(
    (frozenset(pins), weight) for pins, weight in (
        ((7, 10), 8), ((4, 6), 5), ((5, 7), 6), ((5, 10), 6), ((3, 10), 9), ((2, 7), 9),
        ((4, 7, 10), 4), ((6, 7, 10), 4), ((4, 6, 7, 10), 3), ((8, 10), 5), ((7, 9), 5),
        ((4, 9), 4), ((6, 8), 4), ((4, 10), 4), ((6, 7), 4), ((4, 6, 7), 2), ((4, 6, 10), 2),
        ((2, 10), 2), ((3, 7), 2), ((5, 7, 10), 2), ((7, 8), 1), ((9, 10), 1),
        ((2, 4, 6, 7, 10), 1),
    )
)
#: Splits whose pins are close enough for one ball to take both ("baby" splits, and the
#: 5-7/5-10 that a ball through the 5 can chop onto the corner); every other split is "wide".
_BABY = {frozenset({3, 10}), frozenset({2, 7}), frozenset({5, 7}), frozenset({5, 10}),
         frozenset({7, 8}), frozenset({9, 10})}
SPLIT_CLASS: dict[frozenset[int], str] = {
    leave: "baby" if leave in _BABY else "wide" for leave, _ in SPLITS}

# The weights above as running totals, worked out once: ``random.choices`` given these draws
# exactly what it draws from the weights (one ``random()`` a pick), without re-adding them on
# every ball of a simulation.
_SEED_PINS = tuple(pin for pin, _ in _LEAVE_SEEDS)
_SEED_TOTALS = list(accumulate(weight for _, weight in _LEAVE_SEEDS))
SPLIT_LEAVES = tuple(leave for leave, _ in SPLITS)
SPLIT_TOTALS = list(accumulate(weight for _, weight in SPLITS))


def cluster(rng: random.Random, size: int) -> frozenset[int]:
    """``size`` pins grown from a seed pin through its neighbours, as real leaves grow."""
    leave = {rng.choices(_SEED_PINS, cum_weights=_SEED_TOTALS)[0]}
    while len(leave) < size:
        frontier = sorted({n for pin in leave for n in NEIGHBOURS[pin]} - leave)
        if not frontier:
            frontier = sorted(PINS - leave)
        leave.add(rng.choice(frontier))
    return frozenset(leave)


def random_split(rng: random.Random) -> frozenset[int]:
    """One of the splits of real lanes, as often as it happens."""
    return rng.choices(SPLIT_LEAVES, cum_weights=SPLIT_TOTALS)[0]
