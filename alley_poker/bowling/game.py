"""A game of ten frames, fed one ball at a time, scored the way a lane scoring system does.

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

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from alley_poker.bowling.errors import BowlingError
from alley_poker.bowling.pins import PINS, format_leave, is_split, parse_pins

FRAMES_PER_GAME = 10

# --------------------------------------------------------------------------- balls


@dataclass(frozen=True, slots=True)
class Ball:
    """One accepted ball, as the ledger sees it.  Built by :meth:`Game.roll`, never by hand.

    ``pins`` is the pinfall *credited* (0 for a foul).  ``standing`` is the set of pins the
    next ball of the same rack would face (after a foul: the respotted pins), or ``None`` when
    the scoring system did not say and it cannot be worked out.  ``split`` is the scoring
    system's flag (dropped when it cannot apply), or computed from ``standing`` when no flag
    was sent.  ``full_rack`` is true
    for the first ball at ten fresh pins (first ball of a frame, a 10th-frame fill ball after a
    strike or spare).  ``pins_before`` is how many pins the ball faced, and ``foul_pinfall``
    what a foul ball knocked down before the respot (0 for a fair ball).

    >>> game = Game()
    >>> first = game.roll(9, standing=[10])
    >>> first.full_rack, first.split, first.ends_frame, sorted(first.standing)
    (True, False, False, [10])
    >>> second = game.roll(1)
    >>> second.ball, second.is_spare, second.mark, second.standing
    (2, True, '/', frozenset())
    """

    frame: int
    ball: int
    pins: int
    standing: frozenset[int] | None
    foul: bool
    gutter: bool
    split: bool
    full_rack: bool
    is_strike: bool
    is_spare: bool
    is_split_conversion: bool
    ends_frame: bool
    pins_before: int
    foul_pinfall: int = 0

    @property
    def mark(self) -> str:
        """The scoresheet symbol: ``X``, ``/``, ``F``, ``G``, ``-``, a digit, or ``S`` + digit
        for a split first ball (``S8``)."""
        if self.foul:
            return "F"
        if self.is_strike:
            return "X"
        if self.is_spare:
            return "/"
        if self.pins == 0:
            return "G" if self.gutter else "-"
        return f"S{self.pins}" if self.split else str(self.pins)

    def __repr__(self) -> str:
        parts = [f"frame={self.frame}", f"ball={self.ball}", f"pins={self.pins}"]
        if self.standing is not None:
            parts.append(f"standing={format_leave(self.standing)!r}")
        parts.append(f"mark={self.mark!r}")
        return f"Ball({', '.join(parts)})"


@dataclass(frozen=True, slots=True)
class _NextBall:
    """What the next ball of a game faces."""

    frame: int
    ball: int
    full_rack: bool
    standing_count: int
    standing: frozenset[int] | None
    rack_first_ball: Ball | None  # the earlier ball of this rack, when this is its second


_FIRST_BALL = _NextBall(1, 1, True, 10, PINS, None)


def _fresh_rack(frame: int, ball: int) -> _NextBall:
    return _NextBall(frame, ball, True, 10, PINS, None)


def _check_pins(pins: object) -> int:
    if isinstance(pins, (bool, str)):
        raise BowlingError(f"pins must be a whole number from 0 to 10, got {pins!r}")
    try:
        count = operator.index(pins)  # type: ignore[arg-type]
    except TypeError:
        raise BowlingError(
            f"pins must be a whole number from 0 to 10, got {pins!r}"
        ) from None
    if count < 0:
        raise BowlingError(f"a ball cannot knock down {count} pins; pins must be 0 to 10")
    if count > 10:
        raise BowlingError(f"a ball cannot knock down {count} pins; there are only 10 pins")
    return count


def _check_flag(name: str, value: object, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not isinstance(value, bool):
        raise BowlingError(f"{name} must be True or False, got {value!r}")


def _make_ball(
    at: _NextBall,
    pins: object,
    standing: Iterable[int] | None,
    foul: bool,
    gutter: bool,
    split: bool | None,
) -> Ball:
    """Validate one ball against what it faces and build its record (no state changes)."""
    count = _check_pins(pins)
    _check_flag("foul", foul)
    _check_flag("gutter", gutter)
    _check_flag("split", split, optional=True)
    where = f"frame {at.frame} ball {at.ball}"
    if count > at.standing_count:
        pin_word = "pin" if at.standing_count == 1 else "pins"
        raise BowlingError(
            f"frame {at.frame} has only {at.standing_count} {pin_word} standing; "
            f"{count} cannot fall"
        )
    if gutter and count:
        raise BowlingError(f"{where}: a gutter ball knocks down no pins, but {count} fell")
    left_physically = at.standing_count - count
    foul_pinfall = count if foul else 0
    given = None if standing is None else parse_pins(standing)
    if given is not None:
        if at.standing is not None and not given <= at.standing:
            risen = given - at.standing
            were = "pin {} was" if len(risen) == 1 else "pins {} were"
            raise BowlingError(
                f"{where}: {were.format(format_leave(risen))} already down and cannot stand "
                f"again (standing before this ball: {format_leave(at.standing)})"
            )
        if foul and count == 0 and len(given) <= at.standing_count:
            # Feeds report a foul as 0 pins credited; the standing pins then tell what the
            # ball really knocked down before the respot (or are the respotted deck itself).
            foul_pinfall = at.standing_count - len(given)
        elif len(given) != left_physically:
            raise BowlingError(
                f"{where}: {count} of {at.standing_count} pins fell, which leaves "
                f"{left_physically} standing, but {len(given)} standing pins were given "
                f"({format_leave(given)})"
            )
    # A split flag that cannot apply (a foul, a ball not at a full rack, fewer than two pins
    # left, the head pin standing) is dropped, never a reason to refuse a legal ball: after a
    # first-ball gutter a second ball leaving the 7 and 10 is an open frame, not a split.
    split_possible = (not foul and at.full_rack and left_physically >= 2 and count > 0
                      and not (given is not None and 1 in given))
    if foul:
        credited, after_count, after = 0, at.standing_count, at.standing
    else:
        credited, after_count = count, left_physically
        if given is not None:
            after = given
        elif after_count == 0:
            after = frozenset()
        elif count == 0:
            after = at.standing
        else:
            after = None
    if split is not None:
        is_split_ball = split and split_possible
    else:
        is_split_ball = (
            at.full_rack and not foul and given is not None and is_split(given)
        )
    is_strike = at.full_rack and not foul and count == 10
    is_spare = at.rack_first_ball is not None and not foul and after_count == 0
    first = at.rack_first_ball
    if at.frame < FRAMES_PER_GAME:
        ends_frame = is_strike or at.ball == 2
    elif at.ball == 3:
        ends_frame = True
    elif at.ball == 2:
        ends_frame = not (first is None or is_spare)  # after a strike, or a spare: fill ball
    else:
        ends_frame = False
    return Ball(
        frame=at.frame, ball=at.ball, pins=credited, standing=after, foul=foul,
        gutter=gutter, split=is_split_ball, full_rack=at.full_rack, is_strike=is_strike,
        is_spare=is_spare,
        is_split_conversion=is_spare and first is not None and first.split,
        ends_frame=ends_frame, pins_before=at.standing_count,
        foul_pinfall=foul_pinfall,
    )


def _after(at: _NextBall, ball: Ball) -> _NextBall | None:
    """What the ball after ``ball`` faces; ``None`` once the game is over."""
    if ball.ends_frame:
        return None if at.frame == FRAMES_PER_GAME else _fresh_rack(at.frame + 1, 1)
    left = ball.pins_before - ball.pins
    if left == 0:  # 10th frame: a strike or a spare earns a fill ball at a fresh rack
        return _fresh_rack(at.frame, at.ball + 1)
    return _NextBall(at.frame, at.ball + 1, False, left, ball.standing, ball)


# --------------------------------------------------------------------------- frames


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a game as a scoresheet shows it.

    ``points`` is what the frame is worth with its bonus and ``score`` the running total
    through it; both are ``None`` until the frame and its bonus balls are thrown.

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


# --------------------------------------------------------------------------- game


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
        self._next: _NextBall | None = _FIRST_BALL

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
        ball = _make_ball(at, pins, standing, foul, gutter, split)
        self._next = _after(at, ball)
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
        by_frame: dict[int, list[Ball]] = {}
        for ball in self._balls:
            by_frame.setdefault(ball.frame, []).append(ball)
        credited = [ball.pins for ball in self._balls]
        frames: list[Frame] = []
        running: int | None = 0
        index = 0
        for number, balls in by_frame.items():
            points: int | None = None
            if balls[-1].ends_frame:
                if number == FRAMES_PER_GAME or not (balls[0].is_strike or balls[-1].is_spare):
                    points = sum(ball.pins for ball in balls)
                else:
                    bonus_count = 2 if balls[0].is_strike else 1
                    after = credited[index + len(balls):index + len(balls) + bonus_count]
                    if len(after) == bonus_count:
                        points = 10 + sum(after)
            index += len(balls)
            running = None if running is None or points is None else running + points
            frames.append(Frame(number, tuple(balls), points, running))
        return frames

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
