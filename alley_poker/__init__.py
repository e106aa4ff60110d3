"""Alley Poker: Bowling Poker for league night, dealt from the lane scoring system."""

__version__ = "0.1.0"
