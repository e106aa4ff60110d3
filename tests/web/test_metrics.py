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


def test_a_ball_moves_the_ball_and_odds_metrics_on_a_served_centre(tmp_path):
    """In one process, as ``serve`` wires it: a ball handed over as a feed hands it is counted
    and timed, and its odds' lag is observed."""
    from alley_poker.config import load_config_text
    from alley_poker.ledger.commands import ConsentToAnte, StartMatch
    from alley_poker.serving.centre_servers import AlleyServer
    from drivers.base import BallRecorded

    config = load_config_text(
        f'[centre]\nname = "T"\nlanes = 2\n[database]\nurl = "sqlite:///{tmp_path}/l.db"\n'
        "[backup]\nenabled = false\n[odds]\nenabled = true\niterations = 20\n"
        "processes = 0\n", env={})
    server = AlleyServer(config, listen=False)
    try:
        service = server.service
        service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor="commissioner:t")
        for bowler in ("Ann", "Bob"):
            service.execute("m1", ConsentToAnte(bowler, actor="commissioner:t"))
        service.execute("m1", StartMatch(actor="commissioner:t"))
        handle = server.metrics.counting(service.handle_lane_event)
        assert handle(BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=10,
                                   source="scorer")) is False
        assert handle(BallRecorded(lane=1, bowler=1, game=2, frame=1, ball=1, pins=3,
                                   source="scorer")) is True  # no game 2: refused
        client = server.app.test_client()

        def scraped() -> dict:
            text = client.get("/metrics").get_data(as_text=True)
            return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
                    for family in text_string_to_metric_families(text)
                    for sample in family.samples}

        deadline = time.monotonic() + 20
        while total(found := scraped(), "alley_odds_settled_lag_seconds_count") < 1:
            assert time.monotonic() < deadline, "no settled odds lag observed"
            time.sleep(0.1)
        assert total(found, "alley_odds_lag_seconds_count") >= 1
        assert total(found, "alley_feed_balls_total", feed="scorer", outcome="taken") == 1
        assert total(found, "alley_feed_balls_total", feed="scorer", outcome="refused") == 1
        assert total(found, "alley_ball_publish_seconds_count") == 1
        assert total(found, "alley_held_balls") == 1  # the refused ball waits at the desk
        # Nothing is left waiting for its odds: the held ball's push may ask for the same
        # state's odds again a moment after the first settled, so wait for that one too.
        while total(found, "alley_odds_waiting_seconds") != 0:
            assert time.monotonic() < deadline, "odds still waiting"
            time.sleep(0.1)
            found = scraped()
    finally:
        server.stop()
