"""Smoke test of ``python -m benchmarks.odds``: it runs as a real subprocess in a tiny
configuration, prints every figure issue 18 asks for, and draws the reliability diagram.
The figures themselves are for the record (docs/odds.md), never asserted."""

from __future__ import annotations

import importlib.util
import os

import pytest

from tests.bench.conftest import run_benchmark
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.bench

FIGURES = ("max_error_pp", "mean_error_pp", "brier", "first_estimate_ms_p95",
           "settled_ms_p95", "reference_sigma_pp", "reference_iterations", "levels",
           "league_night_first_estimate_ms_p95", "league_night_settled_ms_p95",
           "league_night_settled_error_pp_max", "league_night_first_estimate_error_pp_max",
           "league_night_loadavg_1m", "loadavg_1m_start", "engine")


def test_the_odds_benchmark_prints_accuracy_calibration_and_latency(tmp_path):
    if importlib.util.find_spec("matplotlib") is None:
        skip_or_fail("matplotlib is not installed (pip install -e '.[bench]')")
    plot = tmp_path / "reliability.png"
    result = run_benchmark("odds", "--quick", "--plot", str(plot))
    assert set(FIGURES) <= result.keys(), sorted(set(FIGURES) - result.keys())
    assert result["states"] == 6 and sum(result["states_by_stage"].values()) == 6
    assert 0 <= result["max_error_pp"] <= 100 and result["mean_error_pp"] <= result["max_error_pp"]
    assert [level["iterations"] for level in result["levels"]] == [20, 40]
    assert result["first_estimate_ms_p95"] <= result["settled_ms_p95"]
    assert 0 <= result["brier"] <= 1
    assert result["predictions"] == sum(row["count"] for row in result["reliability"])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The league night: every command's odds came, first before settled.
    assert result["league_night_requests"] == 12 and result["engine"] == "fast"
    # Both measured (a figure, not a bound: a busy machine's first estimates of some balls can
    # take longer than another ball's whole settling, when only cards were left to enumerate).
    assert result["league_night_first_estimate_ms_p95"] > 0
    assert result["league_night_settled_ms_max"] > 0


def test_the_odds_benchmark_shares_the_league_nights_chunks_with_helpers():
    """``--helpers 1``: an ``alley-poker odds-helper`` process through the real Redis runs
    some of the league night's chunks, and the figures say how many and at what cost."""
    redis_url = os.environ.get("ALLEY_POKER_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    result = run_benchmark("odds", "--quick", "--league-night-only", "--helpers", "1",
                           "--redis-url", redis_url)
    assert result["league_night_helpers"] == 1
    assert result["league_night_helper_chunks"] > 0
    assert result["league_night_helper_cpu_share"] > 0
    assert result["league_night_helper_round_trip_overhead_ms_p50"] is not None
    assert "brier" not in result  # --league-night-only
