"""Every process of a scaled-out centre shows its own metrics: web on ``/metrics``, the
worker on ``--metrics-port`` (active or standing by)."""

from __future__ import annotations

import time

import pytest
import requests
import socketio
from prometheus_client.parser import text_string_to_metric_families

from tests.scale.conftest import write_config
from tests.web.conftest import free_port


def samples(url: str) -> dict[tuple[str, tuple], float]:
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.text)
            for sample in family.samples}


def value(found: dict, name: str, **labels: str) -> float | None:
    for (sample, got), number in found.items():
        if sample == name and all((key, want) in got for key, want in labels.items()):
            return number
    return None


@pytest.mark.slow
def test_web_and_worker_processes_each_expose_their_metrics(cluster, centre, pty_pair,
                                                              tmp_path):
    config = write_config(tmp_path / "alley.toml", centre=centre, feed_url=pty_pair.reader_path)
    active_port, standby_port = free_port(), free_port()
    active = cluster._start(["worker", "--config", str(config), "--poll", "0.25",
                             "--metrics-port", str(active_port)], "worker")
    active.wait_for(r"active for centre")
    standby = cluster._start(["worker", "--config", str(config), "--poll", "0.25",
                              "--metrics-port", str(standby_port)], "worker")
    standby.wait_for(r"standing by for centre")
    _web, base = cluster.web(config)

    worker_metrics = samples(f"http://127.0.0.1:{active_port}/metrics")
    assert value(worker_metrics, "alley_worker_active") == 1
    assert value(worker_metrics, "alley_feed_state", feed="scorer") is not None
    assert value(worker_metrics, "alley_open_decisions") == 0
    assert value(worker_metrics, "alley_held_balls") == 0
    standby_metrics = samples(f"http://127.0.0.1:{standby_port}/metrics")
    assert value(standby_metrics, "alley_worker_active") == 0
    assert value(standby_metrics, "alley_feed_state") is None  # it reads no feed

    assert value(samples(f"{base}/metrics"), "alley_socket_clients") == 0
    kiosk = socketio.Client(reconnection=False)
    kiosk.connect(base, transports=["websocket"], wait_timeout=10)
    try:
        deadline = time.monotonic() + 10
        while value(samples(f"{base}/metrics"), "alley_socket_clients") != 1:
            assert time.monotonic() < deadline, "the kiosk is not counted"
            time.sleep(0.2)
    finally:
        kiosk.disconnect()
