"""Catch-up after an outage: which balls a scoresheet shows that were never seen live.

The service keeps one :class:`BallLog` per feed.  ``apply(event)`` returns the balls to deal,
in order: a live ball the first time its key is seen (a repeat gives nothing), and for a
:class:`ScoresheetSnapshot` every ball on the sheet whose key is new — marked ``recovered``,
so the commissioner can be told ("lane 7: recovered 3 balls from the scoresheet").

>>> from drivers.base import SheetBall
>>> log = BallLog()
>>> first = BallRecorded(lane=7, bowler=1, game=1, frame=1, ball=1, pins=10)
>>> len(log.apply(first)), len(log.apply(first))
(1, 0)
>>> sheet = ScoresheetSnapshot(lane=7, bowler=1, game=1, frames=(
...     (SheetBall(10),), (SheetBall(7), SheetBall(3)), (SheetBall(9),)))
>>> [(ball.frame, ball.ball, ball.recovered) for ball in log.apply(sheet)]
[(2, 1, True), (2, 2, True), (3, 1, True)]
>>> log.recovered_message(sheet, 3)
'lane 7: recovered 3 balls from the scoresheet'
"""

from __future__ import annotations

import dataclasses

from drivers.base import (
    BallCorrected,
    BallRecorded,
    BallRetracted,
    LaneEvent,
    ScoresheetSnapshot,
)

BallKey = tuple[int, int, int, int, int]


class BallLog:
    """The balls known so far, by key; turns lane events into the balls still to deal."""

    def __init__(self) -> None:
        self.balls: dict[BallKey, BallRecorded] = {}

    def apply(self, event: LaneEvent) -> list[BallRecorded]:
        """The balls ``event`` adds, in bowling order (empty for repeats and other events)."""
        if isinstance(event, BallCorrected):
            if event.key in self.balls:
                self.balls[event.key] = event
            return []
        if isinstance(event, BallRecorded):
            if event.key in self.balls:
                return []
            self.balls[event.key] = event
            return [event]
        if isinstance(event, BallRetracted):
            self.balls.pop(event.key, None)
            return []
        if isinstance(event, ScoresheetSnapshot):
            new = [ball for ball in event.ball_events() if ball.key not in self.balls]
            for ball in new:
                self.balls[ball.key] = dataclasses.replace(ball, recovered=True)
            return [self.balls[ball.key] for ball in new]
        return []

    @staticmethod
    def recovered_message(snapshot: ScoresheetSnapshot, count: int) -> str:
        """What the commissioner is told after a catch-up."""
        noun = "ball" if count == 1 else "balls"
        return f"lane {snapshot.lane}: recovered {count} {noun} from the scoresheet"
