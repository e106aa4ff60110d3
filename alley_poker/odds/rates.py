"""What a bowler of a given skill does with a ball: the curves behind the ball model.

A bowler's *skill* is one number (about 0 for a first-timer who averages 30, about 1 for a
bowler who averages 280); every rate is a straight line in skill on the log-odds scale,
moved by the bowler's own *offsets* (what their balls say about them beyond their skill,
:mod:`alley_poker.odds.profiles`).  The lines are drawn through what bowling's published
statistics say (docs/odds.md, "The ball model"):

- **strike** (a full rack cleared by the first ball): about 1-3 % of a first-timer's first
  balls, 10 % of a 100 bowler's, 24 % of a 150's, 47 % of a 200's, 75 % at 250;
- **gutter** (the ball in the channel, no pin down) is an outcome of its own, not a small
  pinfall: a third to two thirds of a first-timer's first balls, 13 % at a 100 average,
  4 % at 150, 1-2 % at 200; a second ball gutters about 0.7 times as often;
- **leave size** (pins left by a first ball that neither strikes nor gutters) is
  1 + a beta-binomial of the 8 other pins: five to six and a half pins for a first-timer,
  three at 100, one and a half at 200;
- **split** share of those leaves: 12-14 % for a first-timer, 5-6 % for a good bowler;
- **conversion** by leave: a single pin from 10 % (first-timer) through 47 % (100),
  72 % (150) and 88 % (200) to 96 % (250); each further pin of a cluster
  takes off 0.7 on the log-odds scale; a baby split (3-10, 2-7, 5-7, ...) 2.5, a wide
  split (7-10, 4-6, big four, ...) 5.

:func:`expected_score` is a game's expected score under these rates, worked out exactly (no
simulation: frames are independent once the game's form is drawn), which is how an
average is turned into a skill (:func:`skill_for_average`).

>>> round(expected_score(Rates(skill_for_average(150))), 1)
150.0
>>> r = Rates(skill_for_average(100))
>>> 0.08 < r.strike < 0.14, 0.1 < r.gutter < 0.17
(True, True)
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import accumulate

from alley_poker.bowling import is_split
from alley_poker.odds.leaves import SPLIT_CLASS, SPLITS

#: The rates a bowler's own balls can move, in the order of a profile's ``offsets``.
OFFSET_NAMES = ("strike", "gutter", "leave", "split", "single", "multi")
NO_OFFSETS = (0.0,) * len(OFFSET_NAMES)

# The lines: log-odds = intercept + slope * skill.
_STRIKE = (-3.5, 5.0)
_GUTTER = (-0.5, -5.5)
_LEAVE = (0.0, -4.0)
_SPLIT = (-2.0, -1.0)
_SINGLE = (-1.4, 5.0)
#: Log-odds taken off a single pin's conversion for each further pin of a cluster, and for
#: a baby and a wide split.
_PER_PIN, _BABY, _WIDE = 0.7, 2.5, 5.0
#: A second ball gutters this many times as often as a first ball.
SECOND_GUTTER = 0.7
#: How spread the leave size is (the beta-binomial's concentration): lower is wider.
_LEAVE_SPREAD = 6.0
#: The 7-10 is picked up about once in a hundred tries even by good bowlers.
_SEVEN_TEN_CAP = 0.012
DEFAULT_FOUL = 0.004


def expit(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def _line(line: tuple[float, float], skill: float, offset: float) -> float:
    return line[0] + line[1] * skill + offset


def _beta_binomial(n: int, p: float, spread: float) -> list[float]:
    """P(k) for k = 0..n of a beta-binomial with mean ``p`` and concentration ``spread``."""
    a, b = max(p * spread, 1e-6), max((1 - p) * spread, 1e-6)
    log_beta_ab = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    weights = [math.comb(n, k) * math.exp(math.lgamma(k + a) + math.lgamma(n - k + b)
                                          - math.lgamma(n + a + b) - log_beta_ab)
               for k in range(n + 1)]
    total = sum(weights)
    return [w / total for w in weights]


class Rates:
    """Every rate of one bowler in one game's form: ``skill`` plus the bowler's offsets."""

    __slots__ = ("_cleared", "foul", "gutter", "gutter2", "leave_p", "leave_sizes",
                 "leave_totals", "multi", "single", "skill", "split", "strike")

    def __init__(self, skill: float, offsets: tuple[float, ...] = NO_OFFSETS,
                 foul: float = DEFAULT_FOUL):
        o_strike, o_gutter, o_leave, o_split, o_single, o_multi = offsets
        self.skill = skill
        self.foul = foul
        self.strike = expit(_line(_STRIKE, skill, o_strike))
        self.gutter = expit(_line(_GUTTER, skill, o_gutter))
        if self.strike + self.gutter + foul > 0.995:  # a ball must be able to leave pins
            scale = 0.995 / (self.strike + self.gutter + foul)
            self.strike, self.gutter = self.strike * scale, self.gutter * scale
        self.gutter2 = SECOND_GUTTER * self.gutter
        self.leave_p = expit(_line(_LEAVE, skill, o_leave))
        self.leave_sizes = _beta_binomial(8, self.leave_p, _LEAVE_SPREAD)  # leave of 1 + k
        self.leave_totals = list(accumulate(self.leave_sizes))
        self.split = expit(_line(_SPLIT, skill, o_split))
        self.single = _line(_SINGLE, skill, o_single)  # log-odds
        self.multi = o_multi
        self._cleared: dict[frozenset[int], float] = {}

    def cleared(self, standing: frozenset[int]) -> float:
        """:meth:`conversion` of ``standing`` with its split class, worked out once per
        leave (a simulation meets the same few dozen leaves thousands of times)."""
        chance = self._cleared.get(standing)
        if chance is None:
            split = SPLIT_CLASS.get(standing)
            if split is None and len(standing) > 1 and is_split(standing):
                split = "wide"
            chance = self._cleared[standing] = self.conversion(standing, split)
        return chance

    def conversion(self, standing: frozenset[int], split: str | None) -> float:
        """How often a ball at ``standing`` (not a full rack) clears it, past foul and gutter;
        ``split`` is its class (``"baby"``, ``"wide"``) when the leave is a split."""
        return self.conversion_of(len(standing), split, standing == _SEVEN_TEN)

    def conversion_of(self, size: int, split: str | None, seven_ten: bool = False) -> float:
        if split is None:
            if size == 1:
                return expit(self.single)
            return expit(self.single + self.multi - _PER_PIN * (size - 1))
        value = expit(self.single + self.multi - (_BABY if split == "baby" else _WIDE))
        return min(value, _SEVEN_TEN_CAP) if seven_ten else value


_SEVEN_TEN = frozenset({7, 10})


def partial_pins(size: int) -> float:
    """Expected pins a second ball at ``size`` pins takes when it neither clears them nor
    gutters: 0 to ``size - 1``, the no-pin miss half as likely as each count."""
    return size * (size - 1) / (2 * size - 1)


def _second_ball(rates: Rates, size: int, split: str | None,
                 seven_ten: bool = False) -> tuple[float, float]:
    """(expected pins, chance of clearing) of a second ball at a leave."""
    hit = 1 - rates.foul - rates.gutter2
    clear = rates.conversion_of(size, split, seven_ten)
    return hit * (clear * size + (1 - clear) * partial_pins(size)), hit * clear


def frame_moments(rates: Rates) -> tuple[float, float, float, float]:
    """(P strike, expected first-ball pins, expected second-ball pins after no strike (0
    when a second ball is not thrown: it always is), P spare) of a frame."""
    k = rates.strike
    miss = rates.foul + rates.gutter  # 0 pins, a full rack for the second ball
    leave = 1 - k - miss
    first = 10 * k
    sizes = rates.leave_sizes
    second = spare = 0.0
    # A cluster of 1 + j pins, or a split.
    for j, pj in enumerate(sizes):
        size = 1 + j
        first += leave * (1 - rates.split) * pj * (10 - size)
        pins, conv = _second_ball(rates, size, None)
        second += leave * (1 - rates.split) * pj * pins
        spare += leave * (1 - rates.split) * pj * conv
    total = sum(weight for _, weight in SPLITS)
    for split_leave, weight in SPLITS:
        share = leave * rates.split * weight / total
        size = len(split_leave)
        first += share * (10 - size)
        pins, conv = _second_ball(rates, size, SPLIT_CLASS[split_leave],
                                  split_leave == _SEVEN_TEN)
        second += share * pins
        spare += share * conv
    # After a gutter or a foul the second ball faces ten pins: a first ball's chances, a
    # "strike" then being a spare.
    second += miss * first
    spare += miss * k
    return k, first, second, spare


def expected_score(rates: Rates) -> float:
    """A game's expected score with these rates in every frame (exact: the tenth frame's
    fill balls are the bonus balls of its mark)."""
    k, first, second, spare = frame_moments(rates)
    # A strike's bonus: the next first ball, then the ball after it (a fresh rack's first
    # ball after another strike, else that frame's second ball).
    strike_bonus = first + k * first + second
    return 10 * (first + second + k * strike_bonus + spare * first)


def _mean_over_form(skill: float, form_sd: float, offsets: tuple[float, ...],
                    foul: float) -> float:
    """Expected score averaged over the game's form (skill ± ``form_sd``, normal): the
    three-point Gauss-Hermite rule, exact for the cubic part of the curve."""
    if form_sd <= 0:
        return expected_score(Rates(skill, offsets, foul))
    step = math.sqrt(3) * form_sd
    return (expected_score(Rates(skill - step, offsets, foul)) / 6
            + expected_score(Rates(skill, offsets, foul)) * 2 / 3
            + expected_score(Rates(skill + step, offsets, foul)) / 6)


@lru_cache(maxsize=16_384)
def rates_for(skill: float, offsets: tuple[float, ...] = NO_OFFSETS,
              foul: float = DEFAULT_FOUL) -> Rates:
    """The :class:`Rates` of a skill, made once: a game's form is drawn on a grid of
    skills (:data:`alley_poker.odds.ball_model.FORM_GRID`), so a night's games share them.
    The rates are never changed once made."""
    return Rates(skill, offsets, foul)


@lru_cache(maxsize=4096)
def skill_for_average(average: float, form_sd: float = 0.0,
                      offsets: tuple[float, ...] = NO_OFFSETS,
                      foul: float = DEFAULT_FOUL) -> float:
    """The skill whose games average ``average`` (over the game's form): the root of a
    smooth, rising curve, found by regula falsi with the Illinois step (a handful of the
    curve's evaluations where bisection took forty; learning a centre calls this for every
    bowler), to within a millionth of a skill (a thousandth of a pin)."""
    low, high = -1.5, 2.5
    f_low = _mean_over_form(low, form_sd, offsets, foul) - average
    f_high = _mean_over_form(high, form_sd, offsets, foul) - average
    if f_low >= 0:
        return low
    if f_high <= 0:
        return high
    side = 0
    for _ in range(100):
        middle = (low * f_high - high * f_low) / (f_high - f_low)
        f_middle = _mean_over_form(middle, form_sd, offsets, foul) - average
        if f_middle < 0:
            low, f_low = middle, f_middle
            if side == -1:
                f_high /= 2  # the same end twice: halve the other's weight (Illinois)
            side = -1
        else:
            high, f_high = middle, f_middle
            if side == 1:
                f_low /= 2
            side = 1
        if high - low < 1e-6 or abs(f_middle) < 1e-6:
            return middle
    return (low + high) / 2


def average_for(skill: float, form_sd: float = 0.0, offsets: tuple[float, ...] = NO_OFFSETS,
                foul: float = DEFAULT_FOUL) -> float:
    """The average a bowler of ``skill`` and ``offsets`` bowls (over the game's form)."""
    return _mean_over_form(skill, form_sd, offsets, foul)
