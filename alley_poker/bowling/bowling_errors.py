"""The one error of the bowling domain."""

from __future__ import annotations


class BowlingError(ValueError):
    """Impossible bowling input (a roll, standing pins, a scoresheet); the message says why,
    in words a desk attendant would understand."""

    # Shown, pickled and caught as ``alley_poker.bowling.BowlingError``: that is the public name.
    __module__ = "alley_poker.bowling"
