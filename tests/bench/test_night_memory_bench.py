"""Smoke test: the night's memory benchmark watches a real service and reads its snapshot.

A quick night with the odds on and the service traced: the service's peak, its odds pool
process, its threads' stacks and the tracemalloc summary it dumped as it stopped are all
reported — never how large they are.
"""

from __future__ import annotations

import shutil

import pytest

from tests.bench.conftest import run_benchmark
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.bench


def test_quick_traced_night_with_odds_reports_the_service_its_pool_and_where_memory_went():
    if shutil.which("socat") is None:
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")
    # 20 runs a state (the least the config allows): the pool works and is measured, without
    # the traced service and its pool spending a CI minute on odds nobody reads.
    result = run_benchmark("night_memory", "--quick", "--odds", "--odds-iterations", "20",
                           "--trace", "2", timeout=400)

    assert result["night"]["lost"] == 0
    assert result["serve_peak_rss_mb"] > 0
    assert result["serve_at_end"]["smaps_mb"]["anonymous"] > 0
    assert any("spawn_main" in child["command"] and child["peak_rss_mb"] > 0
               for child in result["children"]), result["children"]
    assert "feed-lanes" in result["stacks_by_thread_kb"]
    memory = result["tracemalloc"]
    assert memory["frames"] == 2
    assert memory["traced_mb"] > 0
    assert "imported code" in memory["packages_mb"]
    assert any(where.startswith("alley_poker/") for where in memory["project_callers_mb"])
