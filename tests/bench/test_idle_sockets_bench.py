"""Smoke test: the idle-websockets benchmark runs against the real ``alley-poker serve``
(threaded worker): every flood socket joins and stays, and the kiosk's reads answer — never
how fast anything was."""

from __future__ import annotations

import pytest

from tests.bench.conftest import run_benchmark

pytestmark = pytest.mark.bench


def test_quick_idle_sockets_run_holds_the_flood_and_answers_the_kiosk():
    result = run_benchmark("idle_sockets", "--quick", timeout=240)
    assert result["worker"] == "threads"
    (count,) = result["counts"]
    assert result[f"{count}.joined"] == count
    assert result[f"{count}.closed_by_server"] == 0
    for phase in ("0", str(count)):
        assert result[f"{phase}.screen_failed"] == 0, phase
        assert result[f"{phase}.healthz_failed"] == 0, phase
        assert result[f"{phase}.kiosk_connect_ms"] > 0, phase
    assert result["after.open_fds"] < result[f"{count}.open_fds"]
