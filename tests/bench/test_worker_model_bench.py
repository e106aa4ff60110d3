"""Smoke test: the worker-model benchmark runs the real centre (serial feeds, kiosks, an idle
flood, the desk's heavy GETs, the odds) and prints a bowler's feed → kiosk figures for every
condition — never how fast anything was (docs/performance.md, "Idle websockets and the
worker model")."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

from tests.bench.conftest import run_benchmark
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.bench

CONDITIONS = ("quiet", "idle", "heavy", "odds")


def assert_every_condition_measured(figures: dict) -> None:
    assert figures["idle_joined"] == 50
    assert figures["idle_closed_by_server"] == 0
    assert figures["heavy_get"].endswith("/story") or figures["heavy_get"].endswith("/export")
    for condition in CONDITIONS:
        shown = figures[condition]
        assert "error" not in shown, (condition, shown)
        assert shown["balls_measured"] > 0, condition
        assert shown["lost"] == 0, (condition, shown)
        assert shown["p50_ms"] <= shown["p99_ms"] <= shown["max_ms"], condition
        assert shown["rss_mb"] > 0 and shown["threads"] >= 1, condition
        assert len(shown["load"]) == 2, condition
    assert figures["heavy"]["heavy_gets"] > 0
    assert figures["heavy"]["heavy_failed"] == 0
    assert figures["odds"]["odds_balls"] > 0
    assert figures["odds"]["odds_never_arrived"] < figures["odds"]["odds_balls"]


def need_socat() -> None:
    if shutil.which("socat") is None:  # the scorers' serial cables are socat pty pairs
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")


def test_quick_run_on_the_threaded_worker_prints_every_condition():
    need_socat()
    result = run_benchmark("worker_model", "--quick", "--workers", "threads", timeout=420)
    assert result["conditions"] == list(CONDITIONS)
    assert_every_condition_measured(result["run1.threads"])


@pytest.mark.skipif(importlib.util.find_spec("gevent") is None,
                    reason="gevent is not installed: it is deliberately not a dependency of the "
                           "project (installed, Flask-SocketIO would pick it wherever no async "
                           "mode is named), so CI runs only the threaded half; "
                           "`pip install gevent` to run this one")
def test_quick_run_on_the_gevent_worker_prints_every_condition():
    need_socat()
    result = run_benchmark("worker_model", "--quick", "--workers", "gevent", timeout=420)
    figures = result["run1.gevent"]
    assert_every_condition_measured(figures)
    assert figures["quiet"]["threads"] == 1  # one OS thread: the greenlets' hub
