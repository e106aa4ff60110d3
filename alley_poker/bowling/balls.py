"""One ball: what it faces, whether it can happen, and what it does to the rack and frame.

:func:`make_ball` checks a ball against what it faces (:class:`NextBall`) and builds its
:class:`Ball` record; :func:`ball_after` says what the ball after it faces.  Both are pure:
:class:`~alley_poker.bowling.game.Game` keeps the state and feeds them.

>>> ball = make_ball(FIRST_BALL, 8, [7, 10], foul=False, gutter=False, split=None)
>>> ball.mark, ball_after(FIRST_BALL, ball).standing_count
('S8', 2)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass

from alley_poker.bowling.bowling_errors import BowlingError
from alley_poker.bowling.pins import PINS, format_leave, is_split, parse_pins

FRAMES_PER_GAME = 10


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

    >>> from alley_poker.bowling import Game
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
class NextBall:
    """What the next ball of a game faces (the game keeps one; :func:`ball_after` makes the
    next)."""

    frame: int
    ball: int
    full_rack: bool
    standing_count: int
    standing: frozenset[int] | None
    rack_first_ball: Ball | None  # the earlier ball of this rack, when this is its second


FIRST_BALL = NextBall(1, 1, True, 10, PINS, None)


def _fresh_rack(frame: int, ball: int) -> NextBall:
    return NextBall(frame, ball, True, 10, PINS, None)


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


def make_ball(
    at: NextBall,
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


def ball_after(at: NextBall, ball: Ball) -> NextBall | None:
    """What the ball after ``ball`` faces; ``None`` once the game is over."""
    if ball.ends_frame:
        return None if at.frame == FRAMES_PER_GAME else _fresh_rack(at.frame + 1, 1)
    left = ball.pins_before - ball.pins
    if left == 0:  # 10th frame: a strike or a spare earns a fill ball at a fresh rack
        return _fresh_rack(at.frame, at.ball + 1)
    return NextBall(at.frame, at.ball + 1, False, left, ball.standing, ball)
