"""Smoke test: the fairness benchmark bowls fair matches and prints the per-ball costs.

Checks the figures are there and consistent — never how fast they are.
"""

from __future__ import annotations

import pytest

from tests.bench.conftest import run_benchmark

pytestmark = pytest.mark.bench


def test_quick_fairness_run_reports_each_cost_per_ball():
    result = run_benchmark("fairness", "--quick", timeout=120)
    assert result["balls"] > 0 and result["shuffles"] >= result["matches"]
    parts = (result["chain_us_per_ball"] + result["derivation_us_per_ball"]
             + result["commitment_us_per_ball"])
    assert result["total_us_per_ball"] == pytest.approx(parts, abs=0.2)
    assert result["share_of_p50"] == pytest.approx(result["total_us_per_ball"] / 2180, rel=0.01)
