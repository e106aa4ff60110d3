"""Provably fair dealing: every card of a match derived from a seed committed before play.

``deal`` is the pure core (the DRBG, integer draws, the shuffle, the commitment) and ``chain``
the event log's hash chain; both stand below the ledger, which deals from them.  Checking a
match's export against its revealed seed replays it through the ledger, so it is above it:
:mod:`alley_poker.verifier`.  The byte-level specification an independent verifier is written
from is ``docs/fairness.md``.
"""
