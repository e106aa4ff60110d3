"""Provably fair dealing: every card of a match derived from a seed committed before play.

``deal`` is the pure core (the DRBG, integer draws, the shuffle, the commitment);
``verify`` checks a match's exported events against its revealed seed.  The byte-level
specification an independent verifier is written from is ``docs/fairness.md``.
"""
