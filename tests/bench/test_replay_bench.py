"""Smoke test: the replay benchmark builds a log, rebuilds it and restarts the service on it.

Checks the figures are there and consistent — never how fast they are.
"""

from __future__ import annotations

import pytest

from tests.bench.conftest import run_benchmark

pytestmark = pytest.mark.bench


def test_quick_replay_rebuilds_every_event_and_the_service_serves_again():
    result = run_benchmark("replay", "--quick", "--seed", "3", timeout=240)
    assert result["events"] >= 5_000
    assert result["matches"] * result["events_per_match"] == pytest.approx(result["events"],
                                                                           rel=0.01)
    assert result["events_per_s"] > 0 and result["fold_events_per_s"] > 0
    assert result["restart_s"] > 0
