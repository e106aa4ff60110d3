"""A game's frames as a scoresheet shows them: the balls of each, its points with the bonus
balls, and the running total."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from alley_poker.bowling.balls import FRAMES_PER_GAME, Ball


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a game as a scoresheet shows it.

    ``points`` is what the frame is worth with its bonus and ``score`` the running total
    through it; both are ``None`` until the frame and its bonus balls are thrown.

    >>> from alley_poker.bowling import Game
    >>> first, second = Game.from_rolls([{"pins": 7, "standing": [4, 7, 10]}, 3, 6, 2]).frames
    >>> first.marks, first.is_spare, first.is_split_conversion, first.points, first.score
    (('S7', '/'), True, True, 16, 16)
    >>> str(second), second.is_open, second.score
    ('62', True, 24)
    """

    number: int
    balls: tuple[Ball, ...]
    points: int | None
    score: int | None

    @property
    def marks(self) -> tuple[str, ...]:
        """One scoresheet symbol per ball, e.g. ``('S8', '/')``."""
        return tuple(ball.mark for ball in self.balls)

    @property
    def is_complete(self) -> bool:
        return bool(self.balls) and self.balls[-1].ends_frame

    @property
    def is_strike(self) -> bool:
        return bool(self.balls) and self.balls[0].is_strike

    @property
    def is_spare(self) -> bool:
        """The first rack converted with the second ball (``7/``, ``F/``, ``9/X``)."""
        return len(self.balls) >= 2 and self.balls[1].is_spare

    @property
    def is_split_conversion(self) -> bool:
        return any(ball.is_split_conversion for ball in self.balls)

    @property
    def is_open(self) -> bool:
        """Complete with neither strike nor spare (a 10th of ``X7/`` is not open)."""
        return self.is_complete and not self.is_strike and not self.is_spare

    def __str__(self) -> str:
        return "".join(self.marks)


def score_frames(balls: Sequence[Ball]) -> list[Frame]:
    """A game's balls grouped into frames, each with its points and running total once its
    bonus balls are thrown (a strike counts the next two balls, a spare the next one).

    >>> from alley_poker.bowling import Game
    >>> [frame.points for frame in score_frames(Game.from_rolls([10, 10, 7, 2]).balls)]
    [27, 19, 9]
    """
    by_frame: dict[int, list[Ball]] = {}
    for ball in balls:
        by_frame.setdefault(ball.frame, []).append(ball)
    credited = [ball.pins for ball in balls]
    frames: list[Frame] = []
    running: int | None = 0
    index = 0
    for number, frame_balls in by_frame.items():
        points: int | None = None
        if frame_balls[-1].ends_frame:
            if number == FRAMES_PER_GAME or not (frame_balls[0].is_strike
                                                 or frame_balls[-1].is_spare):
                points = sum(ball.pins for ball in frame_balls)
            else:
                bonus_count = 2 if frame_balls[0].is_strike else 1
                after = credited[index + len(frame_balls):index + len(frame_balls) + bonus_count]
                if len(after) == bonus_count:
                    points = 10 + sum(after)
        index += len(frame_balls)
        running = None if running is None or points is None else running + points
        frames.append(Frame(number, tuple(frame_balls), points, running))
    return frames
