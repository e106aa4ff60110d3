"""The real service for a benchmark: ``alley-poker serve`` as a subprocess over a SQLite store.

:func:`write_config` writes the centre's ``alley.toml`` (lanes, feeds, database);
:class:`ServiceProcess` starts ``python -m alley_poker.cli serve`` with it, waits until the
JSON API answers, reads the process's peak resident memory from ``/proc`` and stops it with
SIGTERM (SIGKILL if it hangs).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_PIN = "bench-2468"


def write_config(path: Path, *, lanes: int, database_url: str,
                 feeds: Sequence[tuple[str, str, Sequence[int]]] = ()) -> Path:
    """An ``alley.toml`` for ``lanes`` lanes; ``feeds`` are (name, serial URL, lanes carried)."""
    text = [
        "[centre]", 'name = "Benchmark Lanes"', f"lanes = {lanes}", "",
        "[database]", f"url = {json.dumps(database_url)}", "",
        "[backup]", "enabled = false", "",
    ]
    for name, url, carried in feeds:
        text += ["[[feeds]]", f"name = {json.dumps(name)}", f"url = {json.dumps(url)}",
                 'dialect = "apf1"', f"lanes = {list(carried)}", "heartbeat_s = 60", ""]
    path.write_text("\n".join(text), encoding="utf-8")
    return path


class ServiceProcess:
    """``alley-poker serve --config CONFIG`` in a subprocess, working in ``workdir``."""

    def __init__(self, config: Path, workdir: Path, *, port: int = 0,
                 sample_stacks_to: str | None = None):
        self.config = config
        self.sample_stacks_to = sample_stacks_to
        self.workdir = workdir
        self.port = port
        self.process: subprocess.Popen[str] | None = None
        self.base_url = ""
        self.started_at = 0.0
        self._output: list[str] = []
        self._serving = threading.Event()

    def start(self) -> ServiceProcess:
        env = dict(os.environ, ALLEY_POKER_COMMISSIONER_PIN=BENCH_PIN, PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH"))
                                            if p)
        self.started_at = time.monotonic()
        program = (["-m", "benchmarks._sampled_serve", self.sample_stacks_to]
                   if self.sample_stacks_to else ["-m", "alley_poker.cli"])
        self.process = subprocess.Popen(
            [sys.executable, *program, "serve", "--config", str(self.config),
             "--port", str(self.port)],
            cwd=self.workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        threading.Thread(target=self._read_output, name="service-output", daemon=True).start()
        return self

    def _read_output(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self._output.append(line.rstrip("\n"))
            if not self.base_url and ": serving on " in line:
                self.base_url = line.rsplit(" ", 1)[-1].strip()
                self._serving.set()

    def wait_serving(self, timeout: float = 30.0) -> float:
        """Wait until ``GET /api/v1/matches`` answers 200; seconds since the process started."""
        deadline = time.monotonic() + timeout
        while not self._serving.wait(0.005):
            self._check_alive(deadline)
        while True:
            try:
                with urllib.request.urlopen(f"{self.base_url}/api/v1/matches", timeout=5) as r:
                    if r.status == 200:
                        return time.monotonic() - self.started_at
            except (urllib.error.URLError, ConnectionError):
                pass
            self._check_alive(deadline)
            time.sleep(0.005)

    def _check_alive(self, deadline: float) -> None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(f"the service exited {self.process.returncode}:\n{self.output()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the service did not start serving in time:\n{self.output()}")

    def output(self) -> str:
        return "\n".join(self._output[-40:])

    def peak_rss_mb(self) -> float:
        """The service's peak resident set size so far (``VmHWM``), in MiB."""
        assert self.process is not None
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kib = next(int(line.split()[1]) for line in status.splitlines()
                   if line.startswith("VmHWM:"))
        return kib / 1024

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def __enter__(self) -> ServiceProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
