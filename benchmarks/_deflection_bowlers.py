"""A second bowler generator, for judging the ball model on balls it did not make.

It shares nothing with :mod:`alley_poker.odds.ball_model` but the pin numbers: a ball here is
a line through the pin deck, aimed at the pocket (or at the leave) and missed by a heavy-
tailed error; each pin the ball touches flies off along the line of centres and knocks
down the pins in its path, which knock down others, and pins that reach the side boards
may kick back.  Skill is accuracy, entry angle and speed; a game has a form of its own (a
good or bad night) and a bowler's aim drifts from ball to ball, with hot and cold spells
(streaky games).  Beginners spray the ball: their gutters come from the tails of the
error, not from a gutter rate.  Nothing here is fitted to the ball model, and the ball model
is never fitted to it.

>>> import random
>>> rng = random.Random(4)
>>> bowler = DeflectionBowler.of_skill("ANN", 0.6).for_game(rng)
>>> pins, leave, foul, gutter = bowler.ball(frozenset(range(1, 11)), rng)
>>> pins + len(leave), foul
(10, False)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

#: Pin centres in inches: x across the lane (0 under the head pin), y down the deck.
_ROW = 10.392  # 12 in between pins, in a triangle
PIN_AT: dict[int, tuple[float, float]] = {
    1: (0.0, 0.0), 2: (-6.0, _ROW), 3: (6.0, _ROW), 4: (-12.0, 2 * _ROW), 5: (0.0, 2 * _ROW),
    6: (12.0, 2 * _ROW), 7: (-18.0, 3 * _ROW), 8: (-6.0, 3 * _ROW), 9: (6.0, 3 * _ROW),
    10: (18.0, 3 * _ROW),
}
_BALL_HITS = (8.5 + 4.77) / 2   # centre distance at which the ball touches a pin
_PIN_HITS = 4.77                # centre distance at which two pins touch
_HALF_LANE = 20.75              # the lane's half width: past it the ball is in the channel
_KICKBACK = 0.45                # a pin reaching the side board comes back this often


@dataclass
class DeflectionBowler:
    """One bowler of the generator.  ``aim_sd``: inches of error at the pins (Student-t, 3
    degrees of freedom: heavy tails); ``angle``: entry angle toward the pocket (radians);
    ``speed``: how hard pins are sent (0-1); ``drift``: inches the aim wanders per ball;
    ``form_sd``: the spread of a game's accuracy (log scale)."""

    name: str
    aim_sd: float
    angle: float
    speed: float
    drift: float
    form_sd: float
    streak: float  # chance per ball of switching between a hot and a cold spell
    # The state of one game (for_game sets it).
    _offset: float = 0.0
    _factor: float = 1.0
    _cold: bool = False

    @classmethod
    def of_skill(cls, name: str, skill: float) -> DeflectionBowler:
        """A bowler of ``skill`` -0.3 (a first-timer, averages about 30) to 1.1 (about
        280)."""
        u = min(1.1, max(-0.3, skill))
        # Past 1 the error is already small: what is left to gain is consistency.
        steady = 1.0 if u <= 1 else max(0.0, (1.1 - u) / 0.1)
        return cls(name=name, aim_sd=0.3 + 42.0 * max(0.0, 1 - u) ** 1.8,
                   angle=0.04 + 0.06 * min(u, 1.0), speed=max(0.12, 0.2 + min(u, 1.0)),
                   drift=0.05 + steady * (0.1 + 2.8 * max(0.0, 1 - u)),
                   form_sd=0.03 + steady * (0.09 + 0.18 * max(0.0, 1 - u)),
                   streak=0.03 * steady)

    def for_game(self, rng: random.Random) -> DeflectionBowler:
        """This game's bowler: a form of its own, the aim starting where it starts."""
        return DeflectionBowler(self.name, self.aim_sd, self.angle, self.speed, self.drift,
                                self.form_sd, self.streak,
                                _offset=rng.gauss(0.0, self.drift),
                                _factor=math.exp(rng.gauss(0.0, self.form_sd)),
                                _cold=rng.random() < 10 * self.streak)

    def ball(self, standing: frozenset[int],
             rng: random.Random) -> tuple[int, frozenset[int], bool, bool]:
        """``(pins down, pins left standing, foul, gutter)`` of a ball at ``standing``."""
        self._offset = 0.7 * self._offset + rng.gauss(0.0, self.drift)
        if rng.random() < self.streak:
            self._cold = not self._cold
        if rng.random() < 0.003:
            return 0, standing, True, False
        spread = self.aim_sd * self._factor * (1.5 if self._cold else 0.85)
        if len(standing) == 10:
            target, slope = 3.2, -self.angle  # the pocket, between the 1 and the 3
        else:
            xs = [PIN_AT[p][0] for p in standing]
            target = (min(xs) + max(xs)) / 2
            slope = -self.angle if target >= 0 else self.angle
        x0 = target + self._offset + spread * _student_t3(rng)
        if abs(x0) > _HALF_LANE - 1.0:
            return 0, standing, False, True
        down = _knock(standing, x0, slope, self.speed, rng)
        leave = standing - down
        return len(down), frozenset(leave), False, False


def _student_t3(rng: random.Random) -> float:
    """A Student-t draw with 3 degrees of freedom, scaled to unit variance."""
    z = rng.gauss(0.0, 1.0)
    chi2 = sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3))
    return z / math.sqrt(chi2 / 3) / math.sqrt(3.0)


def _knock(standing: frozenset[int], x0: float, slope: float, speed: float,
           rng: random.Random) -> set[int]:
    """The pins a ball entering at ``x0`` (at the head pin's row) knocks down."""
    up = set(standing)
    down: set[int] = set()
    flying: list[tuple[float, float, float, float, float]] = []  # x, y, dx, dy, energy
    x_ball, energy = x0, speed
    for pin in sorted(up, key=lambda p: PIN_AT[p][1]):
        px, py = PIN_AT[pin]
        bx = x_ball + slope * py
        gap = px - bx
        if pin in up and abs(gap) < _BALL_HITS and energy > 0.05:
            up.discard(pin)
            down.add(pin)
            along = math.sqrt(max(_BALL_HITS ** 2 - gap ** 2, 0.0))
            heading = math.atan2(gap, along) + rng.gauss(0.0, 0.2)
            flying.append((px, py, math.sin(heading), math.cos(heading),
                           energy * (0.5 + 0.5 * along / _BALL_HITS)))
            # The ball is pushed away from the pin it hit and loses some of its drive.
            x_ball -= math.copysign(1.0, gap) * (1.2 - speed) * 2.0 * (1 - along / _BALL_HITS)
            energy *= 0.85
    while flying:
        x, y, dx, dy, e = flying.pop()
        reach = 14.0 + 40.0 * e
        best = None
        for other in up:
            ox, oy = PIN_AT[other]
            rx, ry = ox - x, oy - y
            along = rx * dx + ry * dy
            across = abs(rx * dy - ry * dx)
            if 0 < along < reach and across < _PIN_HITS and (best is None or along < best[0]):
                best = (along, other, across)
        if best is not None:
            along, other, across = best
            up.discard(other)
            down.add(other)
            ox, oy = PIN_AT[other]
            heading = math.atan2(dx, dy) + math.copysign(
                math.asin(min(1.0, across / _PIN_HITS)), rng.random() - 0.5) * 0.8
            flying.append((ox, oy, math.sin(heading), math.cos(heading), e * 0.6))
            if e > 0.25:  # a hard-hit pin carries on past the one it hit
                flying.append((ox, oy, dx, dy, e * 0.3))
        elif abs(dx) > 0.3 and e > 0.2 and rng.random() < _KICKBACK:
            # Off the side board and back across the deck, low.
            side = math.copysign(_HALF_LANE, dx)
            flying.append((side, max(y, 2.5 * _ROW), -dx, abs(dy) * 0.5, e * 0.5))
    return down
