"""A game of ten frames, fed one ball at a time, scored the way a lane scoring system does.

The game keeps its balls and what the next one faces; each ball is judged in
:mod:`.balls`, the frames are scored in :mod:`.frames`.

>>> game = Game()
>>> game.roll(10).mark
'X'
>>> ball = game.roll(8, standing=[7, 10])
>>> ball.split, ball.mark
(True, 'S8')
>>> game.roll(2).is_split_conversion
True
>>> game.scoresheet()
'X S8/'
>>> game.roll(4, standing=[1, 2, 3])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
alley_poker.bowling.BowlingError: frame 3 ball 1: 4 of 10 pins fell, which leaves 6 standing...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from alley_poker.bowling.balls import FIRST_BALL, Ball, NextBall, ball_after, make_ball
from alley_poker.bowling.bowling_errors import BowlingError
from alley_poker.bowling.frames import Frame, score_frames


class Game:
    """One bowler's game of ten frames, fed one ball at a time.

    >>> game = Game.from_rolls([10] * 12)
    >>> game.score(), game.is_complete
    (300, True)
    >>> game
    <Game X X X X X X X X X XXX = 300>
    >>> game.roll(3)
    Traceback (most recent call last):
    ...
    alley_poker.bowling.BowlingError: the game is over (all 10 frames are bowled); no more balls
    """

    __slots__ = ("_balls", "_next")

    def __init__(self) -> None:
        self._balls: tuple[Ball, ...] = ()
        self._next: NextBall | None = FIRST_BALL

    @classmethod
    def from_rolls(cls, rolls: Iterable[int | Mapping[str, object]]) -> Game:
        """A game from pin counts, or mappings of :meth:`roll` arguments; an impossible roll
        raises :class:`BowlingError` naming it.

        >>> Game.from_rolls([9, 0] * 10).score()
        90
        >>> Game.from_rolls([{"pins": 0, "foul": True}, 10]).scoresheet()
        'F/'
        >>> Game.from_rolls([10, 7, 4])
        Traceback (most recent call last):
        ...
        alley_poker.bowling.BowlingError: roll 3: frame 2 has only 3 pins standing; 4 cannot fall
        """
        game = cls()
        for index, roll in enumerate(rolls, start=1):
            try:
                if isinstance(roll, Mapping):
                    game.roll(**roll)  # type: ignore[arg-type]
                else:
                    game.roll(roll)  # type: ignore[arg-type]
            except BowlingError as exc:
                raise BowlingError(f"roll {index}: {exc}") from None
            except TypeError as exc:  # a mapping without pins, or with an unknown keyword
                raise BowlingError(f"roll {index}: {roll!r} is not a roll: {exc}") from None
        return game

    def roll(
        self,
        pins: int,
        *,
        standing: Iterable[int] | None = None,
        foul: bool = False,
        gutter: bool = False,
        split: bool | None = None,
    ) -> Ball:
        """Record one ball and return its record; refuse impossible input unchanged.

        ``pins`` is what the ball knocked down (for a foul, what it knocked down before the
        respot; it is credited 0).  ``standing`` are the pins left after the ball, when the
        scoring system reports them.  ``split`` is the scoring system's split flag; without
        one the split is computed from ``standing``.  A flag that cannot apply (not a full
        rack, a foul, the head pin standing, fewer than two pins left) is dropped, never a
        reason to refuse the ball.

        >>> game = Game()
        >>> game.roll(7).mark, game.roll(3).mark
        ('7', '/')
        >>> game.roll(6); game.roll(5)
        Traceback (most recent call last):
        ...
        alley_poker.bowling.BowlingError: frame 2 has only 4 pins standing; 5 cannot fall
        >>> game.scoresheet()
        '7/ 6'
        """
        at = self._next
        if at is None:
            raise BowlingError(
                "the game is over (all 10 frames are bowled); no more balls"
            )
        ball = make_ball(at, pins, standing, foul, gutter, split)
        self._next = ball_after(at, ball)
        self._balls = (*self._balls, ball)
        return ball

    def copy(self) -> Game:
        """An independent game with the same balls, without rolling them again (balls and
        what the next ball faces are immutable, so the two share them safely).

        >>> game = Game.from_rolls([7, 3]); other = game.copy(); _ = other.roll(10)
        >>> game.scoresheet(), other.scoresheet()
        ('7/', '7/ X')
        """
        other = Game()
        other._balls, other._next = self._balls, self._next
        return other

    @property
    def balls(self) -> tuple[Ball, ...]:
        """Every ball so far, in order."""
        return self._balls

    @property
    def is_complete(self) -> bool:
        return self._next is None

    @property
    def current_frame(self) -> int | None:
        """The frame the next ball belongs to (1-10); ``None`` once the game is over."""
        return None if self._next is None else self._next.frame

    @property
    def current_ball(self) -> int | None:
        """The next ball's number within its frame (1-3); ``None`` once the game is over."""
        return None if self._next is None else self._next.ball

    @property
    def at_full_rack(self) -> bool:
        """Whether the next ball is the first at ten fresh pins (only such a ball can strike or
        leave a split); false once the game is over.

        >>> game = Game(); game.at_full_rack, game.roll(0, foul=True).foul, game.at_full_rack
        (True, True, False)
        """
        return self._next is not None and self._next.full_rack

    @property
    def standing_count(self) -> int:
        """How many pins the next ball faces (0 once the game is over)."""
        return 0 if self._next is None else self._next.standing_count

    @property
    def standing_pins(self) -> frozenset[int] | None:
        """The pins the next ball faces; ``None`` if the scoring system has not said which
        (only the count is known); empty once the game is over.

        >>> game = Game(); _ = game.roll(8, standing=[7, 10]); sorted(game.standing_pins)
        [7, 10]
        >>> _ = game.roll(1); print(game.standing_pins)
        frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
        """
        return frozenset() if self._next is None else self._next.standing

    @property
    def frames(self) -> list[Frame]:
        """The frames bowled or started so far, with marks, points and running totals.

        >>> [f.score for f in Game.from_rolls([10, 10, 7, 2]).frames]
        [27, 46, 55]
        >>> [f.score for f in Game.from_rolls([10, 7]).frames]
        [None, None]
        """
        return score_frames(self._balls)

    def score(self) -> int:
        """The final score; :class:`BowlingError` while the game is unfinished.

        >>> Game.from_rolls([5] * 21).score()
        150
        >>> Game.from_rolls([10, 10]).score()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        alley_poker.bowling.BowlingError: the game is not finished (frame 3 ball 1 is next)...
        """
        if self._next is not None:
            raise BowlingError(
                f"the game is not finished (frame {self._next.frame} ball {self._next.ball} "
                "is next); use score_so_far() for a running total"
            )
        total = self.frames[-1].score
        assert total is not None  # every frame of a finished game is scored
        return total

    def score_so_far(self) -> int:
        """The running total through the last frame whose bonus balls are all thrown.

        >>> Game.from_rolls([10, 10, 7]).score_so_far()
        27
        """
        scored = [frame.score for frame in self.frames if frame.score is not None]
        return scored[-1] if scored else 0

    def scoresheet(self) -> str:
        """The marks of each frame, one word per frame: ``X 7/ 9- S8/ G7``.

        >>> Game.from_rolls([10, 7, 3, 9, 0, {"pins": 8, "standing": [7, 10]}, 2,
        ...                  {"pins": 0, "gutter": True}, 7]).scoresheet()
        'X 7/ 9- S8/ G7'
        """
        return " ".join(str(frame) for frame in self.frames)

    def __repr__(self) -> str:
        sheet = self.scoresheet() or "no balls yet"
        if self._next is None:
            return f"<Game {sheet} = {self.score()}>"
        return f"<Game {sheet} | frame {self._next.frame} ball {self._next.ball} next>"
