"""An installed (non-editable) Alley Poker works without the checkout.

The project is built into a wheel, installed with ``pip install --no-deps --target`` into a
temporary folder, and run from a working directory outside the checkout, with that folder
first on ``PYTHONPATH`` (its dependencies come from the project's venv).  The shared venv
holds an *editable* install of the checkout, but its finder comes after the path finder, so
the installed copy wins; every test checks that the modules really come from the install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from filelock import FileLock

from tests.conftest import serve_output_until_serving, skip_or_fail, stop_serving
from tests.ports import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def built_wheel(tmp_path_factory) -> Path:
    """The project's wheel, built once per run: pytest-xdist workers share the run's temporary
    root, and take turns (a file lock) so that only the first builds in the checkout (a
    build writes build/ and *.egg-info there; two at once would trip over each other)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's root, above each worker's own folder
    wheels = shared / "alley-poker-wheel"
    with FileLock(shared / "alley-poker-wheel.lock"):
        if not list(wheels.glob("alley_poker-*.whl")):
            build = subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w",
                 str(wheels), str(PROJECT_ROOT)],
                capture_output=True, text=True, timeout=300)
            if build.returncode != 0:
                skip_or_fail(f"cannot build the wheel (no package index for setuptools?): "
                             f"{build.stderr[-800:]}")
    (wheel,) = wheels.glob("alley_poker-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The project built into a wheel, once for the whole run."""
    return built_wheel(tmp_path_factory)


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheel: Path) -> Path:
    """The folder the wheel was installed into (``--target``)."""
    site = tmp_path_factory.mktemp("installed") / "site"
    install = subprocess.run(
        # --no-compile: the tests import a few modules of the install, which Python compiles
        # as it imports them; pip would compile every module first.
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--no-compile",
         "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    return site


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working directory with no checkout in sight (no config/, no kiosk/)."""
    directory = tmp_path / "elsewhere"
    directory.mkdir()
    return directory


def installed_env(site: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ALLEY_POKER_", "PYTHON"))}
    env.update(PYTHONPATH=str(site), PYTHONNOUSERSITE="1", **extra)
    return env


def run_python(site: Path, cwd: Path, code: str) -> dict:
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=installed_env(site),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_installed_package_carries_its_defaults_and_kiosk(installed: Path, outside: Path):
    found = run_python(installed, outside, """
import json
import alley_poker, drivers, kiosk
from alley_poker.config import load_config, default_config_path
from alley_poker.ledger.rules import DEFAULT_RULES_PATH, RuleBook
config = load_config(env={})
book = RuleBook.default()
print(json.dumps({
    "modules": [alley_poker.__file__, drivers.__file__, kiosk.__file__],
    "config": str(default_config_path()), "centre": config.centre.name,
    "backup_keep": config.backup.keep,
    "rules_file": str(DEFAULT_RULES_PATH), "rules": book.name, "streak_cap": book.streak_cap,
    "named": str(config.rules.default_path()),
}))
""")
    site = str(installed)
    assert all(path.startswith(site) for path in found["modules"]), found["modules"]
    assert found["config"].startswith(site) and found["centre"]
    assert found["backup_keep"] >= 1
    assert found["rules_file"].startswith(site) and found["named"] == found["rules_file"]
    assert found["rules"] == "house-rev-1.2" and found["streak_cap"] == 3


def test_the_installed_demo_runs_from_outside_the_checkout(installed: Path, outside: Path):
    script = installed / "bin" / "alley-poker"
    result = subprocess.run(
        [str(script), "demo", "--speed", "0", "--port", "0", "--exit-when-done", "--seed", "3",
         "--database", str(outside / "demo.sqlite3")],
        cwd=outside, env=installed_env(installed), capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "/kiosk/1-2" in result.stdout and "Traceback" not in result.stderr
    assert (outside / "demo.sqlite3").exists()


def fetch(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read()


def test_installed_serve_serves_the_kiosk_and_its_vendored_client(installed: Path,
                                                                   outside: Path):
    port = free_port()
    env = installed_env(
        installed, ALLEY_POKER_COMMISSIONER_PIN="2468",
        ALLEY_POKER_DATABASE_URL=f"sqlite:///{outside / 'ledger.sqlite3'}")
    process = subprocess.Popen(
        [str(installed / "bin" / "alley-poker"), "serve", "--port", str(port)],
        cwd=outside, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        deadline = time.monotonic() + 60
        for line in process.stdout:
            lines.append(line)
            if "press Ctrl-C" in line or time.monotonic() > deadline:
                break
        assert any("serving on" in line for line in lines), "".join(lines)
        status, page = fetch(f"http://127.0.0.1:{port}/kiosk/1-2")
        assert status == 200 and b"/static/vendor/socket.io.min.js" in page
        status, client = fetch(f"http://127.0.0.1:{port}/static/vendor/socket.io.min.js")
        assert status == 200 and len(client) > 10_000
        status, _script = fetch(f"http://127.0.0.1:{port}/static/kiosk.js")
        assert status == 200
        status, _sign_in = fetch(f"http://127.0.0.1:{port}/commissioner")
        assert status == 200
    finally:
        stop_serving(process, timeout=15)
    assert process.returncode == 0


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory, wheel: Path) -> Path:
    """A new virtual environment holding only the wheel and the dependencies it declares.

    The test venv's pip installs into it (``--python``), so the new one needs no pip of its
    own (ensurepip's install and compile of pip); nor are the dependencies compiled ahead of
    the few modules the commands import (docs/performance.md "The suite after issue 39")."""
    venv = tmp_path_factory.mktemp("clean") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "--quiet", "--no-compile", str(wheel)],
        capture_output=True, text=True, timeout=600)
    if install.returncode != 0:
        skip_or_fail(f"cannot install the wheel's dependencies (no package index?): "
                     f"{install.stderr[-800:]}")
    return venv


def test_init_then_doctor_then_serve_from_a_clean_venv(clean_venv: Path, outside: Path):
    """What a centre's computer person does: set up in one command, check it, serve it."""
    command = str(clean_venv / "bin" / "alley-poker")
    env = installed_env(Path("/nonexistent"))
    env.pop("PYTHONPATH")
    port = free_port()
    centre = outside / "north"
    init = subprocess.run(
        [command, "init", str(centre), "--name", "North Lanes", "--lanes", "4", "--no-feed",
         "--time-zone", "America/Chicago", "--port", str(port)],
        input="246813\n246813\n", cwd=outside, env=env, capture_output=True, text=True,
        timeout=120)
    assert init.returncode == 0, init.stdout + init.stderr
    assert "systemd-analyze verify says" not in init.stdout, init.stdout
    config = centre / "config" / "alley.toml"

    doctor = subprocess.run([command, "doctor", "--config", str(config)], cwd=outside, env=env,
                            capture_output=True, text=True, timeout=120)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "looks right" in doctor.stdout

    from alley_poker.setup_centre.doctor import read_env_file

    served_env = {**env, **read_env_file(centre / "alley-poker.env")}
    process = subprocess.Popen(
        [command, "serve", "--config", str(config), "--port", str(port)],
        cwd=centre, env=served_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output = serve_output_until_serving(process)
        assert "North Lanes: serving on" in output, output
        assert "Using worker: BufferingThreadWorker" in output, output
        status, body = fetch(f"http://127.0.0.1:{port}/healthz")
        assert status == 200 and json.loads(body)["ok"] is True
        status, metrics = fetch(f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and b"alley_socket_clients" in metrics
    finally:
        rest = stop_serving(process, timeout=30)
    assert process.returncode == 0, rest
    assert "Traceback" not in output + rest
    assert (centre / "var" / "alley-poker.sqlite3").exists()
