"""The files ``init``, ``serve`` and ``backup`` write are their owner's only (real processes).

Each command runs as a real subprocess from a shell whose umask is the usual 022 (the one that
left the ledger, its WAL and the backups 0644 in a 0755 folder, readable by every user of
the machine: the deal seeds of matches in play with them).  Every file under the centre's
folder is then looked at while ``serve`` runs and after it stopped.  ``serve`` also runs with
writable-and-executable memory refused (Linux's ``PR_SET_MDWE``, what the units'
``MemoryDenyWriteExecute=yes`` asks for), so a served centre that needs it fails here first.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import serve_output_until_serving
from tests.web.conftest import PROJECT_ROOT, free_port

PIN = "135790"
PR_SET_MDWE, PR_GET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 66, 1


def loose_umask() -> None:
    os.umask(0o022)


def loose_umask_and_no_writable_code() -> None:
    loose_umask()
    ctypes.CDLL(None).prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0)


def mdwe_supported() -> bool:
    return ctypes.CDLL(None).prctl(PR_GET_MDWE, 0, 0, 0, 0) >= 0


def command(*args: str, preexec=loose_umask, **popen) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("ALLEY_POKER_")}
    env["ALLEY_POKER_COMMISSIONER_PIN"] = PIN
    return subprocess.Popen([sys.executable, "-m", "alley_poker.cli", *args],
                            cwd=PROJECT_ROOT, env=env, preexec_fn=preexec, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **popen)


def run(*args: str) -> str:
    process = command(*args)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output
    return output


def modes(directory: Path) -> dict[str, tuple[int, bool]]:
    """Every file and folder under ``directory`` (itself too): its mode, and whether a folder."""
    found = {".": (stat.S_IMODE(directory.stat().st_mode), True)}
    for path in directory.rglob("*"):
        info = path.lstat()
        found[str(path.relative_to(directory))] = (stat.S_IMODE(info.st_mode),
                                                   stat.S_ISDIR(info.st_mode))
    return found


#: What ``init`` leaves open on purpose: the service's user goes through the centre's folder
#: and reads the configuration as its group; the units hold no secret.
MEANT_OPEN = {".": 0o755, "systemd": 0o755, "config": 0o750, "config/alley.toml": 0o640}


def wrongly_open(found: dict[str, tuple[int, bool]]) -> dict[str, str]:
    """Every file not 0600 and folder not 0700, but for what is meant to be open."""
    wrong = {}
    for path, (mode, folder) in found.items():
        wanted = MEANT_OPEN.get(path) or (0o644 if path.startswith("systemd/") else
                                          0o700 if folder else 0o600)
        if mode != wanted:
            wrong[path] = f"{mode:04o}, wanted {wanted:04o}"
    return wrong


@pytest.mark.slow
def test_init_serve_and_backup_write_every_file_for_their_owner_only(tmp_path):
    centre = tmp_path / "north"
    run("init", str(centre), "--name", "North Lanes", "--lanes", "4", "--no-feed",
        "--time-zone", "America/Chicago", "--pin", PIN)
    ledger = centre / "var" / "alley-poker.sqlite3"
    assert not ledger.exists()

    port = free_port()
    no_writable_code = mdwe_supported()
    serve = command("serve", "--config", str(centre / "config" / "alley.toml"),
                    "--port", str(port),
                    preexec=loose_umask_and_no_writable_code if no_writable_code
                    else loose_umask)
    try:
        output = serve_output_until_serving(serve)
        assert serve.poll() is None, output
        for page in ("/kiosk/1-2", "/commissioner", "/api/v1/matches", "/healthz"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=10) as got:
                assert got.status == 200, page
        said = run("backup", "--config", str(centre / "config" / "alley.toml"))
        assert "copied the ledger to" in said, said

        while_serving = modes(centre)
        assert {"var/alley-poker.sqlite3", "var/alley-poker.sqlite3-wal",
                "var/alley-poker.sqlite3-shm", "var/alley-poker.sqlite3-open.lock",
                "alley-poker.env"} <= set(while_serving), sorted(while_serving)
        assert any(path.startswith("var/backups/ledger-") for path in while_serving)
        assert wrongly_open(while_serving) == {}, while_serving

        serve.send_signal(signal.SIGTERM)
        rest, _ = serve.communicate(timeout=30)
        assert serve.returncode == 0, output + rest
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    after = modes(centre)
    assert wrongly_open(after) == {}, after
    assert "Traceback" not in output + rest
