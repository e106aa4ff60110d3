"""How a bowler bowls, as a model: an average, and the rates and leaves that produce it.

The scoreboard simulator (``drivers.simulator``) bowls with it, and the live odds
(:mod:`alley_poker.odds`) simulate the rest of a match with it; it lives in the pure domain so
both can use the one model (the domain imports nothing from ``drivers``).

A :class:`BowlerProfile` is built from an average (100-240); its strike, spare-conversion,
split, gutter and foul rates follow the curves league statistics show (a 200 bowler strikes
about 45% of first balls and converts about 80% of makeable spares; a 130 bowler strikes
about 12% and converts about 40%).  Leaves are real pin sets: a first ball that does not
strike leaves a cluster of neighbouring pins, or one of the splits that happen on real
lanes (7-10, 4-6, 5-7, 3-10, the big four, ...), weighted by how often they happen.

>>> import random
>>> profile = BowlerProfile.for_average("ANN", 180)
>>> 0.3 < profile.strike_rate < 0.4, 0.6 < profile.spare_rate < 0.75
(True, True)
>>> rng = random.Random(7)
>>> leave = profile.first_ball_leave(rng)
>>> leave <= set(range(1, 11))
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

from alley_poker.bowling import PINS, Ball, Game, is_split

#: Pins that touch on the deck (diagonal neighbours), so a leave grows as real leaves do.
_NEIGHBOURS: dict[int, tuple[int, ...]] = {
    1: (2, 3), 2: (1, 4, 5), 3: (1, 5, 6), 4: (2, 7, 8), 5: (2, 3, 8, 9),
    6: (3, 9, 10), 7: (4,), 8: (4, 5), 9: (5, 6), 10: (6,),
}
#: Where a leave starts, weighted: corner pins and the pocket's leftovers are left most.
_LEAVE_SEEDS = ((10, 30), (7, 14), (4, 10), (6, 12), (2, 8), (5, 8), (3, 6), (8, 5), (9, 5),
                (1, 2))
#: Splits as they happen on real lanes, weighted by frequency.
_SPLITS: tuple[tuple[frozenset[int], int], ...] = tuple(
    (frozenset(pins), weight) for pins, weight in (
        ((7, 10), 8), ((4, 6), 5), ((5, 7), 6), ((5, 10), 6), ((3, 10), 9), ((2, 7), 9),
        ((4, 7, 10), 4), ((6, 7, 10), 4), ((4, 6, 7, 10), 3), ((8, 10), 5), ((7, 9), 5),
        ((4, 9), 4), ((6, 8), 4), ((4, 10), 4), ((6, 7), 4), ((4, 6, 7), 2), ((4, 6, 10), 2),
        ((2, 10), 2), ((3, 7), 2), ((5, 7, 10), 2), ((7, 8), 1), ((9, 10), 1),
        ((2, 4, 6, 7, 10), 1),
    )
)
#: Splits a good bowler converts now and then; the rest are near-impossible.
# The weights above as running totals, worked out once: ``random.choices`` given these draws
# exactly what it draws from the weights (one ``random()`` a pick), without re-adding them on
# every ball of a simulation.
_SEED_PINS = tuple(pin for pin, _ in _LEAVE_SEEDS)
_SEED_TOTALS = list(accumulate(weight for _, weight in _LEAVE_SEEDS))
_SPLIT_LEAVES = tuple(leave for leave, _ in _SPLITS)
_SPLIT_TOTALS = list(accumulate(weight for _, weight in _SPLITS))
_LEAVE_SIZES = range(1, 8)
_BABY_SPLITS = {frozenset({3, 10}), frozenset({2, 7}), frozenset({5, 7}), frozenset({5, 10}),
                frozenset({7, 8}), frozenset({9, 10})}


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


@dataclass(frozen=True)
class BowlerProfile:
    """A simulated bowler: name, average, handicap per game and the rates behind them."""

    name: str
    average: int
    handicap: int
    strike_rate: float
    spare_rate: float
    split_rate: float
    gutter_rate: float
    foul_rate: float

    @classmethod
    def for_average(cls, name: str, average: int, *, handicap: int | None = None,
                    foul_rate: float = 0.004) -> BowlerProfile:
        """Rates calibrated so games average close to ``average`` (100-240).

        The handicap defaults to the common league formula, 90% of (220 - average).
        """
        if not 100 <= average <= 240:
            raise ValueError(f"bowler {name!r}: average {average} is outside 100-240")
        skill = (average - 100) / 140  # 0 at 100, 1 at 240
        return cls(
            name=name,
            average=average,
            handicap=max(0, int(0.9 * (220 - average))) if handicap is None else handicap,
            strike_rate=_clamp(0.07 + 0.56 * skill ** 1.15, 0.02, 0.75),
            spare_rate=_clamp(0.3 + 0.66 * skill, 0.1, 0.95),
            split_rate=_clamp(0.11 - 0.06 * skill, 0.04, 0.12),
            gutter_rate=_clamp(0.06 * (1 - skill) ** 2, 0.0, 0.08),
            foul_rate=foul_rate,
        )

    # The two calls a simulation makes ---------------------------------------------------------

    def for_game(self, rng: random.Random) -> BowlerProfile:
        """The profile this bowler bowls one whole game with.

        Real bowlers have good and bad games; a model with game-to-game variation draws the
        game's form here, once a game, so a simulation calls this when a game starts and
        ``ball`` for every ball of it.  This model has none: every game is the same.
        """
        return self

    def ball(self, standing: frozenset[int],
             rng: random.Random) -> tuple[int, frozenset[int], bool, bool]:
        """A ball at ``standing`` (all ten pins: a fresh rack):
        ``(pins knocked down, pins left standing, foul, gutter)``."""
        roll = rng.random()
        if roll < self.foul_rate:
            # The ball crossed the line: pins it hit are respotted, 0 credited.
            return 0, standing, True, False
        gutter_rate = self.gutter_rate if len(standing) == 10 else self.gutter_rate / 2
        if roll < self.foul_rate + gutter_rate:
            return 0, standing, False, True
        if len(standing) == 10:
            leave = self.first_ball_leave(rng)
        else:
            leave = self.second_ball_leave(rng, standing)
        return len(standing) - len(leave), leave, False, False

    # Pins left by a ball --------------------------------------------------------------------

    def first_ball_leave(self, rng: random.Random) -> frozenset[int]:
        """The pins a first ball at a full rack leaves (empty for a strike); never a gutter."""
        if rng.random() < self.strike_rate:
            return frozenset()
        if rng.random() < self.split_rate / (1 - self.strike_rate):
            return rng.choices(_SPLIT_LEAVES, cum_weights=_SPLIT_TOTALS)[0]
        size = rng.choices(_LEAVE_SIZES, cum_weights=self._leave_size_totals)[0]
        for _ in range(20):
            leave = _cluster(rng, size)
            if not is_split(leave):
                return leave
        return frozenset({10})

    @cached_property
    def _leave_size_totals(self) -> list[float]:
        return list(accumulate(self._leave_size_weights()))

    def _leave_size_weights(self) -> Sequence[float]:
        skill = (self.average - 100) / 140
        return (34 + 16 * skill, 26, 15 - 4 * skill, 9 - 4 * skill, 5 - 3 * skill,
                3 - 2 * skill, 2 - 1.5 * skill)

    def second_ball_leave(self, rng: random.Random, standing: frozenset[int]) -> frozenset[int]:
        """The pins a ball at ``standing`` (not a full rack) leaves; never a gutter."""
        if rng.random() < self.conversion_rate(standing):
            return frozenset()
        pins = sorted(standing)
        rng.shuffle(pins)
        falling = rng.choices(range(len(pins)), weights=[1] + [2] * (len(pins) - 1))[0]
        return frozenset(pins[falling:])

    def conversion_rate(self, standing: frozenset[int]) -> float:
        """How often this bowler clears ``standing``: singles easy, wide splits near never."""
        if len(standing) == 1:
            return _clamp(self.spare_rate + 0.12, 0.2, 0.98)
        if is_split(standing):
            if standing in _BABY_SPLITS:
                return self.spare_rate * 0.5
            return 0.01 if standing == frozenset({7, 10}) else self.spare_rate * 0.08
        return _clamp(self.spare_rate - 0.05 * (len(standing) - 2), 0.05, 0.95)


def _cluster(rng: random.Random, size: int) -> frozenset[int]:
    leave = {rng.choices(_SEED_PINS, cum_weights=_SEED_TOTALS)[0]}
    while len(leave) < size:
        frontier = sorted({n for pin in leave for n in _NEIGHBOURS[pin]} - leave)
        if not frontier:
            frontier = sorted(PINS - leave)
        leave.add(rng.choice(frontier))
    return frozenset(leave)


def bowl_ball(profile: BowlerProfile, game: Game, rng: random.Random) -> Ball:
    """Bowl the next ball of ``game`` as ``profile`` would, and roll it into the game.

    When the scoring system never said which pins stood (only how many), the model picks a
    leave of that many pins, so a game recorded from a count-only feed can be played on.

    >>> game = Game()
    >>> ball = bowl_ball(BowlerProfile.for_average("ANN", 180), game, random.Random(3))
    >>> ball.frame, 0 <= ball.pins <= 10, len(game.balls)
    (1, True, 1)
    """
    pins, leave, foul, gutter = next_ball(profile, game, rng)
    return game.roll(pins, standing=leave, foul=foul, gutter=gutter)


def next_ball(profile: BowlerProfile, game: Game,
              rng: random.Random) -> tuple[int, frozenset[int], bool, bool]:
    """The next ball of ``game`` as ``profile`` would bowl it, not rolled into the game:
    ``(pins, pins left standing, foul, gutter)``."""
    standing = game.standing_pins
    if standing is None:
        standing = _cluster(rng, game.standing_count)
    return profile.ball(frozenset(standing), rng)
