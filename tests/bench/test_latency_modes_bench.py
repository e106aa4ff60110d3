"""Smoke tests of the latency benchmark's odds mode and scaled-out mode: each runs briefly
end to end (real service processes, ptys, Socket.IO kiosks; PostgreSQL and Redis scaled out)
and prints its figures — checked for being there, never for how fast they are."""

from __future__ import annotations

import shutil

import pytest

from tests.bench.conftest import run_benchmark
from tests.conftest import skip_or_fail
from tests.scale.conftest import redis_url  # noqa: F401 (fixture)
from tests.store.conftest import postgres_admin_engine, postgres_admin_url  # noqa: F401

pytestmark = pytest.mark.bench

BALL_FIGURES = ("balls_measured", "p50_ms", "p95_ms", "p99_ms", "max_ms", "lost",
                "peak_rss_mb", "service_cpu_pct")
ODDS_FIGURES = ("odds_p50_ms", "odds_p95_ms", "odds_p99_ms", "odds_max_ms",
                "odds_superseded_share", "odds_never_arrived", "odds_mean_iterations",
                "odds_pool_peak_rss_mb", "peak_rss_with_pool_mb")


def assert_each_run_measured(result: dict, by: str, runs: tuple[str, ...]) -> None:
    """Each of ``runs`` (a figure set in ``result`` named by its ``by`` value) has every
    ball figure, lost no ball and measured some."""
    for run in runs:
        figures = result[run]
        assert figures[by] == run
        for key in BALL_FIGURES:
            assert key in figures, (run, key)
        assert figures["lost"] == 0, run
        assert figures["balls_measured"] > 0


@pytest.fixture
def socat() -> None:
    if shutil.which("socat") is None:
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")


@pytest.mark.usefixtures("socat")
def test_the_odds_mode_prints_the_balls_and_the_odds_figures():
    # 20 iterations (the least the config allows) keeps the smoke run's odds coming.
    result = run_benchmark("latency", "--quick", "--odds", "--odds-iterations", "20",
                           timeout=300)
    for key in (*BALL_FIGURES, *ODDS_FIGURES):
        assert key in result, key
    assert result["lost"] == 0
    assert result["odds_messages_received"] > 0, "no odds reached any kiosk"
    assert result["odds_mean_iterations"] > 0
    assert result["odds_pool_processes"] >= 1


@pytest.mark.usefixtures("socat")
def test_both_deployments_print_their_figures_and_the_ratios(
        postgres_admin_engine, redis_url):  # noqa: F811
    result = run_benchmark("latency", "--quick", "--deployment", "both",
                           "--pg-url", postgres_admin_url(), "--redis-url", redis_url,
                           timeout=300)
    assert_each_run_measured(result, "deployment", ("single", "scaled"))
    assert set(result["scaled"]["processes"]) == {"worker", "web1", "web2"}
    assert set(result["scaled_over_single"]) == {"p50", "p95", "p99"}


@pytest.mark.usefixtures("socat")
def test_both_servers_in_one_run_print_their_figures_and_the_ratios():
    result = run_benchmark("latency", "--quick", "--server", "both", timeout=300)
    assert_each_run_measured(result, "server", ("werkzeug", "gunicorn"))
    assert set(result["gunicorn_over_werkzeug"]) == {"p50", "p95", "p99", "service_cpu_pct"}
