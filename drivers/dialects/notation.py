"""The scoresheet notation scorers print, read and written: ``X 7/ 9- S8/ G7``.

One token per frame, frames separated by spaces; within a frame one symbol per ball:

====  =================================================================
``X``  strike: all ten pins at a full rack
``/``  spare: the rest of the rack on the rack's second ball
``1``-``9``  pins knocked down
``-``  a miss: no pins, the ball stayed on the lane
``G``  a gutter ball: no pins
``F``  a foul: no pins credited (the pins it knocked are respotted)
``S8`` or ``(8)``  a first ball of 8 that left a split
====  =================================================================

The last frame may be unfinished (the sheet as it stands after each ball).  The tenth frame
holds up to three balls, with a fresh rack after a strike or a spare.

>>> frames = parse_sheet("X 7/ 9- S8/ G7")
>>> [[ball.pins for ball in frame] for frame in frames]
[[10], [7, 3], [9, 0], [8, 2], [0, 7]]
>>> frames[3][0].flags, frames[4][0].flags.gutter
(Flags(foul=False, gutter=False, split=True), True)
>>> format_sheet(frames)
'X 7/ 9- S8/ G7'
>>> [len(frame) for frame in parse_sheet("X X X X X X X X X XX7")]
[1, 1, 1, 1, 1, 1, 1, 1, 1, 3]
>>> parse_sheet("74")
Traceback (most recent call last):
...
drivers.dialects.notation.SheetError: frame 1: 4 after 7 is more than the 3 pins standing
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from drivers.base import Flags, SheetBall

_ZEROS = {"-": Flags(), "G": Flags(gutter=True), "F": Flags(foul=True)}
_BALL_TOKEN = re.compile(r"S[1-9]|\([1-9]\)|[X/\-GF0-9]")


class SheetError(ValueError):
    """A scoresheet string that does not describe possible balls; the message says where."""


def parse_sheet(text: str) -> tuple[tuple[SheetBall, ...], ...]:
    """Parse a sheet into frames of balls; raises :class:`SheetError` naming the bad frame."""
    tokens = text.split()
    if len(tokens) > 10:
        raise SheetError(f"{len(tokens)} frames; a game has 10")
    frames = []
    for frame_no, token in enumerate(tokens, start=1):
        symbols = _BALL_TOKEN.findall(token)
        if "".join(symbols) != token:
            raise SheetError(f"frame {frame_no}: {token!r} is not scoresheet notation")
        if frame_no < 10 and frame_no < len(tokens) and not _frame_is_finished(symbols):
            raise SheetError(f"frame {frame_no}: {token!r} is unfinished but frames follow it")
        frames.append(_parse_frame(frame_no, symbols))
    return tuple(frames)


def _frame_is_finished(symbols: Sequence[str]) -> bool:
    return symbols[:1] == ["X"] or len(symbols) >= 2


def _parse_frame(frame_no: int, symbols: Sequence[str]) -> tuple[SheetBall, ...]:
    where = f"frame {frame_no}"
    limit = 3 if frame_no == 10 else 2
    if len(symbols) > limit:
        raise SheetError(f"{where}: {len(symbols)} balls; at most {limit} here")
    balls: list[SheetBall] = []
    standing, fresh_rack = 10, True
    third_ball_earned = False
    for index, symbol in enumerate(symbols):
        if index == 1 and frame_no < 10 and balls[0].pins == 10:
            raise SheetError(f"{where}: no second ball after a strike")
        if index == 2 and not third_ball_earned:
            raise SheetError(f"{where}: a third ball needs a strike or a spare first")
        if symbol == "X":
            if not fresh_rack:
                raise SheetError(f"{where}: X (strike) needs a full rack; use / for a spare")
            ball = SheetBall(10)
        elif symbol == "/":
            if fresh_rack:
                raise SheetError(f"{where}: / (spare) needs a first ball before it")
            ball = SheetBall(standing)
        elif symbol in _ZEROS:
            ball = SheetBall(0, _ZEROS[symbol])
        else:
            split = not symbol.isdigit()
            pins = int(symbol.strip("S()"))
            if split and not fresh_rack:
                raise SheetError(f"{where}: a split can only be left by a ball at a full rack")
            previous = balls[-1].pins if balls else 0
            if pins > standing:
                raise SheetError(f"{where}: {pins} after {previous} is more than the "
                                 f"{standing} pins standing")
            if pins == standing:
                mark = "X" if fresh_rack else "/"
                raise SheetError(f"{where}: {pins} clears the rack; write {mark}")
            ball = SheetBall(pins, Flags(split=split))
        balls.append(ball)
        # A foul's pins are respotted, so its pins (0) leave the rack as it was.
        standing -= ball.pins
        fresh_rack = False
        if standing == 0 and frame_no == 10:
            third_ball_earned = third_ball_earned or index <= 1
            standing, fresh_rack = 10, True
    return tuple(balls)


def sheet_ball_symbol(ball: SheetBall, *, fresh_rack: bool, standing: int) -> str:
    """The symbol for one ball given the rack it was thrown at.

    >>> sheet_ball_symbol(SheetBall(3), fresh_rack=False, standing=3)
    '/'
    >>> sheet_ball_symbol(SheetBall(8, Flags(split=True)), fresh_rack=True, standing=10)
    'S8'
    """
    if ball.flags.foul:
        return "F"
    if ball.pins == 0:
        return "G" if ball.flags.gutter else "-"
    if ball.pins == standing:
        return "X" if fresh_rack else "/"
    return f"S{ball.pins}" if ball.flags.split else str(ball.pins)


def format_sheet(frames: Sequence[Sequence[SheetBall]]) -> str:
    """Write frames of balls in scoresheet notation (the inverse of :func:`parse_sheet`)."""
    tokens = []
    for frame_no, frame in enumerate(frames, start=1):
        symbols = []
        standing, fresh_rack = 10, True
        for ball in frame:
            symbols.append(sheet_ball_symbol(ball, fresh_rack=fresh_rack, standing=standing))
            standing -= ball.pins
            fresh_rack = False
            if standing == 0 and frame_no == 10:
                standing, fresh_rack = 10, True
        tokens.append("".join(symbols))
    return " ".join(tokens)
