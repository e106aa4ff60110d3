"""Reading a scoresheet back into a game: the inverse of :meth:`Game.scoresheet`.

Marks, one word per frame: ``X`` strike, ``/`` spare, ``-`` a miss (0), ``G`` a flagged
gutter ball, ``F`` a foul (0, pins respotted), ``1``-``9`` a count, ``S`` before a count a
split first ball (``S8``).  Standing pins are not on a sheet, so they come back unknown.
"""

from __future__ import annotations

from alley_poker.bowling.bowling_errors import BowlingError
from alley_poker.bowling.game import Game

MARK_HELP = "X / - G F, 1-9, or S and a count for a split"


def split_marks(word: str) -> list[str]:
    """One frame's word cut into per-ball marks.

    >>> split_marks("S8/"), split_marks("xx9")
    (['S8', '/'], ['X', 'X', '9'])
    >>> split_marks("7k")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.bowling.BowlingError: '7k': 'K' is not a scoresheet mark (X / - G F, 1-9, ...
    """
    marks: list[str] = []
    text = word.upper()
    position = 0
    while position < len(text):
        char = text[position]
        if char == "S":
            count = text[position + 1:position + 2]
            if not (count.isdigit() and count != "0"):
                raise BowlingError(f"{word!r}: a split 'S' must be followed by a count, e.g. S8")
            marks.append(char + count)
            position += 2
            continue
        if char not in "X/-GF123456789":
            raise BowlingError(f"{word!r}: {char!r} is not a scoresheet mark ({MARK_HELP})")
        marks.append(char)
        position += 1
    return marks


def _roll_mark(game: Game, mark: str) -> None:
    if mark == "X":
        ball = game.roll(10)
    elif mark == "/":
        ball = game.roll(game.standing_count)
    elif mark == "-":
        ball = game.roll(0)
    elif mark == "G":
        ball = game.roll(0, gutter=True)
    elif mark == "F":
        ball = game.roll(0, foul=True)
    elif mark.startswith("S"):
        ball = game.roll(int(mark[1:]), split=True)
    else:
        ball = game.roll(int(mark))
    if ball.mark != mark:
        raise BowlingError(f"{mark!r} cannot be written here: that ball is marked {ball.mark!r}")


def parse_scoresheet(sheet: str) -> Game:
    """The game a scoresheet shows; the last frame may be unfinished.

    >>> [frame.score for frame in parse_scoresheet("X 7/ 9").frames]
    [20, 39, None]
    >>> parse_scoresheet("X 73")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.bowling.BowlingError: scoresheet frame 2 '73': '3' cannot be written here: ...
    """
    if not isinstance(sheet, str):
        raise BowlingError(f"a scoresheet is text such as 'X 7/ 9-', got {sheet!r}")
    game = Game()
    words = sheet.split()
    for number, word in enumerate(words, start=1):
        where = f"scoresheet frame {number} {word!r}"
        if game.is_complete:
            raise BowlingError(f"{where}: the game was over after 10 frames")
        try:
            marks = split_marks(word)
            for position, mark in enumerate(marks):
                if game.current_frame != number:
                    raise BowlingError(
                        f"the frame was over after {''.join(marks[:position])!r}"
                    )
                _roll_mark(game, mark)
        except BowlingError as exc:
            raise BowlingError(f"{where}: {exc}") from None
        if number < len(words) and game.current_frame == number:
            raise BowlingError(f"{where}: the frame is not finished")
    return game
