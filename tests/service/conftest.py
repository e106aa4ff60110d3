"""Fixtures for the service: a real store on SQLite and real pty pairs from socat."""

from __future__ import annotations

import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from alley_poker.service import open_service
from tests.conftest import skip_or_fail


@pytest.fixture
def store_service(tmp_path):
    """An AlleyService over a real SQLite event store in ``tmp_path`` (seeded shuffles)."""
    seeds = random.Random(2026)
    service = open_service(f"sqlite:///{tmp_path / 'alley.sqlite3'}",
                           rng_factory=lambda: random.Random(seeds.random()))
    yield service
    service.repository.store.close()


@pytest.fixture
def pty_pair(tmp_path):
    """Two linked pseudo-terminals from socat: (writer end, reader end) paths."""
    if shutil.which("socat") is None:
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")
    writer_end, reader_end = tmp_path / "scorer", tmp_path / "alley"
    process = subprocess.Popen(
        ["socat", f"pty,raw,echo=0,link={writer_end}", f"pty,raw,echo=0,link={reader_end}"],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 5
    while not (Path(writer_end).exists() and Path(reader_end).exists()):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            pytest.fail("socat did not create the pty pair within 5 s")
        time.sleep(0.02)
    yield str(writer_end), str(reader_end)
    process.kill()
    process.wait()
