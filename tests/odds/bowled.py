"""Games bowled by a ball model, for the odds tests that judge a model by what it bowls."""

from __future__ import annotations

import random
from collections.abc import Iterator

from alley_poker.bowling import Game


def bowled_games(bowler, count: int, seed: int) -> Iterator[Game]:
    """``count`` complete games of ``bowler`` (anything with ``for_game``/``ball``: a profile
    or a generator's bowler), a form drawn for each game as a simulation does."""
    rng = random.Random(seed)
    for _ in range(count):
        game, form = Game(), bowler.for_game(rng)
        while not game.is_complete:
            pins, leave, foul, gutter = form.ball(frozenset(game.standing_pins), rng)
            game.roll(pins, standing=leave, foul=foul, gutter=gutter)
        yield game
