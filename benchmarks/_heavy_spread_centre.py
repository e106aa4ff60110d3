"""A third bowler generator, for research only: the second generator's pin-by-pin bowlers
(:mod:`benchmarks._deflection_bowlers`) with a heavier spread than the odds' model assumes,
between bowlers and from game to game.  The self-correcting odds are judged on it
(``python -m benchmarks.odds_correction --generator heavy``; docs/odds.md, "Self-correcting
odds").

- **Game to game**: each game's accuracy factor is drawn with :data:`FORM_SPREAD` times the
  second generator's spread, and a game starts cold twice as often: a bowler's games
  spread far more around their average than the model's form (``FORM_SD``) gives.
- **Bowler to bowler**: more first-timers and more strong league bowlers, fewer in the
  middle: the centre's bowlers (and its one-time visitors) are further apart.

>>> import random
>>> bowlers = heavy_population(random.Random(1), 12)
>>> len(bowlers), isinstance(bowlers[0], HeavySpreadBowler)
(12, True)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from benchmarks._deflection_bowlers import DeflectionBowler
from benchmarks._generated_centre import population

#: How much wider a game's form is than the second generator's (its log-normal factor on
#: the aim's error).
FORM_SPREAD = 2.5


@dataclass
class HeavySpreadBowler(DeflectionBowler):
    """A deflection bowler whose games differ more."""

    def for_game(self, rng: random.Random) -> HeavySpreadBowler:
        return HeavySpreadBowler(self.name, self.aim_sd, self.angle, self.speed, self.drift,
                                 self.form_sd, self.streak,
                                 _offset=rng.gauss(0.0, self.drift),
                                 _factor=math.exp(rng.gauss(0.0, FORM_SPREAD * self.form_sd)),
                                 _cold=rng.random() < 20 * self.streak)


#: Two fifths first-timers and beginners (averages about 30-100), a fifth recreational, the
#: rest strong league bowlers (about 200-280): (share, lowest skill, highest skill).
HEAVY_KINDS = ((0.4, -0.3, 0.3), (0.2, 0.3, 0.7), (0.4, 0.8, 1.1))


def heavy_population(rng: random.Random, count: int) -> list[HeavySpreadBowler]:
    """``count`` bowlers of :data:`HEAVY_KINDS`, whose games differ more."""
    return [HeavySpreadBowler(b.name, b.aim_sd, b.angle, b.speed, b.drift, b.form_sd, b.streak)
            for b in population(rng, count, HEAVY_KINDS)]
