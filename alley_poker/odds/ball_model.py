"""How a bowler bowls, as a model: a skill, the game's form, and the rates and leaves that
follow from them (:mod:`alley_poker.odds.rates` has the curves, docs/odds.md their sources).

The scoreboard simulator (``drivers.simulator``) bowls with it, and the live odds
(:mod:`alley_poker.odds`) simulate the rest of a match with it; it lives in the pure domain so
both can use the one model (the domain imports nothing from ``drivers``).

A :class:`BowlerProfile` is built from an average (30-280) or learnt from a bowler's balls
(:mod:`alley_poker.odds.profiles`).  A simulation makes two calls: :meth:`~BowlerProfile.
for_game` once a game starts (it draws the game's *form*: real bowlers have good and bad
nights, so a game's skill is the bowler's skill plus a normal draw; for a bowler nobody knows
it first picks which of the centre's bowlers they are like), then :meth:`~BowlerProfile.ball`
for every ball of that game.  A first ball is a foul, a gutter (an outcome of its own), a
strike, a split or a cluster of neighbouring pins; a second ball at a leave clears it as
often as its kind of leave is cleared (single pins most, wide splits almost never).

>>> import random
>>> profile = BowlerProfile.for_average("ANN", 180)
>>> 0.3 < profile.strike_rate < 0.45, 0.55 < profile.spare_rate < 0.75
(True, True)
>>> rng = random.Random(7)
>>> game_profile = profile.for_game(rng)
>>> game_profile.for_game(rng) is game_profile  # the form is drawn once a game
True
>>> pins, leave, foul, gutter = game_profile.ball(frozenset(range(1, 11)), rng)
>>> pins + len(leave)
10
"""

from __future__ import annotations

import random
import threading
from bisect import bisect
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import accumulate

from alley_poker.bowling import Ball, Game
from alley_poker.odds.leaves import cluster, first_ball_cluster, random_split
from alley_poker.odds.rates import (
    DEFAULT_FOUL,
    NO_OFFSETS,
    Rates,
    frame_moments,
    rates_for,
    skill_for_average,
)

#: The averages a profile can be built for: a first-timer's to a very good league bowler's.
AVERAGES = (30, 280)
#: How much a bowler's skill varies from game to game (a normal's standard deviation, in
#: skill units: about 16 pins of average at 150, a game standard deviation of 28-29 pins with
#: the balls' own chance).  docs/odds.md, "Game-to-game variation".
FORM_SD = 0.07
#: A game's form is rounded to this many steps per unit of skill (0.002: about half a pin of
#: average, against a form's spread of 0.07): the rates of each step are worked out once
#: and shared by every game bowled in it, and the rounding adds a variance of 1/15,000 of
#: the form's (docs/odds.md, "Game-to-game variation").
FORM_GRID = 500
_LEAVE_SIZES = range(1, 10)


def handicap_for(average: int) -> int:
    """The common league handicap, 90% of (220 - average), never below 0."""
    return max(0, int(0.9 * (220 - average)))


@dataclass(frozen=True)
class BowlerProfile:
    """A simulated bowler: name, average, handicap per game, and the model behind them:
    ``skill`` (:mod:`~alley_poker.odds.rates`), how much it varies from game to game
    (``form_sd``), what the bowler's own balls moved (``offsets``, log-odds), and, for a
    bowler nobody knows, the centre's bowlers they may be (``members``)."""

    name: str
    average: int
    handicap: int
    skill: float
    form_sd: float = FORM_SD
    offsets: tuple[float, ...] = NO_OFFSETS
    foul_rate: float = DEFAULT_FOUL
    members: tuple[BowlerProfile, ...] = field(default=(), repr=False)
    #: The result of :meth:`for_game`: this game's form is drawn, drawing again keeps it.
    in_form: bool = False

    @classmethod
    def for_average(cls, name: str, average: int, *, handicap: int | None = None,
                    foul_rate: float = DEFAULT_FOUL, form_sd: float = FORM_SD,
                    offsets: tuple[float, ...] = NO_OFFSETS) -> BowlerProfile:
        """A bowler whose games average ``average`` (30-280) over their good and bad games.

        The handicap defaults to the common league formula, 90% of (220 - average).
        """
        low, high = AVERAGES
        if not low <= average <= high:
            raise ValueError(f"bowler {name!r}: average {average} is outside {low}-{high}")
        return cls(name=name, average=int(average),
                   handicap=handicap_for(average) if handicap is None else handicap,
                   skill=skill_for_average(float(average), form_sd, tuple(offsets), foul_rate),
                   form_sd=form_sd, offsets=tuple(offsets), foul_rate=foul_rate)

    @classmethod
    def mixture(cls, name: str, members: tuple[BowlerProfile, ...]) -> BowlerProfile:
        """A bowler who is one of ``members``, each as likely, nobody knows which: the
        centre's bowlers, for someone with no history."""
        if not members:
            raise ValueError(f"bowler {name!r}: a mixture needs at least one member")
        average = round(sum(m.average for m in members) / len(members))
        return cls(name=name, average=average, handicap=handicap_for(average),
                   skill=sum(m.skill for m in members) / len(members), form_sd=0.0,
                   members=tuple(members))

    # The two calls a simulation makes ---------------------------------------------------------

    def for_game(self, rng: random.Random) -> BowlerProfile:
        """The profile this bowler bowls one whole game with: which of the centre's bowlers
        they are (a mixture), then the game's form (skill plus a normal draw)."""
        if self.in_form:
            return self
        base, step = self._game_form(rng)
        forms = self._forms
        drawn = forms.get((id(base), step))
        if drawn is None:
            drawn = forms[id(base), step] = replace(
                base, name=self.name, average=self.average, handicap=self.handicap,
                skill=base.skill + step / FORM_GRID, form_sd=0.0, members=(), in_form=True)
        return drawn

    def _game_form(self, rng: random.Random) -> tuple[BowlerProfile, int]:
        """A game's draws: which member (a mixture), and its form's step on the grid."""
        base = rng.choice(self.members) if self.members else self
        step = round(rng.gauss(0.0, base.form_sd) * FORM_GRID) if base.form_sd > 0 else 0
        return base, step

    def game_rates(self, rng: random.Random) -> Rates:
        """The rates of the game ``for_game(rng)`` would return, from the very same draws,
        without making that profile: the compiled engine reads nothing else of a game's
        form, and a night's newcomers (mixtures of the centre's bowlers, learnt again after
        every ball) would otherwise keep a form object per member and step (half a million
        in a pool process at 100 lanes)."""
        if self.in_form:
            return self._rates
        base, step = self._game_form(rng)
        return rates_for(base.skill + step / FORM_GRID, base.offsets, base.foul_rate)

    def ball(self, standing: frozenset[int],
             rng: random.Random) -> tuple[int, frozenset[int], bool, bool]:
        """A ball at ``standing`` (all ten pins: a fresh rack):
        ``(pins knocked down, pins left standing, foul, gutter)``.

        Called on a profile whose game's form is not drawn, it bowls at the bowler's usual
        form (a mixture: as a member picked for this ball alone).
        """
        if self.members:
            return rng.choice(self.members).ball(standing, rng)
        rates = self._rates
        roll = rng.random()
        if roll < rates.foul:
            # The ball crossed the line: pins it hit are respotted, 0 credited.
            return 0, standing, True, False
        if len(standing) == 10:
            if roll < rates.foul + rates.gutter:
                return 0, standing, False, True
            if roll < rates.foul + rates.gutter + rates.strike:
                return 10, frozenset(), False, False
            leave = self._first_leave(rng)
            return 10 - len(leave), leave, False, False
        if roll < rates.foul + rates.gutter2:
            return 0, standing, False, True
        leave = self.second_ball_leave(rng, standing)
        return len(standing) - len(leave), leave, False, False

    # Rates at the bowler's usual form ---------------------------------------------------------

    @cached_property
    def _rates(self) -> Rates:
        return rates_for(self.skill, self.offsets, self.foul_rate)

    @cached_property
    def _forms(self) -> dict[tuple[int, int], BowlerProfile]:
        """The games' forms drawn so far, by member and step (:meth:`for_game`): a profile
        lives for a state's runs, which draw the same few hundred forms thousands of times.
        Keyed by the member's id: the members are this profile's own, kept as long as it."""
        return {}

    @cached_property
    def _moments(self) -> tuple[float, float, float, float]:
        if self.members:
            moments = [m._moments for m in self.members]
            return tuple(sum(col) / len(moments) for col in zip(*moments, strict=True))
        return frame_moments(self._rates)

    @property
    def strike_rate(self) -> float:
        """Strikes per first ball at a full rack."""
        return self._moments[0]

    @property
    def spare_rate(self) -> float:
        """Spares per frame without a strike."""
        strike, _, _, spare = self._moments
        return spare / (1 - strike)

    @property
    def gutter_rate(self) -> float:
        """Gutter balls per first ball."""
        if self.members:
            return sum(m.gutter_rate for m in self.members) / len(self.members)
        return self._rates.gutter

    @property
    def split_rate(self) -> float:
        """Splits per first ball that neither strikes nor gutters."""
        if self.members:
            return sum(m.split_rate for m in self.members) / len(self.members)
        return self._rates.split

    # Pins left by a ball ----------------------------------------------------------------------

    def _first_leave(self, rng: random.Random) -> frozenset[int]:
        rates = self._rates
        if rng.random() < rates.split:
            return random_split(rng)
        size = _LEAVE_SIZES[bisect(rates.leave_totals, rng.random() * rates.leave_totals[-1])]
        return first_ball_cluster(rng, size)

    def second_ball_leave(self, rng: random.Random, standing: frozenset[int]) -> frozenset[int]:
        """The pins a ball at ``standing`` (not a full rack) leaves; never a gutter."""
        if rng.random() < self.conversion_rate(standing):
            return frozenset()
        # 0 to all-but-one pins down, a clean miss half as likely as each count; which of
        # the pins stay up is any choice of that many, each as likely.
        totals = _MISS_TOTALS[len(standing)]
        falling = bisect(totals, rng.random() * totals[-1])
        return frozenset(rng.sample(sorted(standing), len(standing) - falling))

    def conversion_rate(self, standing: frozenset[int]) -> float:
        """How often this bowler clears ``standing``: single pins most, wide splits near
        never."""
        if self.members:
            return sum(m.conversion_rate(standing) for m in self.members) / len(self.members)
        return self._rates.cleared(standing)


_MISS_TOTALS = {n: list(accumulate([1] + [2] * (n - 1))) for n in range(1, 11)}


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
    ``(pins, pins left standing, foul, gutter)``.

    A caller that never calls ``for_game`` itself (the scoreboard simulator) still bowls
    each game in a form of its own: the form drawn for ``game`` is kept with it.
    """
    standing = game.standing_pins
    if standing is None:
        standing = cluster(rng, game.standing_count)
    return _game_form(profile, game, rng).ball(frozenset(standing), rng)


#: The form drawn for each game being bowled, by the game object's id (the entry holds the
#: game, so its id is not reused while it is kept); the oldest are forgotten.
_GAME_FORMS: dict[int, tuple[Game, BowlerProfile, BowlerProfile]] = {}
_GAME_FORMS_KEPT = 512  # a run has at most 80 games (8 bowlers, 10 games) in play
_GAME_FORMS_LOCK = threading.Lock()


def _game_form(profile: BowlerProfile, game: Game, rng: random.Random) -> BowlerProfile:
    if profile.in_form or (profile.form_sd <= 0 and not profile.members):
        return profile
    entry = _GAME_FORMS.get(id(game))
    if entry is not None and entry[0] is game and entry[1] is profile:
        return entry[2]
    drawn = profile.for_game(rng)
    with _GAME_FORMS_LOCK:
        while len(_GAME_FORMS) >= _GAME_FORMS_KEPT:
            del _GAME_FORMS[next(iter(_GAME_FORMS))]
        _GAME_FORMS[id(game)] = (game, profile, drawn)
    return drawn
