"""Smoke test: the slow-clients benchmark runs against the real ``alley-poker serve`` and the
server closes every idle and every trickling connection — never how fast anything was."""

from __future__ import annotations

import pytest

from tests.bench.conftest import run_benchmark

pytestmark = pytest.mark.bench


def test_quick_slow_clients_run_measures_every_phase_and_the_server_sheds_them():
    result = run_benchmark("slow_clients", "--quick", timeout=240)
    for phase in ("baseline", "idle", "slowloris"):
        for figure in ("join_ms_p50", "connect_ms_p50", "http_ms_p50", "threads"):
            assert result[f"{phase}.{figure}"] > 0, (phase, figure)
        assert result[f"{phase}.failures"] == 0, phase
    slow = result["slow_connections"]
    assert result["idle.closed_by_server"] == slow
    assert result["slowloris.closed_by_server"] == slow
