"""Balls for the latency benchmark: valid ten-pin games, bowled in turn on every lane.

Each lane's bowlers bowl frame by frame in slot order, as on a real pair of lanes, so every
ball is the next one the service expects.  Pins are random but always legal; a first ball of
0 is flagged a gutter ball now and then so the ledger's decision paths run too.

>>> import random
>>> balls = list(lane_balls(lane=3, bowlers=2, games=1, rng=random.Random(1)))
>>> {ball.lane for ball in balls}, {ball.bowler for ball in balls}
({3}, {1, 2})
>>> all(0 <= ball.pins <= 10 for ball in balls)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from drivers.base import BallRecorded, Flags


def frame_pins(frame: int, rng: random.Random) -> list[int]:
    """The pins of each ball of one frame (three balls in the tenth after a mark)."""
    first = _ball(10, rng)
    if frame < 10:
        return [10] if first == 10 else [first, _ball(10 - first, rng)]
    if first == 10:
        second = _ball(10, rng)
        third = _ball(10 if second == 10 else 10 - second, rng)
        return [10, second, third]
    second = _ball(10 - first, rng)
    return [first, second, _ball(10, rng)] if first + second == 10 else [first, second]


def _ball(standing: int, rng: random.Random) -> int:
    # League bowlers: a fair share of strikes and spares, the rest spread out.
    if rng.random() < 0.3:
        return standing
    return rng.randint(0, standing)


def lane_balls(lane: int, bowlers: int, games: int, rng: random.Random) -> Iterator[BallRecorded]:
    """Every ball bowled on ``lane`` by slots 1..``bowlers`` over ``games`` games, in order."""
    for game in range(1, games + 1):
        for frame in range(1, 11):
            for slot in range(1, bowlers + 1):
                for number, pins in enumerate(frame_pins(frame, rng), start=1):
                    gutter = pins == 0 and number == 1 and rng.random() < 0.5
                    yield BallRecorded(lane=lane, bowler=slot, game=game, frame=frame,
                                       ball=number, pins=pins,
                                       flags=Flags(gutter=True) if gutter else Flags())
