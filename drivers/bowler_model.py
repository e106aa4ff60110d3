"""The simulated bowler's model; it lives in :mod:`alley_poker.odds.ball_model` (the live odds
use it too), and is named here for the drivers and tests that know it by this name."""

from alley_poker.odds.ball_model import BowlerProfile

__all__ = ["BowlerProfile"]
