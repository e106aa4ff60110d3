"""Fixtures for the scale-out tests: real PostgreSQL, real Redis, real subprocesses.

Each test gets a schema of its own on the test PostgreSQL server (via ``search_path``) and a
centre id of its own (so its Redis channels and Socket.IO rooms are its own), and starts
``alley-poker web`` / ``alley-poker worker`` processes exactly as a deployment would, with
the configuration in a file and the secrets in the environment.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.store.conftest import (  # noqa: F401 (fixtures)
    new_postgresql_url,
    postgres_admin_engine,
    postgresql_url,
)
from tests.web.conftest import PIN, free_port

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379/0"
SECRET_KEY = "scale-test-secret-key-0123456789abcdef"


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    url = os.environ.get("ALLEY_POKER_TEST_REDIS_URL") or DEFAULT_TEST_REDIS_URL
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except Exception as error:  # any reason at all: the part is missing
        skip_or_fail(f"Redis unreachable at {url}: {error}")
    finally:
        client.close()
    return url


@pytest.fixture
def centre() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def write_config(path: Path, *, centre: str, feed_url: str | None = None,
                 odds: str = "enabled = false") -> Path:
    """A centre's alley.toml; the database and Redis URLs come from the environment.

    The live odds are off unless a test is about them (``odds``: the ``[odds]`` keys): a
    worker's odds pool is two processes working out every ball's odds at a low priority,
    which still take their share of the two cores the suite's other tests are waiting for."""
    feeds = "" if feed_url is None else (
        f'[[feeds]]\nname = "scorer"\nurl = "{feed_url}"\nlanes = [1, 2, 3, 4]\n'
        "heartbeat_s = 5\n")
    path.write_text(f'[centre]\nid = "{centre}"\nname = "Scale Test Lanes"\nlanes = 4\n'
                    f"[odds]\n{odds}\n{feeds}", encoding="utf-8")
    return path


class Process:
    """An ``alley-poker`` subprocess whose stdout lines can be waited for."""

    def __init__(self, args: list[str], env: dict[str, str], log_path: Path) -> None:
        self.args = args
        self.log_path = log_path
        self._stderr = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 (closed in kill)
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "alley_poker.cli", *args], cwd=PROJECT_ROOT, env=env,
            stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.popen.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        """The first stdout line (from now on, or already seen) matching ``pattern``."""
        regex = re.compile(pattern)
        for line in self.seen:
            if found := regex.search(line):
                return found
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=min(left, 0.2))
            except queue.Empty:
                if self.popen.poll() is not None and self.lines.empty():
                    break
                continue
            self.seen.append(line)
            if found := regex.search(line):
                return found
        raise AssertionError(
            f"alley-poker {' '.join(self.args)}: no line matching {pattern!r} in {timeout} s "
            f"(exit {self.popen.poll()}); stdout {self.seen[-10:]}; stderr tail:\n"
            + self.log_path.read_text(encoding="utf-8")[-3000:])

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as a crash or the OOM killer would."""
        if self.popen.poll() is None:
            os.kill(self.popen.pid, signal.SIGKILL)
        self.popen.wait(10)
        self._stderr.close()


class Cluster:
    """Starts a centre's web and worker processes; kills every one it started."""

    def __init__(self, tmp_path: Path, *, database_url: str, redis_url: str) -> None:
        self.tmp_path = tmp_path
        self.env = {**os.environ,
                    "ALLEY_POKER_DATABASE_URL": database_url,
                    "ALLEY_POKER_REDIS_URL": redis_url,
                    "ALLEY_POKER_COMMISSIONER_PIN": PIN,
                    "ALLEY_POKER_SECRET_KEY": SECRET_KEY,
                    "PYTHONUNBUFFERED": "1"}
        self.processes: list[Process] = []

    def _start(self, args: list[str], name: str) -> Process:
        process = Process(args, self.env, self.tmp_path / f"{name}-{len(self.processes)}.log")
        self.processes.append(process)
        return process

    def web(self, config: Path, *, wait: bool = True) -> tuple[Process, str]:
        """A web process (serving, unless ``wait`` is False); returns it and its base URL."""
        port = free_port()
        process = self._start(["web", "--config", str(config), "--port", str(port)], "web")
        if wait:
            process.wait_for(r"web process serving on")
        return process, f"http://127.0.0.1:{port}"

    def worker(self, config: Path, *, poll_s: float = 0.25) -> Process:
        return self._start(["worker", "--config", str(config), "--poll", str(poll_s)], "worker")

    def scaled_out(self, config: Path) -> list[str]:
        """A worker and two web processes of one centre, started together and waited for
        (the worker active, both serving); the web processes' base URLs."""
        worker = self.worker(config)
        webs = [self.web(config, wait=False) for _ in range(2)]
        worker.wait_for(r"active for centre")
        for process, _ in webs:
            process.wait_for(r"web process serving on")
        return [base_url for _, base_url in webs]

    def stop(self) -> None:
        for process in self.processes:
            process.kill()


@pytest.fixture
def cluster(tmp_path: Path, postgresql_url: str, redis_url: str) -> Iterator[Cluster]:  # noqa: F811
    running = Cluster(tmp_path, database_url=postgresql_url, redis_url=redis_url)
    yield running
    running.stop()
