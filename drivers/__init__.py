"""Scoreboard adapters: they turn a lane scoring system's output into normalized lane events.

Adapters know nothing of the ledger; the alley service consumes the events they emit.
"""
