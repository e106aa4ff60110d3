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
from bisect import bisect
from itertools import accumulate

from alley_poker.bowling import PINS, is_split

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




#: How many times a first ball's cluster is drawn again when it came out a split (the split
#: share has its own rate); after that many the leave is the 10 pin.
CLUSTER_TRIES = 20


def _cluster_chances(size: int) -> dict[frozenset[int], float]:
    """The exact chance of each leave :func:`cluster` grows to at ``size`` pins: its seed
    pin by weight, then each pin added uniformly from the sorted frontier."""
    total = _SEED_TOTALS[-1]
    chances = {frozenset({pin}): weight / total for pin, weight in _LEAVE_SEEDS}
    for _ in range(size - 1):
        grown: dict[frozenset[int], float] = {}
        for leave, chance in chances.items():
            frontier = {n for pin in leave for n in NEIGHBOURS[pin]} - leave or PINS - leave
            for pin in frontier:
                bigger = leave | {pin}
                grown[bigger] = grown.get(bigger, 0.0) + chance / len(frontier)
        chances = grown
    return chances


def _first_ball_clusters(size: int) -> tuple[tuple[frozenset[int], ...], list[float]]:
    """The leaves a first ball's cluster of ``size`` pins is, with running totals of their
    chances: a cluster drawn again while it is a split, up to :data:`CLUSTER_TRIES` times,
    then the 10 pin (what drawing clusters one by one gives, in one draw)."""
    chances = _cluster_chances(size)
    split = sum(chance for leave, chance in chances.items() if is_split(leave))
    kept = sorted((sorted(leave), chance) for leave, chance in chances.items()
                  if not is_split(leave))
    leaves = [frozenset(leave) for leave, _ in kept]
    weights = [chance / (1 - split) * (1 - split ** CLUSTER_TRIES) for _, chance in kept]
    if split > 0:
        leaves.append(frozenset({10}))
        weights.append(split ** CLUSTER_TRIES)
    return tuple(leaves), list(accumulate(weights))


_FIRST_BALL_CLUSTERS = {size: _first_ball_clusters(size) for size in range(1, 10)}


def first_ball_cluster(rng: random.Random, size: int) -> frozenset[int]:
    """A first ball's leave of ``size`` neighbouring pins that is no split: one draw from
    the exact chances of growing clusters (:func:`cluster`) until one is not a split."""
    leaves, totals = _FIRST_BALL_CLUSTERS[size]
    return leaves[bisect(totals, rng.random() * totals[-1])]


def random_split(rng: random.Random) -> frozenset[int]:
    """One of the splits of real lanes, as often as it happens."""
    return SPLIT_LEAVES[bisect(SPLIT_TOTALS, rng.random() * SPLIT_TOTALS[-1])]
