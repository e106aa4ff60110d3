"""``GET /metrics`` scraped while the demo night runs: the counters move."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.test_demo import PROJECT_ROOT, _alley_poker_command, _Output
from tests.web.conftest import free_port


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"{base}/metrics", timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def total(samples: dict, name: str, **labels: str) -> float:
    return sum(value for (sample, got), value in samples.items()
               if sample == name and all((key, want) in got for key, want in labels.items()))


@pytest.mark.slow
def test_metrics_move_while_the_demo_night_is_dealt(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        [*_alley_poker_command(), "demo", "--port", str(port), "--speed", "40", "--seed", "4",
         "--exit-when-done", "--database", str(tmp_path / "demo.sqlite3")],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output = _Output(process.stdout)
    try:
        base = output.wait_for(r"kiosks: (http://127\.0\.0\.1:\d+)/kiosk/1-2", 30).group(1)
        deadline = time.monotonic() + 30
        first = scrape(base)
        while total(first, "alley_feed_balls_total", outcome="taken") == 0:
            assert time.monotonic() < deadline, "no ball counted"
            time.sleep(0.3)
            first = scrape(base)
        time.sleep(2.0)
        second = scrape(base)
        assert process.poll() is None, "the night ended before the second scrape"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)

    taken = (total(first, "alley_feed_balls_total", outcome="taken"),
             total(second, "alley_feed_balls_total", outcome="taken"))
    assert taken[1] > taken[0] > 0, taken
    published = (total(first, "alley_ball_publish_seconds_count"),
                 total(second, "alley_ball_publish_seconds_count"))
    assert published[1] > published[0], published
    assert total(second, "alley_feed_lines_total", outcome="ok") > 0
    # The demo's one feed is read: "ok" is its state, the only one set.
    assert total(second, "alley_feed_state", alley_feed_state="ok") >= 1
    assert total(second, "alley_feed_state", alley_feed_state="down") == 0
    for gauge in ("alley_held_balls", "alley_open_decisions", "alley_socket_clients"):
        assert any(name == gauge for name, _labels in second), f"{gauge} not shown"
    assert total(second, "process_resident_memory_bytes") > 10e6
