"""Ten-pin bowling scored the way a lane scoring system does it.

A :class:`Game` takes one ball at a time and refuses impossible input at once
(:class:`BowlingError`, a ``ValueError``), leaving the game exactly as it was.  Each accepted
ball comes back as an immutable :class:`Ball` record that the ledger deals cards from;
:attr:`Game.frames` gives the scoresheet frame by frame, and a :class:`Series` adds a bowler's
games with a league handicap.  :func:`is_split` is the USBC split definition.

>>> game = Game()
>>> game.roll(10).is_strike
True
>>> ball = game.roll(8, standing=[7, 10])
>>> ball.split, ball.mark
(True, 'S8')
>>> game.roll(2).is_split_conversion
True
>>> game.roll(5, foul=True).pins, game.standing_count
(0, 10)
>>> game.roll(11)
Traceback (most recent call last):
...
alley_poker.bowling.BowlingError: a ball cannot knock down 11 pins; there are only 10 pins
>>> game
<Game X S8/ F | frame 3 ball 2 next>

See ``docs/bowling.md`` for the rules as built.
"""

from alley_poker.bowling.balls import FRAMES_PER_GAME, Ball
from alley_poker.bowling.bowling_errors import BowlingError
from alley_poker.bowling.frames import Frame
from alley_poker.bowling.game import Game
from alley_poker.bowling.pins import PINS, format_leave, is_split, parse_leave, parse_pins
from alley_poker.bowling.scoresheet_reader import parse_scoresheet
from alley_poker.bowling.series import Series

__all__ = [
    "FRAMES_PER_GAME",
    "PINS",
    "Ball",
    "BowlingError",
    "Frame",
    "Game",
    "Series",
    "format_leave",
    "is_split",
    "parse_leave",
    "parse_pins",
    "parse_scoresheet",
]
