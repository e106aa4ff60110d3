"""Checking a match: its export re-run card by card from the revealed seed and its inputs.

``verify`` checks a match export against its commitment and replays its events;
``reexecute`` runs every action anew through the ledger's own rules.  It sits above the ledger
(it replays through it) and the fair deal (:mod:`alley_poker.fairness`, below the ledger: the
DRBG, the shuffle, the commitment and the hash chain).  ``docs/fairness.md`` is the
specification an independent verifier is written from.
"""
