"""Smoke test: the latency benchmark runs end to end (real service, ptys, Socket.IO kiosks).

It checks that every ball written reached every kiosk of its lanes and that the figures are
there and sane — never how fast they are.
"""

from __future__ import annotations

import shutil

import pytest

from tests.bench.conftest import run_benchmark
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.bench


def test_quick_latency_run_delivers_every_ball_to_every_kiosk():
    if shutil.which("socat") is None:
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")
    result = run_benchmark("latency", "--quick", "--seed", "3", timeout=240)
    for key in ("lanes", "balls_per_s", "clients", "p50_ms", "p95_ms", "p99_ms", "max_ms",
                "lost", "peak_rss_mb"):
        assert key in result, key
    assert result["lost"] == 0
    assert result["balls_measured"] > 0
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert result["peak_rss_mb"] > 0
    # Every kiosk got an update for every ball it watched (and the warm-up's).
    assert result["updates_received"] >= result["balls_measured"] * result["clients"] // (
        result["lanes"] // 2)
