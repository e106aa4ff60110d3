"""Benchmarks for Alley Poker (issue 7).

Each benchmark is a module run as ``python -m benchmarks.NAME --json`` from the
repository root; it prints one JSON object of figures (``--quick`` for a run of
a few seconds, ``--seed N`` to change the random input). Benchmarks print
figures and never fail on speed; the ``bench`` pytest tier only checks that
they run and that their answers agree.
"""
