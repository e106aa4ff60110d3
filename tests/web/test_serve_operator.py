"""What the operator reads from ``alley-poker serve`` (a real process): a quiet scheduler, a
warning when the demo configuration is served, a serial device error that says what to check,
and a favicon so the pages leave no 404 behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import serve_output_until_serving
from tests.web.conftest import PROJECT_ROOT, free_port, serve_config

# The feed check runs every 0.25 s: a chatty scheduler would show at once.
HEARTBEAT = "heartbeat_s = 0.5\n"


def serve(args: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, ALLEY_POKER_COMMISSIONER_PIN="2468")
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    return subprocess.Popen([sys.executable, "-m", "alley_poker.cli", "serve", *args],
                            cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def until_serving(process: subprocess.Popen) -> str:
    output = serve_output_until_serving(process)
    assert "press Ctrl-C" in output, "serve stopped before serving:\n" + output
    return output


def stop(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGTERM)
    rest, _ = process.communicate(timeout=15)
    assert process.returncode == 0, rest
    return rest


@pytest.mark.slow
def test_serve_logs_changes_not_every_check_and_says_what_to_check_on_a_missing_device(
        tmp_path):
    device = tmp_path / "ttyUSB-missing"
    config = tmp_path / "alley.toml"
    config.write_text(serve_config(tmp_path / "alley.sqlite3", device, HEARTBEAT),
                      encoding="utf-8")
    port = free_port()
    process = serve(["--config", str(config), "--port", str(port)], PROJECT_ROOT)
    try:
        output = until_serving(process)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=5) as icon:
            assert icon.status == 200 and icon.headers["Content-Type"].startswith("image/")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/commissioner", timeout=5) as page:
            linked = re.search(r'<link rel="icon" href="([^"]+)"', page.read().decode())
        assert linked, "the pages link no icon"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{linked.group(1)}",
                                    timeout=5) as icon:
            assert icon.status == 200 and b"<svg" in icon.read()
        time.sleep(2.0)  # eight feed checks
        output += stop(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Running job" not in output and "executed successfully" not in output, output
    # The missing device is reported once, with what to look at.
    reported = [line for line in output.splitlines() if f"cannot open {device}" in line]
    assert len(reported) == 1, output
    for hint in (str(device), "dialout", "ls -l", "cable"):
        assert hint in reported[0]
    assert " 404 " not in output
    assert "DEMO" not in output  # a configuration was given


@pytest.mark.slow
def test_serve_without_a_config_file_warns_it_is_serving_the_demo_lanes(tmp_path):
    process = serve(["--port", str(free_port())], tmp_path)  # no config/alley.toml here
    try:
        output = until_serving(process)
        output += stop(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "WARNING: no config/alley.toml here, so this serves the DEMO lanes" in output
    assert "--config" in output
