"""Live win odds: each bowler's chance of taking the pot, by playing the rest of the match out
many times under its own rule book (docs/odds.md).  Pure domain: no web, store or drivers."""

from alley_poker.odds.ball_model import BowlerProfile, bowl_ball
from alley_poker.odds.engine import ENGINES, LIVE, BowlerOdds, MatchOdds, play_out, win_odds
from alley_poker.odds.fast import WarmRuns, fast_win_odds
from alley_poker.odds.profiles import CentreAverages, learn_profile, profiles_for

__all__ = ["ENGINES", "LIVE", "BowlerOdds", "BowlerProfile", "CentreAverages", "MatchOdds",
           "WarmRuns", "bowl_ball", "fast_win_odds", "learn_profile", "play_out",
           "profiles_for", "win_odds"]
