"""``alley-poker serve`` as a real process: config, PIN, pages answering, a clean SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import serve_output_until_serving
from tests.web.conftest import PROJECT_ROOT, free_port, serve_config


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "alley.toml"
    # Nobody listens on the feed's port: the feed keeps retrying quietly.
    path.write_text(serve_config(tmp_path / "data" / "alley.sqlite3",
                                 f"socket://127.0.0.1:{free_port()}"), encoding="utf-8")
    return path


def run_serve(config: Path, port: int, pin: str | None) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items()
           if key != "ALLEY_POKER_COMMISSIONER_PIN"}
    if pin is not None:
        env["ALLEY_POKER_COMMISSIONER_PIN"] = pin
    return subprocess.Popen(
        [sys.executable, "-m", "alley_poker.cli", "serve", "--config", str(config),
         "--port", str(port)],
        cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.slow
def test_serve_answers_the_kiosk_and_stops_cleanly_on_sigterm(config_file, tmp_path):
    port = free_port()
    process = run_serve(config_file, port, pin="2468")
    try:
        output = serve_output_until_serving(process)
        assert f"http://127.0.0.1:{port}/kiosk/1-2" in output, output
        assert f"http://127.0.0.1:{port}/kiosk/3-4" in output
        assert f"http://127.0.0.1:{port}/commissioner" in output

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/kiosk/1-2", timeout=5) as page:
            assert page.status == 200
            assert "Lanes <strong>1-2</strong>" in page.read().decode()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/matches",
                                    timeout=5) as api:
            assert api.status == 200
        assert (tmp_path / "data" / "alley.sqlite3").exists(), "the ledger is on disk"

        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=15)
        assert process.returncode == 0, rest
        assert "SIGTERM: stopping" in rest and "stopped" in rest
        assert "Traceback" not in output + rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_serve_refuses_to_start_without_a_commissioner_pin(config_file):
    process = run_serve(config_file, free_port(), pin=None)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 1
    assert "ALLEY_POKER_COMMISSIONER_PIN" in output
    assert "Traceback" not in output


@pytest.mark.slow
def test_serve_names_the_problem_in_a_broken_config(tmp_path):
    broken = tmp_path / "alley.toml"
    broken.write_text('[centre]\nname = "Test Lanes"\nlanes = 1\n', encoding="utf-8")
    process = run_serve(broken, free_port(), pin="2468")
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 1
    assert "centre.lanes" in output and str(broken) in output
    assert "Traceback" not in output
