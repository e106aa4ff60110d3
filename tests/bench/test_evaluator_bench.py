"""Smoke test of ``python -m benchmarks.evaluator``: it runs as a real subprocess, prints
every figure issue 7 asks for, and our evaluator, treys and phevaluator agree on the order
of every joker-free hand it timed.  Speed is never asserted: the figures are for the
record (docs/performance.md), a shared CI machine may be slow."""

from __future__ import annotations

import importlib.util

import pytest

from tests.bench.conftest import run_benchmark
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.bench

FIGURES = (
    "ours_5card_hps", "treys_5card_hps", "phevaluator_5card_hps", "ratio_5card",
    "ours_7card_hps", "treys_7card_hps", "phevaluator_7card_hps", "ratio_7card",
    "ours_joker_hps", "ours_long_hps",
)


def test_the_evaluator_benchmark_runs_and_all_three_agree():
    for peer in ("treys", "phevaluator"):
        if importlib.util.find_spec(peer) is None:
            skip_or_fail(f"{peer} is not installed (pip install -e '.[bench]')")
    result = run_benchmark("evaluator", "--quick", "--seed", "11")
    assert set(FIGURES) <= result.keys(), sorted(set(FIGURES) - result.keys())
    for name in FIGURES:
        assert result[name] > 0, (name, result[name])
    assert result["agree"] is True, result
    assert result["agree_treys"] is True and result["agree_phevaluator"] is True
    assert result["seed"] == 11
    assert result["hands_compared"] == (result["hands_per_batch"]["five"]
                                        + result["hands_per_batch"]["seven"])


def test_the_agreement_check_catches_a_wrong_order():
    # The check behind ``agree``: ours higher is better, theirs lower is better.
    from benchmarks.evaluator import orders_agree

    assert orders_agree([10, 30, 20, 20], [9, 1, 5, 5])
    assert not orders_agree([10, 30, 20, 20], [9, 1, 5, 6])  # a tie of ours split
    assert not orders_agree([10, 30, 20], [9, 5, 1])  # two hands swapped
    assert not orders_agree([10, 20], [3, 3])  # a difference of ours tied
