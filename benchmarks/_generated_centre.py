"""A centre of bowlers from the second generator (:mod:`benchmarks._deflection_bowlers`):
regulars who come back night after night, one-time visitors, beginners who gutter a third of
their balls and league bowlers who average 250, bowling Bowling Poker matches through the
ledger.  The calibration harness judges the odds on its matches (docs/odds.md).

>>> matches = generated_matches(seed=1, nights=2, bowlers=8)
>>> len({m.date for m in matches}), all(m.events[-1].type for m in matches)
(2, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta

from alley_poker.ledger import commands as c
from alley_poker.ledger import handle
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.odds.calibration import PlayedMatch
from benchmarks._deflection_bowlers import DeflectionBowler
from benchmarks._practice_match import PracticeMatch

_FIRST_NIGHT = date(2026, 1, 6)


#: The second generator's centre: (share of the bowlers, lowest skill, highest skill).
KINDS = ((0.33, -0.3, 0.4), (0.40, 0.3, 0.75), (0.27, 0.65, 1.1))


def population(rng: random.Random, count: int,
               kinds: tuple[tuple[float, float, float], ...] = KINDS
               ) -> list[DeflectionBowler]:
    """``count`` bowlers: a third beginners (averages about 30-110), two fifths
    recreational (90-180), the rest league bowlers (160-280); or ``kinds`` of them."""
    bowlers = []
    for index in range(count):
        kind, share, chosen = rng.random(), 0.0, kinds[-1]
        for part in kinds:
            share += part[0]
            if kind < share:
                chosen = part
                break
        bowlers.append(DeflectionBowler.of_skill(f"B{index:03d}",
                                                 rng.uniform(chosen[1], chosen[2])))
    return bowlers


class _GeneratedMatch(PracticeMatch):
    """A practice match bowled by the generator's bowlers, keeping its events."""

    def __init__(self, bowlers: list[DeflectionBowler], *, games: int, seed: int,
                 match_id: str):
        self.events = []
        self.match_id = match_id
        self.bowlers = {b.name: b for b in bowlers}
        self.in_game: dict[tuple[str, int], DeflectionBowler] = {}
        super().__init__(tuple(self.bowlers), games=games, seed=seed)

    def do(self, command, now=None):
        # PracticeMatch.do, keeping what it applies.
        self.now = max(self.now + timedelta(seconds=1), now or self.now)
        for event in handle(self.state, command, rng=self.source, now=self.now):
            self.state.apply(event)
            self.events.append(event)

    def step(self) -> bool:
        state = self.state
        if state.result is not None or state.decisions:
            return super().step()
        bowler = min((b for b in state.bowlers if state.current_game(b) <= state.games),
                     key=lambda b: (state.current_game(b), len(
                         state.balls[b][state.current_game(b) - 1]), state.bowlers.index(b)))
        number = state.current_game(bowler)
        key = (bowler, number)
        if key not in self.in_game:
            self.in_game[key] = self.bowlers[bowler].for_game(self.rng)
        game = rebuild_game(state.balls[bowler][number - 1])
        pins, leave, foul, gutter = self.in_game[key].ball(frozenset(game.standing_pins),
                                                           self.rng)
        self.do(c.RecordBall(bowler, None, pins, standing=sorted(leave), foul=foul,
                             gutter=gutter, actor="feed:lane-3"))
        return True


def generated_matches(*, seed: int, nights: int, bowlers: int = 60, games: tuple[int, ...] = (1,),
                      visitors: float = 0.25,
                      population: Callable[[random.Random, int], list] = population
                      ) -> list[PlayedMatch]:
    """``nights`` nights at a centre of ``bowlers`` regulars: each night about half of them
    come, with one-time visitors (``visitors`` of the night's bowlers), in groups of 2-4 who
    bowl a match of ``games`` (one of) games together.  ``population(rng, count)`` makes
    the bowlers (research generators pass their own: benchmarks/_heavy_spread_centre.py)."""
    rng = random.Random(seed)
    regulars = population(rng, bowlers)
    matches = []
    visitor_number = 0
    for night in range(nights):
        when = (_FIRST_NIGHT + timedelta(days=7 * night)).isoformat()
        tonight = [b for b in regulars if rng.random() < 0.5]
        extra = round(len(tonight) * visitors / (1 - visitors))
        for guest in population(rng, extra):
            visitor_number += 1
            guest.name = f"V{visitor_number:04d}"
            tonight.append(guest)
        rng.shuffle(tonight)
        while len(tonight) >= 2:
            size = min(len(tonight), rng.choice((2, 3, 3, 4)))
            group, tonight = tonight[:size], tonight[size:]
            if len(tonight) == 1:
                group, tonight = group + tonight, []
            match_id = f"n{night:02d}m{len(matches):04d}"
            played = _GeneratedMatch(group, games=rng.choice(games),
                                     seed=rng.randrange(2 ** 31), match_id=match_id)
            played.finish()
            matches.append(PlayedMatch(match_id, when, tuple(played.events)))
    return matches
