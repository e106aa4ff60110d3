"""What ``serve`` would trip on, seen first by ``doctor`` (real processes), and a ``serve``
that meets a ledger file of garbage saying so instead of dying in its worker."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.web.conftest import PROJECT_ROOT, free_port

PIN = "135790"


def alley_poker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("ALLEY_POKER_")}
    env["ALLEY_POKER_COMMISSIONER_PIN"] = PIN
    env["TZ"] = "America/Chicago"
    return subprocess.run([sys.executable, "-m", "alley_poker.cli", *args], cwd=PROJECT_ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)


def set_up(tmp_path: Path, port: int) -> Path:
    centre = tmp_path / "north"
    made = alley_poker("init", str(centre), "--name", "North Lanes", "--lanes", "4",
                       "--no-feed", "--time-zone", "America/Chicago", "--pin", PIN,
                       "--port", str(port))
    assert made.returncode == 0, made.stdout + made.stderr
    return centre


def doctor(centre: Path) -> subprocess.CompletedProcess:
    return alley_poker("doctor", "--config", str(centre / "config" / "alley.toml"))


@pytest.mark.slow
def test_a_ledger_of_garbage_is_named_by_doctor_and_refused_by_serve_without_a_traceback(
        tmp_path):
    port = free_port()
    centre = set_up(tmp_path, port)
    ledger = centre / "var" / "alley-poker.sqlite3"
    ledger.write_bytes(b"\x00garbage, not a database\n" * 500)

    checked = doctor(centre)
    assert checked.returncode == 1, checked.stdout
    assert f"The ledger {ledger} is not a SQLite database" in checked.stdout, checked.stdout

    served = alley_poker("serve", "--config", str(centre / "config" / "alley.toml"),
                         "--port", str(port))
    said = served.stdout + served.stderr
    assert served.returncode == 1, said
    assert f"the ledger {ledger} is not a SQLite database" in said, said
    assert "Restore the newest copy from" in said and "backups" in said
    assert "Traceback" not in said
    assert ledger.read_bytes().startswith(b"\x00garbage"), "the file is left as it was"


@pytest.mark.slow
def test_doctor_names_the_process_holding_the_centres_port(tmp_path):
    port = free_port()
    centre = set_up(tmp_path, port)
    assert doctor(centre).returncode == 0
    holder = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "0.0.0.0"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and holder.poll() is None, "no listener"
                time.sleep(0.1)
        checked = doctor(centre)
    finally:
        holder.terminate()
        holder.wait(timeout=10)
    assert checked.returncode == 1, checked.stdout
    assert f"Port {port} is taken by process {holder.pid} (" in checked.stdout, checked.stdout
    assert "http.server" in checked.stdout
    assert "Connection in use" in checked.stdout
